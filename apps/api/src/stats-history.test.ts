import type { AddressInfo } from 'node:net';
import {
  STATS_HISTORY_MS,
  STATS_HISTORY_SAMPLES_MAX,
  serverStatsEvent,
  serverStatsHistoryEvent,
  type ServerStats,
  type ServerStatsEvent,
  type ServerStatsHistoryEvent,
} from '@spawnpoint/contracts';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/until.ts';
import { StatsRing } from './stats-history.ts';
import { prepareAgent, type AgentProcess } from './test/agent-process.ts';
import { buildTestApp, ownerWithServer, requester, type Send } from './test/build-test-app.ts';

const stats = (cpu: number): ServerStats => ({ cpu, memory: 50_000_000, disk: 0, players: { online: 1, max: 10, list: ['Steve'] } });

describe('StatsRing', () => {
  it('keeps the samples of the last 10 minutes, oldest first, in a fixed number of slots', () => {
    const ring = new StatsRing();
    const now = 1_000_000_000;
    // Fifteen minutes of samples, one every 2 s.
    for (let at = now - 15 * 60_000; at <= now; at += 2000) ring.push(stats(at % 100), at);
    expect(ring.length).toBe(STATS_HISTORY_SAMPLES_MAX);
    const samples = ring.read(now);
    expect(samples.length).toBeLessThanOrEqual(STATS_HISTORY_SAMPLES_MAX);
    expect(samples[0]?.at).toBeGreaterThanOrEqual(now - STATS_HISTORY_MS);
    expect(samples.at(-1)).toEqual({ at: now, cpu: now % 100, memory: 50_000_000, players: 1 });
    expect(samples.map((s) => s.at)).toEqual([...samples.map((s) => s.at)].sort((a, b) => a - b));
    // Read later, the old part has aged out.
    expect(ring.read(now + 5 * 60_000)).toHaveLength(samples.filter((s) => s.at >= now - 5 * 60_000).length);
  });

  it('holds at most its slots however often samples come', () => {
    const ring = new StatsRing();
    for (let i = 0; i < 10 * STATS_HISTORY_SAMPLES_MAX; i++) ring.push(stats(1), 5000 + i);
    expect(ring.length).toBe(STATS_HISTORY_SAMPLES_MAX);
    expect(ring.read(5000 + 10 * STATS_HISTORY_SAMPLES_MAX)).toHaveLength(STATS_HISTORY_SAMPLES_MAX);
  });
});

let t: Awaited<ReturnType<typeof buildTestApp>>;
let agent: AgentProcess;
let base: string;
let send: Send;
const sockets: Socket[] = [];

beforeAll(async () => {
  agent = await prepareAgent();
  t = await buildTestApp({ AGENTS: JSON.stringify([agent.nodeConfig]) });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  send = requester(t.app);
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

/** A browser socket of the owner subscribed to the server: the history it got on subscribing, and live stats since. */
async function watch(cookie: string, serverId: string) {
  const token = (await send('GET', '/v1/user/websocket', cookie)).json().result.token as string;
  const socket = connect(base, { transports: ['websocket'], reconnection: false });
  sockets.push(socket);
  const live: ServerStatsEvent[] = [];
  let history: ServerStatsHistoryEvent | null = null;
  socket.on('server:stats', (payload: unknown) => live.push(serverStatsEvent.parse(payload)));
  socket.on('server:stats-history', (payload: unknown) => {
    history = serverStatsHistoryEvent.parse(payload);
  });
  await new Promise<void>((resolve) => {
    socket.once('auth:success', () => resolve());
    socket.emit('auth', { token });
  });
  socket.emit('server:subscribe', { serverId });
  const samples = (await until(
    () => history,
    (h) => h !== null && h.serverId === serverId,
  )) as ServerStatsHistoryEvent;
  return { socket, live, samples: samples.samples };
}

describe('stats history over the socket', () => {
  it('gives a new subscription the samples an earlier page saw, and forgets them when the server stops', async () => {
    const { cookie, id } = await ownerWithServer(t, 'stats');
    expect((await send('POST', `/v1/server/${id}/start`, cookie, {})).json().status).toBe('SUCCESS');
    const first = await watch(cookie, id);
    // The node reports every 2 s while the server runs.
    await until(
      () => first.live.length,
      (n) => n >= 2,
    );
    const seen = first.live.slice(0, 2);
    first.socket.disconnect();

    // A reloaded page: a new socket, a new subscription.
    const second = await watch(cookie, id);
    for (const sample of seen)
      expect(second.samples).toContainEqual({ at: sample.at, cpu: sample.cpu, memory: sample.memory, players: sample.players.online });
    expect(second.samples.map((s) => s.at)).toEqual([...second.samples.map((s) => s.at)].sort((a, b) => a - b));

    await send('POST', `/v1/server/${id}/stop`, cookie, {});
    await until(
      async () => (await send('GET', `/v1/server/${id}`, cookie)).json().result.state,
      (s) => s === 'offline',
    );
    expect(t.ctx.game.hub.statsHistoryOf(id)).toEqual([]);
    expect((await watch(cookie, id)).samples).toEqual([]);
  });

  it('keeps 10 minutes at most, and drops them when the server is deleted', async () => {
    const { cookie, id } = await ownerWithServer(t, 'bound');
    // As if the node had reported for 15 minutes, one sample every 2 s.
    const now = Date.now();
    for (let at = now - 15 * 60_000; at <= now; at += 2000) t.ctx.game.hub.intake.stats('test-node', id, stats(at % 100), at);

    const { samples } = await watch(cookie, id);
    expect(samples.length).toBeGreaterThan(250);
    expect(samples.length).toBeLessThanOrEqual(STATS_HISTORY_SAMPLES_MAX);
    expect(samples[0]?.at).toBeGreaterThanOrEqual(now - STATS_HISTORY_MS);
    expect(samples.at(-1)?.at).toBe(now);

    expect((await send('DELETE', `/v1/server/${id}`, cookie)).json().status).toBe('SUCCESS');
    expect(t.ctx.game.hub.statsHistoryOf(id)).toEqual([]);
  });
});
