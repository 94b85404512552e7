import { randomBytes } from 'node:crypto';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/until.ts';
import { prepareAgent, type AgentProcess } from './test/agent-process.ts';
import { prepareApiProcess } from './test/api-process.ts';
import { joinGame } from './test/server-watch.ts';
import { uniqueServerName } from './test/build-test-app.ts';

/**
 * Two API processes of one service as production runs them (their own processes, one PostgreSQL database,
 * one Redis), and one node whose API_URL names both, the process that does not hold the game plane first.
 * The first process holds it; everything is done through the second, as a browser the load balancer sent
 * there; then the holder is killed and the second takes over, with the game still running. PostgreSQL only
 * (PGlite is one process's database) and where TEST_REDIS_URL is set.
 */
const REDIS_URL = process.env.TEST_REDIS_URL as string;
const LEASE_SECONDS = 2;
type Api = Awaited<ReturnType<typeof prepareApiProcess>>;
let a: Api;
let b: Api;
let agent: AgentProcess;
const sockets: Socket[] = [];
// The first owner's session cookie (the helper keeps only the latest sign-up's).
let owner = '';
const players: { end(): void }[] = [];

beforeAll(async () => {
  const env = {
    REDIS_URL,
    REDIS_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
    GAME_PLANE_LEASE_SECONDS: String(LEASE_SECONDS),
  };
  // Room for one running server: a second start waits in the start queue.
  agent = await prepareAgent(1);
  const nodes = { AGENTS: JSON.stringify([agent.nodeConfig]) };
  a = await prepareApiProcess({ ...env, ...nodes });
  await a.start();
  b = await prepareApiProcess({ ...env, ...nodes }, a);
  await b.start();
  agent.start(`${b.base},${a.base}`);
}, 120_000);

afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  for (const player of players) player.end();
  await agent?.stop();
  await b?.cleanup();
  await a?.cleanup();
});

const agentsOf = async (api: Api) => ((await api.call('GET', '/healthz')).result?.agents as string[] | undefined) ?? [];
const listed = async (api: Api, serverId: string, cookie = owner) =>
  (
    (await api.call('GET', '/v1/user/servers', undefined, cookie)).result as
      { serverId: string; state: string; players: { online: number } }[] | undefined
  )?.find((s) => s.serverId === serverId);

/** A browser's socket on `api`, signed in as the owner, watching one server's console. */
async function consoleOn(api: Api, serverId: string) {
  const token = (await api.call('GET', '/v1/user/websocket', undefined, owner)).result.token as string;
  const socket = connect(api.base, { transports: ['websocket'], reconnection: false });
  sockets.push(socket);
  const lines: string[] = [];
  const states: string[] = [];
  socket.on('server:console', (e: { serverId: string; lines: string[] }) => e.serverId === serverId && lines.push(...e.lines));
  socket.on('server:state', (e: { serverId: string; state: string }) => e.serverId === serverId && states.push(e.state));
  await new Promise<void>((resolve, reject) => {
    socket.once('auth:success', () => resolve());
    socket.once('auth:error', (e: { message: string }) => reject(new Error(e.message)));
    socket.emit('auth', { token });
  });
  socket.emit('server:subscribe', { serverId });
  return { socket, lines, states };
}

describe('the game plane across two API processes', () => {
  it('runs on one process, is used through the other, and moves to it when the first dies, the game running on', async () => {
    // The node was refused by B (it does not hold the game plane) and went on to A; B knows it through A.
    await until(
      () => agentsOf(a),
      (ids) => ids.includes(agent.nodeConfig.id),
      30_000,
    );
    await until(
      () => agentsOf(b),
      (ids) => ids.includes(agent.nodeConfig.id),
    );

    // Everything through B: sign-up, a server, its start.
    owner = (await b.signUpVerified()).cookie;
    const created = await b.call('POST', '/v1/server/create', { serverName: uniqueServerName('plane') }, owner);
    expect(created.status).toBe('SUCCESS');
    const serverId = created.result.serverId as string;
    const port = created.result.port as number;
    const watching = await consoleOn(b, serverId);
    // A request B hands to A comes back with A's headers: still an API answer's, not a page's.
    const handed = await fetch(`${b.base}/v1/server/${serverId}`, { headers: { cookie: owner } });
    expect(handed.status).toBe(200);
    expect(handed.headers.get('cache-control')).toBe('no-store');
    expect(handed.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(handed.headers.get('referrer-policy')).toBeNull();
    expect((await b.call('POST', `/v1/server/${serverId}/start`, {}, owner)).status).toBe('SUCCESS');
    // B's polled list follows the state A holds; B's socket got the changes.
    await until(
      () => listed(b, serverId),
      (s) => s?.state === 'online',
      60_000,
    );
    expect(watching.states).toContain('online');
    // A command sent on B's socket reaches the game, and its console line comes back on the same socket.
    watching.socket.emit('server:command', { serverId, command: 'say hello from the second process' });
    await until(
      () => watching.lines.join('\n'),
      (text) => text.includes('hello from the second process'),
    );
    // A player in the game shows in B's list (the game's stats arrive at A and are mirrored to B).
    players.push(await joinGame(port, 'PlaneWalker'));
    await until(
      () => listed(b, serverId),
      (s) => s?.players.online === 1,
      30_000,
    );
    // B's server details (play time, the queue) are A's answer.
    const details = await b.call('GET', `/v1/server/${serverId}`, undefined, owner);
    expect(details.result).toMatchObject({ serverId, state: 'online' });
    // Another owner's start waits in A's start queue: the node has room for one.
    const other = (await b.signUpVerified()).cookie;
    const waiting = (await b.call('POST', '/v1/server/create', { serverName: uniqueServerName('queued') }, other)).result
      .serverId as string;
    expect((await b.call('POST', `/v1/server/${waiting}/start`, {}, other)).status).toBe('SUCCESS');
    await until(
      () => listed(b, waiting, other),
      (s) => s?.state === 'queued',
    );

    // A dies. B takes the lease once it runs out, the node comes to B, and the game never stopped: a page
    // polling B meanwhile never sees the running server offline (B keeps the last state it mirrored).
    await a.kill();
    const seen: string[] = [];
    await until(
      async () => {
        const [d, list] = await Promise.all([b.call('GET', `/v1/server/${serverId}`, undefined, owner), listed(b, serverId)]);
        seen.push(String(d.result?.state), String(list?.state));
        return { d, nodes: await agentsOf(b) };
      },
      ({ d, nodes }) => d.result?.state === 'online' && d.result?.players.online === 1 && nodes.includes(agent.nodeConfig.id),
      30_000,
      20,
    );
    expect(seen).not.toContain('offline');
    // The start that waited in A's queue waits in B's.
    await until(
      () => b.call('GET', `/v1/server/${waiting}`, undefined, other),
      (d) => d.result?.state === 'queued' && d.result?.queuePosition === 1,
    );
    // B runs the game plane itself now: it stops the server, and the waiting one starts in its place.
    expect((await b.call('POST', `/v1/server/${serverId}/stop`, {}, owner)).status).toBe('SUCCESS');
    await until(
      () => listed(b, serverId),
      (s) => s?.state === 'offline',
      60_000,
    );
    await until(
      () => listed(b, waiting, other),
      (s) => s?.state === 'online',
      60_000,
    );

    // A comes back as a mirror of B: the same states, and its requests are B's answers.
    await a.start();
    await until(
      () => listed(a, serverId),
      (s) => s?.state === 'offline',
    );
    await until(
      () => listed(a, waiting, other),
      (s) => s?.state === 'online',
    );
    await until(
      () => agentsOf(a),
      (ids) => ids.includes(agent.nodeConfig.id),
    );
    expect((await a.call('POST', `/v1/server/${waiting}/stop`, {}, other)).status).toBe('SUCCESS');
    await until(
      () => listed(b, waiting, other),
      (s) => s?.state === 'offline',
      60_000,
    );
    await until(
      () => listed(a, waiting, other),
      (s) => s?.state === 'offline',
    );
  }, 240_000);
});
