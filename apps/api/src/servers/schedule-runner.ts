import { setTimeout as sleep } from 'node:timers/promises';
import { nextRuns, restartWarnings, scheduleActionLabels, timeLeftWords, type ServerState } from '@spawnpoint/contracts';
import { and, asc, eq, lte } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/index.ts';
import { serverSchedules, servers } from '../db/schema.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { ServerHub } from '../server-hub.ts';
import { recordActivity } from './activity.ts';
import type { BackupJobs } from './backup-jobs.ts';
import type { PowerDispatcher } from './power.ts';
import type { ServerRow } from '../db/rows.ts';

type ScheduleRow = typeof serverSchedules.$inferSelect;

/** How often each API process looks for due schedules: a run starts at most this late. */
export const SCHEDULE_TICK_MS = 5000;
/** Due schedules taken per look (the rest wait for the next one). */
const DUE_BATCH = 500;
const WARNING_LEAD_MAX_MS = 30 * 60_000;
const BACKUP_WAIT_MS = 30 * 60_000;
const SETTLE_WAIT_MS = 2 * 60_000;
const SETTLED: readonly ServerState[] = ['online', 'offline', 'sleeping'];
// A warning or run this much past its time still counts as on time.
const LATE_TOLERANCE_MS = 5000;

export interface ScheduleOutcome {
  result: 'ok' | 'failed' | 'skipped';
  message: string;
}

/** When a schedule's next run is, counted from a moment, or null when it has none. */
export function nextRunAfter(row: Pick<ScheduleRow, 'cron' | 'timeZone'>, from: Date): Date | null {
  const runs = nextRuns(row.cron, row.timeZone, 1, from);
  return 'error' in runs ? null : (runs[0] ?? null);
}

/** When the runner starts a run: a restart's chat warnings come before the time the expression names. */
function startsAt(row: ScheduleRow): number {
  const at = row.nextRunAt?.getTime() ?? Infinity;
  return row.action.kind === 'restart' ? at - row.action.warnMinutes * 60_000 : at;
}

/** A run that stops before acting: the schedule changed, or the API is stopping. */
class CalledOff extends Error {}

/**
 * Runs the schedules of every server (docs/guide.md, Schedules). Lock-based rather than a job queue: the
 * runner looks for due rows every few seconds and claims one by moving its `next_run_at` forward with a
 * compare-and-set (`UPDATE … WHERE id = ? AND next_run_at = <the due time it read>`). Only one update
 * matches, so each due time runs once however many runners look at one database, on PostgreSQL and PGlite
 * alike, with no second system to run. The next time is counted from the later of now and the due time, so
 * a schedule that was due while the API was down runs once when it is back, not once per missed slot. A
 * claimed run is at most once: a process dying midway does not repeat a restart or a command. Runs go on in
 * the background: one restart waiting out its warnings never holds up another server's schedule.
 */
export class ScheduleRunner {
  private timer: NodeJS.Timeout | null = null;
  private looking: Promise<void> | null = null;
  private runs = new Set<Promise<void>>();
  private stopping = new AbortController();

  constructor(
    private db: Db,
    private hub: ServerHub,
    private nodes: NodeRegistry,
    private power: PowerDispatcher,
    private backups: BackupJobs,
    private log: FastifyBaseLogger,
    /** Waits between a restart's warnings (tests pass one that returns as soon as the players heard it). */
    private wait: (ms: number, signal: AbortSignal) => Promise<void> = (ms, signal) => sleep(ms, undefined, { signal }),
    private clock: () => number = Date.now,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.looking) return;
      this.looking = this.claimDue(new Date(this.clock()))
        .then((runs) => runs.forEach((run) => this.track(run)))
        .catch((err: unknown) => this.log.error({ err }, 'looking for due schedules failed'))
        .finally(() => (this.looking = null));
    }, SCHEDULE_TICK_MS);
    this.timer.unref();
  }

  /** Stops looking, calls off the runs that are waiting (a restart's warnings), and waits for the rest. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopping.abort();
    await this.looking;
    await Promise.all([...this.runs]);
  }

  /** Claims every schedule due at `now` and resolves when those runs have ended (tests call this). */
  async tick(now = new Date(this.clock())): Promise<void> {
    await Promise.all(await this.claimDue(now));
  }

  private track(run: Promise<void>): void {
    this.runs.add(run);
    void run.finally(() => this.runs.delete(run));
  }

  private async claimDue(now: Date): Promise<Promise<void>[]> {
    const rows = await this.db
      .select({ schedule: serverSchedules, nodeId: servers.nodeId })
      .from(serverSchedules)
      .innerJoin(servers, eq(servers.id, serverSchedules.serverId))
      .where(and(eq(serverSchedules.enabled, true), lte(serverSchedules.nextRunAt, new Date(now.getTime() + WARNING_LEAD_MAX_MS))))
      .orderBy(asc(serverSchedules.nextRunAt))
      .limit(DUE_BATCH);
    const runs: Promise<void>[] = [];
    for (const { schedule: row, nodeId } of rows) {
      if (startsAt(row) > now.getTime() || !row.nextRunAt) continue;
      // Until its node is connected the server's state is not known: the run waits for it, unclaimed.
      if (!this.nodes.isConnected(nodeId)) continue;
      const due = row.nextRunAt;
      if (await this.claim(row, due, now)) runs.push(this.run(row, due));
    }
    return runs;
  }

  private async claim(row: ScheduleRow, due: Date, now: Date): Promise<boolean> {
    const from = new Date(Math.max(now.getTime(), due.getTime()));
    const claimed = await this.db
      .update(serverSchedules)
      // The run's own time, and that it is under way (a change made meanwhile counts on from it).
      .set({ nextRunAt: nextRunAfter(row, from), lastRunAt: due, lastResult: 'running', lastMessage: '' })
      .where(and(eq(serverSchedules.id, row.id), eq(serverSchedules.nextRunAt, due)))
      .returning({ id: serverSchedules.id })
      .catch((err: unknown) => {
        this.log.error({ err, scheduleId: row.id }, 'claiming a schedule failed');
        return [];
      });
    return claimed.length === 1;
  }

  private async run(row: ScheduleRow, due: Date): Promise<void> {
    let outcome: ScheduleOutcome;
    try {
      const [server] = await this.db.select().from(servers).where(eq(servers.id, row.serverId)).limit(1);
      if (!server) return;
      outcome = await this.act(row, server, due);
    } catch (err) {
      outcome =
        err instanceof CalledOff
          ? { result: 'skipped', message: err.message }
          : { result: 'failed', message: err instanceof Error ? err.message : String(err) };
    }
    await this.record(row, outcome).catch((err: unknown) => this.log.error({ err, scheduleId: row.id }, 'recording a schedule run failed'));
  }

  /** Waits `ms`, unless the API stops first (or `also` is aborted). */
  private async pause(ms: number, also?: AbortSignal): Promise<void> {
    if (ms <= 0) return;
    const signal = also ? AbortSignal.any([this.stopping.signal, also]) : this.stopping.signal;
    try {
      await this.wait(ms, signal);
    } catch (err) {
      if (this.stopping.signal.aborted) throw new CalledOff('Called off: the API stopped before it was done.');
      if (also?.aborted) return;
      throw err;
    }
  }

  /** Throws CalledOff when the schedule was deleted, paused or changed since this run was claimed. */
  private async stillWanted(row: ScheduleRow): Promise<void> {
    const [now] = await this.db.select().from(serverSchedules).where(eq(serverSchedules.id, row.id)).limit(1);
    const same =
      now?.enabled &&
      now.cron === row.cron &&
      now.timeZone === row.timeZone &&
      now.onlyWhenOnline === row.onlyWhenOnline &&
      JSON.stringify(now.action) === JSON.stringify(row.action);
    if (!same) throw new CalledOff('Called off: the schedule was changed, paused or deleted before it was done.');
  }

  private async act(row: ScheduleRow, server: ServerRow, due: Date): Promise<ScheduleOutcome> {
    const state = () => this.hub.stateOf(server.id);
    const action = row.action;
    // A server in the middle of something (starting, stopping, a backup) is let finish first.
    if (!SETTLED.includes(state())) await this.hub.waitForState(server.id, (s) => SETTLED.includes(s), SETTLE_WAIT_MS);
    if (row.onlyWhenOnline && action.kind !== 'start' && state() !== 'online')
      return { result: 'skipped', message: `Skipped: the server was ${describe(state())}.` };
    const notice = (text: string) => this.hub.notice(server.id, `Schedule "${row.name}": ${text}`);
    switch (action.kind) {
      case 'start':
        if (state() === 'online') return { result: 'ok', message: 'The server was already online.' };
        notice('starting the server.');
        await this.power.run(server, 'start');
        return { result: 'ok', message: 'Started the server.' };
      case 'stop':
        if (state() === 'offline' || state() === 'sleeping')
          return { result: 'ok', message: `The server was already ${describe(state())}.` };
        notice('stopping the server.');
        await this.power.run(server, 'stop');
        return { result: 'ok', message: 'Stopped the server.' };
      case 'command':
        if (state() !== 'online') throw new Error(`The server was ${describe(state())}, so the command did not run.`);
        notice(`running "${action.command}".`);
        await this.nodes.command(server.nodeId, server.id, action.command);
        return { result: 'ok', message: `Ran "${action.command}".` };
      case 'restart':
        return this.restart(row, server, due, action.warnMinutes);
      case 'backup': {
        notice('making a backup.');
        const { backupId, finished } = await this.backups.create(server, row.id);
        const done = new AbortController();
        const outcome = await Promise.race([
          finished,
          this.pause(BACKUP_WAIT_MS, done.signal).then(() => ({
            ok: false,
            error: done.signal.aborted ? '' : 'The backup took too long.',
          })),
        ]).finally(() => done.abort());
        if (!outcome.ok) throw new Error(`The backup failed: ${outcome.error ?? 'unknown error'}`);
        return { result: 'ok', message: `Made backup ${backupId}.` };
      }
    }
  }

  /**
   * Warns the players at the chosen minutes, 1 minute and 10 seconds before the restart, each at its time
   * by the clock. A warning whose time has passed (the run started late) is not said; the players are told
   * the real time left instead. Before each warning and the restart: still online, and the schedule as it
   * was when the run was claimed.
   */
  private async restart(row: ScheduleRow, server: ServerRow, due: Date, warnMinutes: number): Promise<ScheduleOutcome> {
    const online = () => this.hub.stateOf(server.id) === 'online';
    const skipped = (): ScheduleOutcome => ({
      result: 'skipped',
      message: `Skipped: the server was ${describe(this.hub.stateOf(server.id))}.`,
    });
    if (!online()) return skipped();
    const restartAt = due.getTime();
    const late = (at: number) => this.clock() > at + LATE_TOLERANCE_MS;
    let warned = false;
    try {
      const warnings = restartWarnings(warnMinutes);
      const first = warnings[0];
      if (first && late(restartAt - first[0] * 1000) && restartAt - this.clock() >= 10_000) {
        await this.hub.say(server.id, `The server restarts in ${timeLeftWords((restartAt - this.clock()) / 1000)}.`);
        warned = true;
      }
      for (const [secondsBefore, words] of warnings) {
        const at = restartAt - secondsBefore * 1000;
        if (late(at)) continue;
        await this.pause(at - this.clock());
        await this.stillWanted(row);
        if (!online()) return skipped();
        await this.hub.say(server.id, words);
        warned = true;
      }
      await this.pause(restartAt - this.clock());
      await this.stillWanted(row);
    } catch (err) {
      if (err instanceof CalledOff && warned && online())
        await this.hub.say(server.id, 'The restart was called off.').catch(() => undefined);
      throw err;
    }
    if (!online()) return skipped();
    this.hub.notice(server.id, `Schedule "${row.name}": restarting the server.`);
    await this.power.run(server, 'restart');
    return { result: 'ok', message: 'Restarted the server.' };
  }

  private async record(row: ScheduleRow, outcome: ScheduleOutcome): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx
        .update(serverSchedules)
        .set({ lastResult: outcome.result, lastMessage: outcome.message.slice(0, 500) })
        .where(eq(serverSchedules.id, row.id));
      // A skipped run is shown on the schedule only; a run and a failure go in the activity log too, even
      // when the schedule was deleted while it ran (what it did happened).
      if (outcome.result === 'skipped') return;
      await recordActivity(tx, {
        serverId: row.serverId,
        actorId: null,
        action: outcome.result === 'ok' ? 'schedule.run' : 'schedule.failed',
        target: `${row.name} (${scheduleActionLabels[row.action.kind]}): ${outcome.message}`,
        ip: null,
      });
    });
    if (outcome.result === 'failed') this.hub.notice(row.serverId, `Schedule "${row.name}" failed: ${outcome.message}`);
  }
}

function describe(state: ServerState): string {
  return state.replace('_', ' ');
}
