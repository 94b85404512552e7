import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/until.ts';
import { serverMembers } from './db/schema.ts';
import { prepareAgent, type AgentProcess } from './test/agent-process.ts';
import { buildTestApp, createTestDatabase, ownerWithServer, requester, verifiedOwner, type TestApp } from './test/build-test-app.ts';

/**
 * Two API processes of one service (one database, one Redis, the same APP_SECRET), as behind a load
 * balancer: what one does, the other knows at once. Runs where TEST_REDIS_URL is set (CI sets it when the
 * local Redis answers; `npm test` says when it is not run). "At once" is checked within 3 s, well inside the
 * 15 s after which each process's session sweep would notice on its own.
 */
const REDIS_URL = process.env.TEST_REDIS_URL as string;
const AT_ONCE_MS = 3_000;
type Built = TestApp & { cleanup: () => Promise<void> };
let shared: Awaited<ReturnType<typeof createTestDatabase>>;
let agent: AgentProcess;
let a: Built;
let b: Built;
const bases = new Map<Built, string>();
const sockets: Socket[] = [];

beforeAll(async () => {
  shared = await createTestDatabase();
  agent = await prepareAgent();
  const env = {
    REDIS_URL,
    // A prefix of its own: runs (and the PGlite and PostgreSQL suites running side by side) never share a counter.
    REDIS_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
    APP_SECRET: randomBytes(32).toString('hex'),
    AGENTS: JSON.stringify([agent.nodeConfig]),
  };
  a = await buildTestApp(env, shared.database);
  b = await buildTestApp(env, shared.database);
  for (const app of [a, b]) {
    await app.app.listen({ port: 0, host: '127.0.0.1' });
    bases.set(app, `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`);
  }
  // The node dials process A, as it would dial whichever process the load balancer picked.
  agent.start(bases.get(a) as string);
  await until(
    async () => (await requester(a.app)('GET', '/healthz')).json().result.agents,
    (ids: string[]) => ids.includes('test-node'),
  );
});
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await a.cleanup();
  await b.cleanup();
  await agent.stop();
  await shared.drop();
});

/** A signed-in socket on `app`, authenticated with a token `tokenFrom` handed out. */
async function socketOn(app: Built, cookie: string, tokenFrom: Built = app): Promise<Socket> {
  const token = (await requester(tokenFrom.app)('GET', '/v1/user/websocket', cookie)).json().result.token as string;
  const socket = connect(bases.get(app) as string, { transports: ['websocket'], reconnection: false });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('auth:success', () => resolve());
    socket.once('auth:error', (e: { message: string }) => reject(new Error(e.message)));
    socket.once('connect', () => socket.emit('auth', { token }));
  });
  return socket;
}

describe('two API processes with REDIS_URL', () => {
  it('a sign-out on one ends the session on the other at once, its sockets there included', async () => {
    const cookie = await verifiedOwner(a, 'twoproc');
    // B has the session in its cache now.
    expect((await requester(b.app)('GET', '/v1/user/me', cookie)).json().status).toBe('SUCCESS');
    const onB = await socketOn(b, cookie);
    const ended = new Promise<string>((resolve) => onB.once('disconnect', resolve));
    expect((await requester(a.app)('POST', '/v1/auth/logout', cookie, {})).json().status).toBe('SUCCESS');
    await until(
      async () => (await requester(b.app)('GET', '/v1/user/me', cookie)).json().status,
      (status) => status === 'NOT_AUTHENTICATED',
      AT_ONCE_MS,
    );
    expect(await ended).toBe('io server disconnect');
  });

  it('a socket token opens one socket, whichever process it is shown to', async () => {
    const cookie = await verifiedOwner(a, 'onetoken');
    const token = (await requester(a.app)('GET', '/v1/user/websocket', cookie)).json().result.token as string;
    const answers: string[] = [];
    for (const app of [a, b]) {
      const socket = connect(bases.get(app) as string, { transports: ['websocket'], reconnection: false });
      sockets.push(socket);
      answers.push(
        await new Promise<string>((resolve) => {
          socket.once('auth:success', () => resolve('accepted'));
          socket.once('auth:error', () => resolve('refused'));
          socket.once('connect', () => socket.emit('auth', { token }));
        }),
      );
    }
    expect(answers).toEqual(['accepted', 'refused']);
  });

  it('a sign-in budget is one budget: ten wrong passwords spread over both, then the right one is refused', async () => {
    const email = `budget-${randomBytes(4).toString('hex')}@example.com`;
    await requester(a.app)('POST', '/v1/auth/register', undefined, { emailAddress: email, password: 'long enough password' });
    const from = { remoteAddress: '203.0.113.77' };
    const login = (app: Built, password: string) =>
      app.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { emailAddress: email, password }, ...from });
    for (let i = 0; i < 10; i++) expect((await login(i % 2 ? b : a, 'wrong password!')).json().status).not.toBe('RATE_LIMIT');
    expect((await login(b, 'long enough password')).json().status).toBe('RATE_LIMIT');
    expect((await login(a, 'long enough password')).json().status).toBe('RATE_LIMIT');
  });

  it('the dashboard open on the other process sees a server start there, and a new server in its list at once', async () => {
    const { cookie, id } = await ownerWithServer(a, 'seenonb');
    const onB = await socketOn(b, cookie);
    const states: string[] = [];
    onB.on('server:state', (event: { serverId: string; state: string }) => {
      if (event.serverId === id) states.push(event.state);
    });
    // B's polled list is cached now; a server made through A is in it at the next poll.
    const listOnB = async () => (await requester(b.app)('GET', '/v1/user/servers', cookie)).json().result as { serverId: string }[];
    expect((await listOnB()).map((s) => s.serverId)).toEqual([id]);
    const second = (
      await requester(a.app)('POST', '/v1/server/create', cookie, { serverName: `seen${randomBytes(3).toString('hex')}` })
    ).json();
    expect(second.status).toBe('SUCCESS');
    await until(listOnB, (list) => list.length === 2, AT_ONCE_MS);

    expect((await requester(a.app)('POST', `/v1/server/${id}/start`, cookie, {})).json().status).toBe('SUCCESS');
    await until(
      () => states,
      (seen) => seen.includes('online'),
    );
    await requester(a.app)('POST', `/v1/server/${id}/kill`, cookie, {});
  });

  it('a member removed on one process stops watching the console on the other at once', async () => {
    const { cookie: ownerCookie, id } = await ownerWithServer(a, 'memberb');
    const friendCookie = await verifiedOwner(a, 'friendb');
    const friendId = (await requester(a.app)('GET', '/v1/user/me', friendCookie)).json().result.userId as string;
    await shared.database.db.insert(serverMembers).values({ serverId: id, userId: friendId, role: 'moderator' });
    // The server was made through A after B started: B places it from its row when the friend watches it.
    const onB = await socketOn(b, friendCookie);
    const refused = new Promise<{ serverId: string; status: string }>((resolve) => onB.on('server:error', resolve));
    onB.emit('server:subscribe', { serverId: id });
    await until(
      () => b.ctx.game.hub.subscriberCount(id),
      (n) => n === 1,
    );
    expect((await requester(a.app)('DELETE', `/v1/server/${id}/members/${friendId}`, ownerCookie)).json().status).toBe('SUCCESS');
    expect(await refused).toEqual(expect.objectContaining({ serverId: id, status: 'NO_PERMISSION' }));
    expect(b.ctx.game.hub.subscriberCount(id)).toBe(0);
  });
});
