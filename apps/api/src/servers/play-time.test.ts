import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playTime } from '../db/schema.ts';
import { prepareAgent, type AgentProcess } from '../test/agent-process.ts';
import { buildTestApp, ownerWithServer, requester, type Send } from '../test/build-test-app.ts';
import { until } from '../../../../test-support/until.ts';
import { joinGame, watchServer } from '../test/server-watch.ts';
import { utcDay } from './play-time.ts';

// 12 s of play time per day, so a test uses it up (and a player has time to join before it does).
const ALLOWANCE_S = 12;

let t: Awaited<ReturnType<typeof buildTestApp>>;
let agent: AgentProcess;
let base: string;
const sockets: Socket[] = [];
const send: Send = (...args) => requester(t.app)(...args);

beforeAll(async () => {
  agent = await prepareAgent();
  t = await buildTestApp({ AGENTS: JSON.stringify([agent.nodeConfig]), DAILY_PLAY_TIME_MINUTES: String(ALLOWANCE_S / 60) });
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

describe('play time', { timeout: 120_000 }, () => {
  it('stops the running server with a console message once the day is used up; Start then answers SERVER_PLAY_TIME_REACHED', async () => {
    const { cookie, id } = await ownerWithServer(t, 'play');
    const userId = t.ctx.game.hub.ownerOf(id) as string;
    const before = (await send('GET', `/v1/server/${id}`, cookie)).json().result.playTime;
    expect(before).toMatchObject({ allowanceSeconds: ALLOWANCE_S, usedSeconds: 0, remainingSeconds: ALLOWANCE_S, counting: false });
    expect(new Date(before.resetsAt).getUTCHours()).toBe(0);

    const token = (await send('GET', '/v1/user/websocket', cookie)).json().result.token as string;
    const socket = connect(base, { transports: ['websocket'], reconnection: false });
    sockets.push(socket);
    const pushed: { counting: boolean; remainingSeconds: number }[] = [];
    const lines: string[] = [];
    socket.on('account:play-time', (e: { counting: boolean; remainingSeconds: number }) => pushed.push(e));
    socket.on('server:console', (e: { serverId: string; lines: string[] }) => e.serverId === id && lines.push(...e.lines));
    await new Promise<void>((resolve) => {
      socket.once('auth:success', () => resolve());
      socket.emit('auth', { token });
    });
    socket.emit('server:subscribe', { serverId: id });

    expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    // Counting while it runs, pushed to the page; then it runs out and the server stops by itself.
    await until(
      () => pushed,
      (p) => p.some((e) => e.counting),
    );
    await until(
      async () => (await send('GET', `/v1/server/${id}`, cookie)).json().result.state,
      (s) => s === 'offline',
    );
    await until(
      () => lines.join('\n'),
      (text) => text.includes("Today's play time is used up, so the server stops now.") && text.includes('The server stopped.'),
    );
    await until(
      () => pushed.at(-1),
      (e) => e?.counting === false && e.remainingSeconds === 0,
    );

    const refused = await send('POST', `/v1/server/${id}/start`, cookie);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({
      status: 'SERVER_PLAY_TIME_REACHED',
      message:
        "Your account has used today's free play time (shared by its free servers). It starts again after midnight UTC, or upgrade the plan to continue.",
    });
    const after = (await send('GET', `/v1/server/${id}`, cookie)).json().result;
    expect(after.state).toBe('offline');
    expect(after.playTime).toMatchObject({ usedSeconds: ALLOWANCE_S, remainingSeconds: 0, counting: false });

    // Kept in the database for the UTC day, so a restart of the API does not give it back.
    const saved = await until(
      async () =>
        (
          await t.ctx.database.db
            .select()
            .from(playTime)
            .where(and(eq(playTime.userId, userId), eq(playTime.day, utcDay(Date.now()))))
        )[0]?.usedSeconds ?? 0,
      (seconds) => seconds >= ALLOWANCE_S,
    );
    expect(saved).toBeLessThan(ALLOWANCE_S + 5);
  });

  it('tells a player in the game why, and the page shows Offline only once the player is out', async () => {
    // A second account: the first one used its day up.
    const { cookie, id } = await ownerWithServer(t, 'kick');
    const watch = await watchServer(send, base, sockets, cookie, id);
    expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    await watch.reached('online');
    const { port } = (await send('GET', `/v1/server/${id}`, cookie)).json().result as { port: number };
    const player = await joinGame(port, 'Alex');
    const heard: string[] = [];
    player.on('packet', (packet: { content?: unknown }, meta: { name: string }) => {
      if (meta.name === 'system_chat') heard.push(JSON.stringify(packet.content));
    });
    const out = new Promise<{ at: number; reason: string }>((resolve) => {
      player.once('kick_disconnect', (packet: { reason: unknown }) => resolve({ at: Date.now(), reason: JSON.stringify(packet.reason) }));
      player.once('end', () => resolve({ at: Date.now(), reason: '(connection closed)' }));
    });
    const kicked = await out;
    const offlineAt = await watch.reached('offline');
    // The player reads why in the chat, then is sent out by the stop itself (not by a dropped connection).
    expect(heard.join('\n')).toContain("Today's play time is used up; the server stops now.");
    expect(kicked.reason).toContain('The server is stopping.');
    expect(kicked.at).toBeLessThanOrEqual(offlineAt);
    player.end();
  });
});
