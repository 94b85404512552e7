import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { buildTestAppWithAgent, ownerWithServer, requester, type Send } from '../test/build-test-app.ts';
import { joinGame as join, watchServer } from '../test/server-watch.ts';
import { until } from '../../../../test-support/until.ts';

// Short settings, so a test sees a server go to sleep: 3 s without players, never sooner than 10 s after it came online.
const IDLE_MS = 3000;
const MIN_ONLINE_MS = 10_000;

let env: Awaited<ReturnType<typeof buildTestAppWithAgent>>;
let t: Awaited<ReturnType<typeof buildTestAppWithAgent>>['t'];
let base: string;
const sockets: Socket[] = [];
const send: Send = (...args) => requester(t.app)(...args);

beforeAll(async () => {
  env = await buildTestAppWithAgent(
    {
      IDLE_STOP_MINUTES: String(IDLE_MS / 60_000),
      MIN_ONLINE_MINUTES: String(MIN_ONLINE_MS / 60_000),
    },
    // Java software is listed by the local stand-in vendor (agent-process.ts), which serves no download: its
    // starts fail at once, and no packet leaves the machine.
  );
  ({ t, base } = env);
});
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await env.cleanup();
});

const watchStates = (cookie: string, serverId: string) => watchServer(send, base, sockets, cookie, serverId);
const details = async (cookie: string, id: string) => (await send('GET', `/v1/server/${id}`, cookie)).json().result;

describe('sleeping', { timeout: 120_000 }, () => {
  it("shows the free plan as this deployment runs it: the Upgrade page's plans and the catalogue say its idle time", async () => {
    const { cookie, id } = await ownerWithServer(t, 'offer');
    const said = `Sleeps ${IDLE_MS / 1000} seconds after the last player leaves; joining wakes it.`;
    const free = (list: { id: string; sleeping: string; idleStopMinutes: number | null }[]) => list.find((p) => p.id === 'free');
    expect(free((await send('GET', `/v1/server/${id}/plan`, cookie)).json().result.plans)).toMatchObject({
      sleeping: said,
      idleStopMinutes: IDLE_MS / 60_000,
    });
    expect(free((await send('GET', '/v1/plans')).json().result)?.sleeping).toBe(said);
  });

  it('says why a start failed where the owner looks, and forgets it once the server is on its way again', async () => {
    const { cookie, id } = await ownerWithServer(t, 'fails', { software: 'paper', version: '1.20.4' });
    expect((await send('POST', `/v1/server/${id}/eula`, cookie, { accept: true })).json().status).toBe('SUCCESS');
    const states = await watchStates(cookie, id);
    expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await states.reached('offline');
    const failed = states.seen.find((s) => s.state === 'offline');
    expect(failed?.stoppedBecause).toMatch(/^Could not start: /);
    expect((await details(cookie, id)).stoppedBecause).toBe(failed?.stoppedBecause);
    // Started again: on its way, the old reason is gone (until this start fails in turn).
    states.seen.splice(0);
    expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await states.reached('offline');
    expect(states.seen[0]).toMatchObject({ stoppedBecause: null });
    expect(states.seen.at(-1)?.stoppedBecause).toMatch(/^Could not start: /);
  });

  it('sleeps a server nobody plays on, never before the minimum time online; Start wakes it', async () => {
    const { cookie, id } = await ownerWithServer(t, 'nap');
    const states = await watchStates(cookie, id);
    expect((await details(cookie, id)).sleepsAfterMinutes).toBe(IDLE_MS / 60_000);

    expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    const onlineAt = await states.reached('online');
    // A player who joins a little late and leaves at once.
    const { port } = await details(cookie, id);
    const bot = await join(port, 'LateBot');
    await until(
      async () => (await details(cookie, id)).players.online,
      (n) => n === 1,
    );
    bot.end('bye');
    const leftAt = Date.now();

    const sleptAt = await states.reached('sleeping');
    // Idle long enough after the player left, and not before the minimum time online.
    expect(sleptAt - leftAt).toBeGreaterThanOrEqual(IDLE_MS);
    expect(sleptAt - onlineAt).toBeGreaterThanOrEqual(MIN_ONLINE_MS);
    expect(states.order()).toEqual(['queued', 'starting', 'online', 'stopping', 'sleeping']);
    const asleep = await details(cookie, id);
    expect(asleep.state).toBe('sleeping');
    expect(asleep.stats).toBeNull();
    // An API started again (after a deploy or a crash) still says sleeping: its node knows it only as stopped.
    const restarted = await buildApp({ config: t.config, database: t.ctx.database });
    try {
      expect((await requester(restarted.app)('GET', `/v1/server/${id}`, cookie)).json().result.state).toBe('sleeping');
    } finally {
      await restarted.close();
    }
    // Stopped as any stop: the world and the players saved, and the console says why.
    await until(
      () => states.lines.join('\n'),
      (text) => text.includes('Saved. Goodbye.') && text.includes('The server stopped.'),
    );
    expect(states.lines.join('\n')).toContain('Nobody has played for a while, so the server is going to sleep.');

    // Starting a sleeping server works like starting an offline one: it wakes.
    states.clear();
    const start = (await send('POST', `/v1/server/${id}/start`, cookie)).json();
    expect(start).toEqual({ status: 'SUCCESS', result: { serverId: id, state: 'waking' } });
    await states.reached('online');
    expect(states.order()).toEqual(['waking', 'online']);
    await send('POST', `/v1/server/${id}/kill`, cookie);
    await states.reached('offline');
  });

  it('backs up a sleeping server, which then sleeps on', async () => {
    const { cookie, id } = await ownerWithServer(t, 'napsave');
    const states = await watchStates(cookie, id);
    await send('POST', `/v1/server/${id}/start`, cookie);
    await states.reached('sleeping');
    states.clear();
    const made = (await send('POST', `/v1/server/${id}/backups`, cookie)).json();
    expect(made.status).toBe('SUCCESS');
    const listed = await until(
      async () => (await send('GET', `/v1/server/${id}/backups`, cookie)).json().result,
      (page: { running: boolean; backups: unknown[] }) => !page.running && page.backups.length === 1,
    );
    expect(listed.backups).toHaveLength(1);
    // Awaited on the socket: an HTTP answer can say `sleeping` before the pushed state has arrived.
    await states.reached('sleeping');
    expect(states.order()).toEqual(['backing_up', 'sleeping']);
    expect((await details(cookie, id)).state).toBe('sleeping');
  });

  it('keeps a server awake while a player is in the game, and counts the idle time from when the last one left', async () => {
    const { cookie, id } = await ownerWithServer(t, 'awake');
    const states = await watchStates(cookie, id);
    await send('POST', `/v1/server/${id}/start`, cookie);
    const onlineAt = await states.reached('online');
    const bot = await join((await details(cookie, id)).port, 'Stayer');
    // Plays past the minimum time online and the idle time together: the server stays up all along.
    await until(
      () => Date.now(),
      (now) => now >= onlineAt + MIN_ONLINE_MS + IDLE_MS + 2000,
    );
    expect((await details(cookie, id)).state).toBe('online');
    bot.end('bye');
    const leftAt = Date.now();
    const sleptAt = await states.reached('sleeping');
    expect(sleptAt - leftAt).toBeGreaterThanOrEqual(IDLE_MS);
    expect(states.seen.some((s) => s.state === 'sleeping' && s.at < leftAt)).toBe(false);
  });

  it('counts only active servers against the plan: a second server starts once the first sleeps', async () => {
    const { cookie, id } = await ownerWithServer(t, 'twice');
    const runningName = (await details(cookie, id)).name;
    // A Java server whose EULA is not accepted yet: the plan's limit is said first, naming what runs (the
    // owner is not asked to accept an agreement for a start that would be refused).
    const second = (
      await send('POST', '/v1/server/create', cookie, {
        serverName: `tw${Date.now().toString(36).slice(-8)}`,
        software: 'paper',
        version: '1.20.4',
      })
    ).json().result.serverId as string;
    const states = await watchStates(cookie, id);
    expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    const refused = await send('POST', `/v1/server/${second}/start`, cookie);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      status: 'SERVER_LIMIT_REACHED',
      message: `Your plan runs one server at a time, and ${runningName} is running. Stop it (or let it sleep), or upgrade to a plan that runs more, then start this one.`,
    });
    await states.reached('sleeping');
    // Now the EULA is what stands in the way; accepted, the start is taken (this node has no Paper download,
    // which is not what this test is about).
    expect((await send('POST', `/v1/server/${second}/start`, cookie)).json().message).toMatch(/EULA/);
    expect((await send('POST', `/v1/server/${second}/eula`, cookie, { accept: true })).json().status).toBe('SUCCESS');
    expect((await send('POST', `/v1/server/${second}/start`, cookie)).json().status).toBe('SUCCESS');
    await send('POST', `/v1/server/${second}/kill`, cookie);
  });
});
