import type { AddressInfo } from 'node:net';
import { AGENT_NAMESPACE, AGENT_PROTOCOL_VERSION } from '@spawnpoint/contracts';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareAgent, type AgentProcess } from '../test/agent-process.ts';
import { buildTestApp, ownerWithServer, requester, type Send } from '../test/build-test-app.ts';
import { until } from '../../../../test-support/until.ts';
import { eq } from 'drizzle-orm';
import { servers } from '../db/schema.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let agent: AgentProcess;
let base: string;
const sockets: Socket[] = [];
const send: Send = (...args) => requester(t.app)(...args);

beforeAll(async () => {
  // One node that runs one server at a time, with room for two waiting starts.
  agent = await prepareAgent(1);
  t = await buildTestApp({ AGENTS: JSON.stringify([agent.nodeConfig]), START_QUEUE_MAX: '2' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  agent.start(base);
  await until(
    async () => (await send('GET', '/healthz')).json().result.agents,
    (a: string[]) => a.includes('test-node'),
  );
});
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await t.cleanup();
  await agent.stop();
});

/** An owner with a server and a signed-in socket that records the queue positions and states pushed to it. */
async function owner(prefix: string) {
  const { cookie, id } = await ownerWithServer(t, prefix);
  const token = (await send('GET', '/v1/user/websocket', cookie)).json().result.token as string;
  const socket = connect(base, { transports: ['websocket'], reconnection: false });
  sockets.push(socket);
  const positions: (number | null)[] = [];
  const states: string[] = [];
  socket.on('server:queue', (e: { serverId: string; position: number | null }) => e.serverId === id && positions.push(e.position));
  socket.on('server:state', (e: { serverId: string; state: string }) => e.serverId === id && states.push(e.state));
  await new Promise<void>((resolve) => {
    socket.once('auth:success', () => resolve());
    socket.emit('auth', { token });
  });
  const details = async () => (await send('GET', `/v1/server/${id}`, cookie)).json().result;
  const power = (action: string) => send('POST', `/v1/server/${id}/${action}`, cookie);
  return { cookie, id, positions, states, details, power };
}

describe('start queue', { timeout: 120_000 }, () => {
  it('queues starts first come first served when the node is full, pushes positions, lets owners leave, and starts the next when a slot frees', async () => {
    const a = await owner('qa');
    const b = await owner('qb');
    const c = await owner('qc');
    const d = await owner('qd');

    expect((await a.power('start')).json().status).toBe('SUCCESS');
    await until(a.details, (s) => s.state === 'online');

    // The node's one slot is taken: the next starts wait in line instead of failing.
    expect((await b.power('start')).json()).toEqual({ status: 'SUCCESS', result: { serverId: b.id, state: 'queued' } });
    expect((await c.power('start')).json()).toEqual({ status: 'SUCCESS', result: { serverId: c.id, state: 'queued' } });
    expect((await b.details()).queuePosition).toBe(1);
    expect((await c.details()).queuePosition).toBe(2);
    await until(
      () => c.positions,
      (p) => p.at(-1) === 2,
    );
    // The queue itself is full: that is when NO_SERVERS_AVAILABLE is answered.
    const full = await d.power('start');
    expect(full.statusCode).toBe(503);
    expect(full.json().status).toBe('NO_SERVERS_AVAILABLE');
    expect((await d.details()).state).toBe('offline');
    // A waiting server cannot start twice.
    expect((await b.power('start')).statusCode).toBe(409);

    // B leaves the queue (Stop while queued): C moves up, live.
    expect((await b.power('stop')).json().result.state).toBe('offline');
    await until(
      () => c.positions,
      (p) => p.at(-1) === 1,
    );
    await until(
      () => b.positions,
      (p) => p.at(-1) === null,
    );
    expect((await b.details()).queuePosition).toBeNull();

    // A slot frees: C starts at once, by itself.
    await a.power('stop');
    await until(c.details, (s) => s.state === 'online');
    expect(c.states).toContain('starting');
    expect(c.positions.at(-1)).toBeNull();
    expect((await c.details()).queuePosition).toBeNull();
    await c.power('kill');
  });

  it("puts a paid plan's start ahead of free ones waiting, and starts it first when a slot frees", async () => {
    const a = await owner('pa');
    const free = await owner('pf');
    const paid = await owner('pp');
    // As a purchase leaves it (plans.test.ts buys through the balance): the server is on Starter.
    await t.ctx.database.db.update(servers).set({ planId: 'starter' }).where(eq(servers.id, paid.id));
    t.ctx.game.directory.invalidate((await send('GET', '/v1/user/me', paid.cookie)).json().result.userId as string);

    expect((await a.power('start')).json().status).toBe('SUCCESS');
    await until(a.details, (s) => s.state === 'online');
    expect((await free.power('start')).json().result.state).toBe('queued');
    expect((await paid.power('start')).json().result.state).toBe('queued');
    expect((await paid.details()).queuePosition).toBe(1);
    await until(
      () => free.positions,
      (p) => p.at(-1) === 2,
    );
    await a.power('stop');
    await until(paid.details, (s) => s.state === 'online');
    expect((await free.details()).queuePosition).toBe(1);
    await paid.power('kill');
    await until(free.details, (s) => s.state === 'online');
    await free.power('kill');
  });

  it('after the game plane changes hands, a waiting start keeps its place until the node has said what runs on it', async () => {
    const a = await owner('ha');
    const b = await owner('hb');
    const c = await owner('hc');
    expect((await a.power('start')).json().status).toBe('SUCCESS');
    await until(a.details, (s) => s.state === 'online');
    expect((await b.power('start')).json().result.state).toBe('queued');
    const { hub, power } = t.ctx.game;
    const [waiting] = await t.ctx.database.db.select().from(servers).where(eq(servers.id, b.id));

    // The node's link drops and its new link has not said what runs yet, as after another API process took the
    // game plane over: this process starts from nothing known (hub.takeOver) and puts the waiting start back.
    // The socket stands in for the node's agent between its connection and its hello.
    await agent.stop();
    await until(
      async () => (await send('GET', '/healthz')).json().result.agents as string[],
      (ids) => !ids.includes('test-node'),
    );
    power.queue.remove(b.id);
    hub.takeOver();
    power.waitAgain(waiting as NonNullable<typeof waiting>, 'offline');
    const node = connect(`${base}${AGENT_NAMESPACE}`, {
      transports: ['websocket'],
      reconnection: false,
      auth: { nodeId: agent.nodeConfig.id, token: agent.nodeConfig.token },
    });
    sockets.push(node);
    await new Promise<void>((resolve) => node.once('connect', resolve));
    // The queue check every second does this; here it is called at once. The node is full (a's game runs),
    // which only its hello will say: b must not take the slot meanwhile.
    power.drain(agent.nodeConfig.id);
    expect(await b.details()).toMatchObject({ state: 'queued', queuePosition: 1 });
    // A start asked for now waits too, behind it.
    expect((await c.power('start')).json().result.state).toBe('queued');

    node.emit('agent:hello', {
      protocol: AGENT_PROTOCOL_VERSION,
      nodeId: agent.nodeConfig.id,
      servers: [{ serverId: a.id, state: 'online' }],
    });
    // (Read from the live state: the details page would ask the node, and this socket answers nothing.)
    await until(
      () => hub.stateOf(a.id),
      (state) => state === 'online',
    );
    power.drain(agent.nodeConfig.id);
    expect([hub.stateOf(b.id), power.queue.positionOf(b.id)]).toEqual(['queued', 1]);
    expect([hub.stateOf(c.id), power.queue.positionOf(c.id)]).toEqual(['queued', 2]);
    expect(b.positions.at(-1)).toBe(1);
    await b.power('stop');
    await c.power('stop');
    expect([hub.stateOf(b.id), hub.stateOf(c.id)]).toEqual(['offline', 'offline']);
  });
});
