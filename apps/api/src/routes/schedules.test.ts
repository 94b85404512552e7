import { createClient, type Client } from 'minecraft-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduleRunner } from '../servers/schedule-runner.ts';
import { buildTestAppWithAgent, ownerWithServer, requester, type Send } from '../test/build-test-app.ts';
import { until } from '../../../../test-support/until.ts';

/**
 * Schedules with a real agent and real game servers. Runs are driven by calling the runner's
 * `tick` with the due time a schedule shows, instead of waiting for the clock: the expressions used here
 * name times weeks away, so the app's own ticker never takes them first.
 */
let env: Awaited<ReturnType<typeof buildTestAppWithAgent>>;
let t: Awaited<ReturnType<typeof buildTestAppWithAgent>>['t'];
const clients: Client[] = [];
const send: Send = (...args) => requester(t.app)(...args);

beforeAll(async () => {
  env = await buildTestAppWithAgent({ RATE_LIMIT_FACTOR: '3' });
  t = env.t;
});
afterAll(async () => {
  for (const c of clients) c.end('bye');
  await env.cleanup();
});

// Once a year, on New Year's Day at 04:00 in Berlin.
const YEARLY = '0 4 1 1 *';
const schedule = (over: Record<string, unknown> = {}) => ({
  name: 'Nightly',
  cron: YEARLY,
  timeZone: 'Europe/Berlin',
  action: { kind: 'backup', keep: 1 },
  ...over,
});
type Shown = { scheduleId: string; nextRuns: string[]; lastRun: { result: string; message: string } | null; enabled: boolean };
const listed = async (cookie: string, id: string): Promise<Shown[]> =>
  (await send('GET', `/v1/server/${id}/schedules`, cookie)).json().result.schedules;
const shown = async (cookie: string, id: string, scheduleId: string) =>
  (await listed(cookie, id)).find((s) => s.scheduleId === scheduleId) as Shown;
const create = async (cookie: string, id: string, body: Record<string, unknown>): Promise<Shown> => {
  const res = (await send('POST', `/v1/server/${id}/schedules`, cookie, body)).json();
  expect(res.status, res.message).toBe('SUCCESS');
  return res.result;
};
const activity = async (cookie: string, id: string): Promise<{ action: string; target: string; actor: { emailAddress: string } }[]> =>
  (await send('GET', `/v1/server/${id}/activity`, cookie)).json().result.entries;
const state = async (cookie: string, id: string): Promise<string> => (await send('GET', `/v1/server/${id}`, cookie)).json().result.state;
const power = async (cookie: string, id: string, action: string, until_: string) => {
  expect((await send('POST', `/v1/server/${id}/${action}`, cookie)).json().status).toBe('SUCCESS');
  await until(
    () => state(cookie, id),
    (s) => s === until_,
  );
};

describe('schedules', { timeout: 120_000 }, () => {
  it('adds, lists with the next runs in the time zone, changes and deletes a schedule; refuses what would never run or run too often', async () => {
    const { cookie, id } = await ownerWithServer(t, 'sched');
    const made = await create(cookie, id, schedule({ cron: '0 4 * * *', name: 'Daily backup' }));
    expect(made.nextRuns).toHaveLength(3);
    // 04:00 in Berlin is 03:00 or 02:00 UTC (winter or summer), one day apart.
    for (const at of made.nextRuns) expect(['03:00', '02:00']).toContain(at.slice(11, 16));
    const gaps = made.nextRuns.slice(1).map((at, i) => Date.parse(at) - Date.parse(made.nextRuns[i] as string));
    for (const gap of gaps) expect(Math.abs(gap - 86_400_000)).toBeLessThanOrEqual(3_600_000);

    const refusals: [Record<string, unknown>, string][] = [
      [{ cron: '* * * * * *' }, 'Use five fields'],
      [{ cron: '0 0 30 2 *' }, 'would never run'],
      [{ cron: '61 4 * * *' }, 'minute'],
      [{ timeZone: 'Mars/Olympus' }, 'time zone'],
      [{ action: { kind: 'command', command: 'say hi\nstop' } }, 'One line only'],
      [{ action: { kind: 'backup', keep: 9 } }, ''],
      [{ action: { kind: 'explode' } }, ''],
      [{ name: 'Bad\u0000name' }, 'letters, digits'],
      [{ action: { kind: 'command', command: 'say \u001b[31mred' } }, 'letters, digits'],
      [{ cron: '*/10 * * * *' }, 'at most once an hour'],
      [{ cron: '*/10 * * * *', action: { kind: 'restart', warnMinutes: 10 } }, 'shorter than the time between two restarts'],
    ];
    for (const [over, words] of refusals) {
      const res = await send('POST', `/v1/server/${id}/schedules`, cookie, schedule(over));
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(res.json().status).toBe('INVALID_INPUT');
      expect(JSON.stringify(res.json())).toContain(words);
    }

    const changed = (
      await send('PUT', `/v1/server/${id}/schedules/${made.scheduleId}`, cookie, schedule({ name: 'Off for now', enabled: false }))
    ).json().result as Shown;
    expect(changed.enabled).toBe(false);
    expect(changed.nextRuns).toEqual([]);
    expect(await listed(cookie, id)).toHaveLength(1);

    // Another owner can neither see nor touch it, even with its id under their own server.
    const other = await ownerWithServer(t, 'schedx');
    expect((await send('GET', `/v1/server/${id}/schedules`, other.cookie)).statusCode).toBe(404);
    const foreign = await send('DELETE', `/v1/server/${other.id}/schedules/${made.scheduleId}`, other.cookie);
    expect(foreign.json().status).toBe('NOT_FOUND');

    expect((await send('DELETE', `/v1/server/${id}/schedules/${made.scheduleId}`, cookie)).json().status).toBe('SUCCESS');
    expect(await listed(cookie, id)).toEqual([]);
    const log = (await activity(cookie, id)).map((e) => `${e.action} ${e.target}`);
    expect(log.slice(0, 3)).toEqual(['schedule.delete Off for now', 'schedule.update Off for now', 'schedule.create Daily backup']);
  });

  it('runs a console command on time; a run that fails is in the activity log and on the schedule; "only when online" skips quietly', async () => {
    const { cookie, id } = await ownerWithServer(t, 'schedcmd');
    const command = await create(cookie, id, schedule({ name: 'Greeting', action: { kind: 'command', command: 'say Good morning' } }));
    const quiet = await create(
      cookie,
      id,
      schedule({ name: 'Quiet', onlyWhenOnline: true, action: { kind: 'command', command: 'say hi' } }),
    );
    const due = new Date(command.nextRuns[0] as string);

    // Stopped: the command cannot run, and the owner is told.
    await t.schedules.tick(due);
    const failed = await shown(cookie, id, command.scheduleId);
    expect(failed.lastRun).toEqual(
      expect.objectContaining({ result: 'failed', message: 'The server was offline, so the command did not run.' }),
    );
    expect((await shown(cookie, id, quiet.scheduleId)).lastRun).toEqual(expect.objectContaining({ result: 'skipped' }));
    const [entry] = await activity(cookie, id);
    expect(entry).toEqual(
      expect.objectContaining({
        action: 'schedule.failed',
        target: 'Greeting (Run a console command): The server was offline, so the command did not run.',
      }),
    );
    expect(entry?.actor.emailAddress).toBe('');
    // The next run moved a year on, and one tick later nothing runs twice.
    const next = (await shown(cookie, id, command.scheduleId)).nextRuns[0] as string;
    expect(Date.parse(next)).toBeGreaterThan(due.getTime() + 300 * 86_400_000);

    await power(cookie, id, 'start', 'online');
    await t.schedules.tick(new Date(next));
    const ran = await shown(cookie, id, command.scheduleId);
    expect(ran.lastRun).toEqual(expect.objectContaining({ result: 'ok', message: 'Ran "say Good morning".' }));
    expect((await activity(cookie, id))[0]).toEqual(expect.objectContaining({ action: 'schedule.run' }));
    // The game said it (its console shows what `say` printed).
    await until(
      async () => (await t.ctx.game.nodes.consoleHistory('test-node', id)).join('\n'),
      (text: string) => text.includes('Good morning'),
    );
    await power(cookie, id, 'kill', 'offline');
  });

  it('restarts a running server after warning the players in chat', async () => {
    const { cookie, id } = await ownerWithServer(t, 'schedrst');
    const restart = await create(cookie, id, schedule({ name: 'Daily restart', action: { kind: 'restart', warnMinutes: 5 } }));
    await power(cookie, id, 'start', 'online');
    const { port } = (await send('GET', `/v1/server/${id}`, cookie)).json().result;
    const player = createClient({ host: '127.0.0.1', port, username: 'Listener', auth: 'offline', version: '1.21.4' });
    clients.push(player);
    const chat: string[] = [];
    player.on('packet', (data: unknown, meta: { name: string }) => {
      if (meta.name.includes('chat')) chat.push(JSON.stringify(data));
    });
    await new Promise<void>((resolve) => player.once('login', () => resolve()));

    // The waits between warnings pass as soon as the warning before was heard; what the players are told
    // and the restart are real.
    const { db } = t.ctx.database;
    const { hub, nodes, power: dispatcher, backups } = t.ctx.game;
    // The runner waits before each warning and before the restart; each wait here ends as soon as the
    // players heard every warning said before it.
    const heard = () => chat.filter((line) => line.includes('The server restarts in')).length;
    let waits = 0;
    const runner = new ScheduleRunner(db, hub, nodes, dispatcher, backups, t.ctx.log, async () => {
      waits += 1;
      await until(heard, (n) => n >= waits - 1);
    });
    const due = new Date(restart.nextRuns[0] as string);
    const states: string[] = [];
    hub.onStateChange((serverId, s) => serverId === id && states.push(s));
    await runner.tick(new Date(due.getTime() - 5 * 60_000));
    for (const words of ['restarts in 5 minutes', 'restarts in 1 minute', 'restarts in 10 seconds'])
      expect(
        chat.some((line) => line.includes(words)),
        `${words} in ${chat.join(' | ')}`,
      ).toBe(true);
    await until(
      () => state(cookie, id),
      (s) => s === 'online' && states.includes('stopping'),
    );
    expect((await shown(cookie, id, restart.scheduleId)).lastRun).toEqual(
      expect.objectContaining({ result: 'ok', message: 'Restarted the server.' }),
    );
    await power(cookie, id, 'kill', 'offline');
  });

  it('backs up with its own retention, leaving backups made by hand; a slot missed while down runs once', async () => {
    const { cookie, id } = await ownerWithServer(t, 'schedbak');
    expect((await send('POST', `/v1/server/${id}/backups`, cookie)).json().status).toBe('SUCCESS');
    const backupsNow = async () =>
      until(
        async () =>
          (await send('GET', `/v1/server/${id}/backups`, cookie)).json().result as { running: boolean; backups: { backupId: string }[] },
        (page) => !page.running,
      );
    const byHand = (await backupsNow()).backups[0]?.backupId;
    const nightly = await create(cookie, id, schedule({ cron: '0 4 * * *', action: { kind: 'backup', keep: 1 } }));

    // Down for three days: one run when back, and the next run is tomorrow, not the missed ones.
    const first = new Date(nightly.nextRuns[0] as string);
    const back = new Date(first.getTime() + 3 * 86_400_000 + 3_600_000);
    await t.schedules.tick(back);
    const after = await shown(cookie, id, nightly.scheduleId);
    expect(after.lastRun?.result).toBe('ok');
    expect(Date.parse(after.nextRuns[0] as string)).toBeGreaterThan(back.getTime());
    expect(Date.parse(after.nextRuns[0] as string) - back.getTime()).toBeLessThan(86_400_000);
    await t.schedules.tick(back);
    const once = await backupsNow();
    expect(once.backups).toHaveLength(2);

    await t.schedules.tick(new Date(after.nextRuns[0] as string));
    const rotated = await backupsNow();
    // keep 1: the schedule's older backup went; the one made by hand stays.
    expect(rotated.backups).toHaveLength(2);
    expect(rotated.backups.map((b) => b.backupId)).toContain(byHand);
    expect((await activity(cookie, id)).filter((e) => e.action === 'schedule.run')).toHaveLength(2);
  });

  it('runs a due time exactly once when several runners look at the same moment', async () => {
    const { cookie, id } = await ownerWithServer(t, 'schedtwo');
    const stop = await create(cookie, id, schedule({ name: 'Stop', action: { kind: 'stop' } }));
    // Three more runners on the same database, as more API processes would have (each with its own
    // connection on PostgreSQL); the claim is the database's compare-and-set, not memory they share.
    const { hub, nodes, power: dispatcher, backups } = t.ctx.game;
    const others = [1, 2, 3].map(() => new ScheduleRunner(t.ctx.database.db, hub, nodes, dispatcher, backups, t.ctx.log));
    const due = new Date(stop.nextRuns[0] as string);
    await Promise.all([t.schedules.tick(due), ...others.map((r) => r.tick(due))]);
    const runs = (await activity(cookie, id)).filter((e) => e.action === 'schedule.run' || e.action === 'schedule.failed');
    expect(runs).toHaveLength(1);
    expect(runs[0]?.target).toBe('Stop (Stop): The server was already offline.');
  });

  it('calls off a restart whose schedule is paused during its warnings, and an edit then does not run it twice', async () => {
    const { cookie, id } = await ownerWithServer(t, 'schedoff');
    const body = schedule({ name: 'Evening restart', action: { kind: 'restart', warnMinutes: 5 } });
    const restart = await create(cookie, id, body);
    await power(cookie, id, 'start', 'online');
    const { db } = t.ctx.database;
    const { hub, nodes, power: dispatcher, backups } = t.ctx.game;
    // The owner pauses it while the players are being warned (the first wait is where that happens).
    let paused = false;
    const runner = new ScheduleRunner(db, hub, nodes, dispatcher, backups, t.ctx.log, async () => {
      if (paused) return;
      paused = true;
      const res = await send('PUT', `/v1/server/${id}/schedules/${restart.scheduleId}`, cookie, { ...body, enabled: false });
      expect(res.json().status).toBe('SUCCESS');
    });
    const due = new Date(restart.nextRuns[0] as string);
    await runner.tick(new Date(due.getTime() - 5 * 60_000));
    const shown1 = await shown(cookie, id, restart.scheduleId);
    expect(shown1.lastRun).toEqual(expect.objectContaining({ result: 'skipped' }));
    expect(shown1.lastRun?.message).toContain('Called off');
    expect(await state(cookie, id)).toBe('online');
    // Resumed at once: its next run is the one after the time that was called off, never that time again.
    const resumed = (await send('PUT', `/v1/server/${id}/schedules/${restart.scheduleId}`, cookie, body)).json().result as Shown;
    expect(Date.parse(resumed.nextRuns[0] as string)).toBeGreaterThan(due.getTime());
    await power(cookie, id, 'kill', 'offline');
  });
});
