import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { AGENT_NAMESPACE, AGENT_PROTOCOL_VERSION } from '@spawnpoint/contracts';
import minecraftProtocol from 'minecraft-protocol';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test-support/free-port.ts';
import { until } from '../../../test-support/until.ts';
import { prepareAgent, type AgentProcess } from './test/agent-process.ts';
import { buildTestApp, ownerWithServer, requester } from './test/build-test-app.ts';
import { watchServer } from './test/server-watch.ts';

/**
 * A node is trusted with its own servers only (many machines, "bad input"): node B, holding its own valid
 * token, sends events about a server placed on node A, claims to run it and reports a backup of it; a
 * socket with a wrong token for A tries to take A's place. Each is refused or dropped, and logged.
 */
let t: Awaited<ReturnType<typeof buildTestApp>>;
let base: string;
let agent: AgentProcess;
const tokenB = randomBytes(24).toString('hex');
const sockets: Socket[] = [];
const refused: { nodeId: string; serverId: string }[] = [];

beforeAll(async () => {
  agent = await prepareAgent(50, {}, 'node-a');
  const nodeB = {
    id: 'node-b',
    url: `http://127.0.0.1:${await freePort()}`,
    token: tokenB,
    publicHost: 'localhost',
    capacity: 50,
    portRange: '26000-26010',
  };
  t = await buildTestApp({ AGENTS: JSON.stringify([agent.nodeConfig, nodeB]) });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  agent.start(base);
  await nodes((ids) => ids.includes('node-a'));
  const log = t.ctx.game.hub.intake.onRefused;
  t.ctx.game.hub.intake.onRefused = (nodeId, serverId, dropped) => {
    refused.push({ nodeId, serverId });
    log?.(nodeId, serverId, dropped);
  };
}, 60_000);
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await t?.cleanup();
  await agent?.stop();
});

const send = (...args: Parameters<ReturnType<typeof requester>>) => requester(t.app)(...args);
const nodes = (ok: (ids: string[]) => boolean) => until(async () => (await send('GET', '/healthz')).json().result.agents as string[], ok);

/** A socket to the agents' namespace with these credentials, as a node's agent opens it. */
function nodeSocket(nodeId: string, token: string): Socket {
  const socket = connect(`${base}${AGENT_NAMESPACE}`, { transports: ['websocket'], reconnection: false, auth: { nodeId, token } });
  sockets.push(socket);
  return socket;
}

describe("a node and another node's servers", () => {
  it("drops every event node B sends about node A's server, and its claim to run it stops nothing on A", { timeout: 60_000 }, async () => {
    const { cookie, id } = await ownerWithServer(t, 'trusted');
    expect((await send('POST', `/v1/server/${id}/start`, cookie, {})).json().status).toBe('SUCCESS');
    await until(
      () => t.ctx.game.hub.stateOf(id),
      (s) => s === 'online',
    );
    const watcher = await watchServer(send, base, sockets, cookie, id);
    const { port } = (await send('GET', `/v1/server/${id}`, cookie)).json().result as { port: number };

    const b = nodeSocket('node-b', tokenB);
    await new Promise<void>((resolve) => b.once('connect', () => resolve()));
    b.emit('agent:hello', {
      protocol: AGENT_PROTOCOL_VERSION,
      nodeId: 'node-b',
      servers: [{ serverId: id, state: 'online' }],
      backups: [],
    });
    b.emit('agent:state', { serverId: id, state: 'offline' });
    b.emit('agent:stats', { serverId: id, cpu: 99.9, memory: 1, disk: 1, players: { online: 7, max: 10, list: ['Ghost'] } });
    b.emit('agent:backup', { serverId: id, backupId: 'forged', phase: 'complete', bytes: 1, totalBytes: 1, size: 1, sha256: 'x' });
    // An upload report about A's server: acknowledged (so B forgets it) and never logged.
    const me = (await send('GET', '/v1/user/me', cookie)).json().result as { userId: string };
    await new Promise<void>((resolve) =>
      b.emit('agent:upload', { serverId: id, path: '/forged-by-b.jar', bytes: 1, actorId: me.userId }, () => resolve()),
    );
    // Events of one socket are handled in order, and a console batch is acknowledged: once it is, all were.
    await new Promise<void>((resolve) => b.emit('agent:console', { serverId: id, lines: ['[Server] forged by node B'] }, () => resolve()));

    expect(refused).toContainEqual({ nodeId: 'node-b', serverId: id });
    expect(t.ctx.game.hub.stateOf(id)).toBe('online');
    expect(watcher.order()).not.toContain('offline');
    expect(watcher.lines.join('\n')).not.toContain('forged by node B');
    expect(t.ctx.game.hub.statsOf(id)?.cpu).not.toBe(99.9);
    expect((await send('GET', `/v1/server/${id}/backups`, cookie)).json().result.backups).toEqual([]);
    expect(JSON.stringify((await send('GET', `/v1/server/${id}/activity`, cookie)).json().result.entries)).not.toContain('forged-by-b');
    // The game on A kept running through B's claim to run it.
    await minecraftProtocol.ping({ host: '127.0.0.1', port, closeTimeout: 2000 });
    await send('POST', `/v1/server/${id}/kill`, cookie, {});
  });

  it("refuses a socket that names node A with a wrong token; A's own connection stays", async () => {
    const impostor = nodeSocket('node-a', randomBytes(24).toString('hex'));
    const error = await new Promise<Error>((resolve) => impostor.once('connect_error', resolve));
    expect(error.message).toBe('NOT_AUTHENTICATED');
    expect((await send('GET', '/healthz')).json().result.agents).toContain('node-a');
    const unknown = nodeSocket('node-z', tokenB);
    expect((await new Promise<Error>((resolve) => unknown.once('connect_error', resolve))).message).toBe('NOT_AUTHENTICATED');
  });

  it('disconnects a node whose hello is not the protocol, so its servers answer NODE_UNAVAILABLE rather than wait', async () => {
    const b = nodeSocket('node-b', tokenB);
    await new Promise<void>((resolve) => b.once('connect', () => resolve()));
    const gone = new Promise<string>((resolve) => b.once('disconnect', (reason: string) => resolve(reason)));
    b.emit('agent:hello', { protocol: AGENT_PROTOCOL_VERSION + 100, nodeId: 'node-b', servers: [] });
    expect(await gone).toBe('io server disconnect');
    expect((await send('GET', '/healthz')).json().result.agents).not.toContain('node-b');
  });
});
