import { nextRuns, restartWarnings, scheduleActionLabels, type ServerState } from '@spawnpoint/contracts';
import { and, eq, lte } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/index.ts';
import { serverSchedules, servers } from '../db/schema.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { ServerHub } from '../server-hub.ts';
import { recordActivity } from './activity.ts';
import type { BackupJobs } from './backup-jobs.ts';
import type { PowerDispatcher } from './power.ts';
import type { ServerRow } from './server-creator.ts';

type ScheduleRow = typeof serverSchedules.$inferSelect;

/** How often each API process looks for due schedules: a run starts at most this late. */
export const SCHEDULE_TICK_MS = 5000;
/** Due schedules taken per look (the rest wait for the next one). */
const DUE_BATCH = 100;
const WARNING_LEAD_MAX_MS = 30 * 60_000;
const BACKUP_WAIT_MS = 30 * 60_000;
const SETTLE_WAIT_MS = 2 * 60_000;
const SETTLED: readonly ServerState[] = ['online', 'offline', 'sleeping'];

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

/**
 * Runs the schedules of every server (issue 14 #5). Lock-based rather than a job queue: each API process
 * looks for due rows every few seconds and claims one by moving its `next_run_at` forward with a
 * compare-and-set (`UPDATE … WHERE id = ? AND next_run_at = <the due time it read>`). Only one process's
 * update matches, so each due time runs once however many processes look, on PostgreSQL and PGlite
 * alike, with no second system to run. The next time is counted from the later of now and the due time,
 * so a schedule that was due while the API was down runs once when it is back, not once per missed slot.
 * A claimed run is at most once: a process dying midway does not repeat a restart or a command.
 */
export class ScheduleRunner {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;

  constructor(
    private db: Db,
    private hub: ServerHub,
    private nodes: NodeRegistry,
    private power: PowerDispatcher,
    private backups: BackupJobs,
    private log: FastifyBaseLogger,
    /** Waits before a restart's warnings (tests pass one that returns at once). */
    private wait: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (!this.ticking) this.ticking = this.tick().finally(() => (this.ticking = null));
    }, SCHEDULE_TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
  }

  /** Claims and runs every schedule due at `now`; resolves when those runs have ended. */
  async tick(now = new Date()): Promise<void> {
    const rows = await this.db
      .select()
      .from(serverSchedules)
      .where(and(eq(serverSchedules.enabled, true), lte(serverSchedules.nextRunAt, new Date(now.getTime() + WARNING_LEAD_MAX_MS))))
      .limit(DUE_BATCH)
      .catch((err: unknown) => {
        this.log.error({ err }, 'reading due schedules failed');
        return [] as ScheduleRow[];
      });
    const runs: Promise<void>[] = [];
    for (const row of rows) {
      if (startsAt(row) > now.getTime() || !row.nextRunAt) continue;
      const due = row.nextRunAt;
      if (await this.claim(row, due, now)) runs.push(this.run(row, due, now));
    }
    await Promise.all(runs);
  }

  private async claim(row: ScheduleRow, due: Date, now: Date): Promise<boolean> {
    const from = new Date(Math.max(now.getTime(), due.getTime()));
    const claimed = await this.db
      .update(serverSchedules)
      .set({ nextRunAt: nextRunAfter(row, from), lastRunAt: now })
      .where(and(eq(serverSchedules.id, row.id), eq(serverSchedules.nextRunAt, due)))
      .returning({ id: serverSchedules.id })
      .catch((err: unknown) => {
        this.log.error({ err, scheduleId: row.id }, 'claiming a schedule failed');
        return [];
      });
    return claimed.length === 1;
  }

  private async run(row: ScheduleRow, due: Date, now: Date): Promise<void> {
    let outcome: ScheduleOutcome;
    try {
      const [server] = await this.db.select().from(servers).where(eq(servers.id, row.serverId)).limit(1);
      if (!server) return;
      outcome = await this.act(row, server, due, now);
    } catch (err) {
      outcome = { result: 'failed', message: err instanceof Error ? err.message : String(err) };
    }
    await this.record(row, outcome).catch((err: unknown) => this.log.error({ err, scheduleId: row.id }, 'recording a schedule run failed'));
  }

  private async act(row: ScheduleRow, server: ServerRow, due: Date, now: Date): Promise<ScheduleOutcome> {
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
      case 'restart': {
        if (state() !== 'online') return { result: 'skipped', message: `Skipped: the server was ${describe(state())}.` };
        // Each warning at its time before the restart (all at once if the run started late).
        const restartAt = due.getTime();
        let clock = now.getTime();
        for (const [secondsBefore, words] of restartWarnings(action.warnMinutes)) {
          const at = restartAt - secondsBefore * 1000;
          if (at > clock) {
            await this.wait(at - clock);
            clock = at;
          }
          if (state() !== 'online') return { result: 'skipped', message: `Skipped: the server was ${describe(state())}.` };
          await this.hub.say(server.id, words);
        }
        if (restartAt > clock) await this.wait(restartAt - clock);
        if (state() !== 'online') return { result: 'skipped', message: `Skipped: the server was ${describe(state())}.` };
        notice('restarting the server.');
        await this.power.run(server, 'restart');
        return { result: 'ok', message: 'Restarted the server.' };
      }
      case 'backup': {
        notice('making a backup.');
        const { backupId, finished } = await this.backups.create(server, row.id);
        const outcome = await Promise.race([
          finished,
          this.wait(BACKUP_WAIT_MS).then(() => ({ ok: false, error: 'The backup took too long.' })),
        ]);
        if (!outcome.ok) throw new Error(`The backup failed: ${outcome.error ?? 'unknown error'}`);
        return { result: 'ok', message: `Made backup ${backupId}.` };
      }
    }
  }

  private async record(row: ScheduleRow, outcome: ScheduleOutcome): Promise<void> {
    await this.db.transaction(async (tx) => {
      const updated = await tx
        .update(serverSchedules)
        .set({ lastResult: outcome.result, lastMessage: outcome.message.slice(0, 500) })
        .where(eq(serverSchedules.id, row.id))
        .returning({ id: serverSchedules.id });
      // A skipped run is shown on the schedule only; a run and a failure go in the activity log too.
      if (updated.length === 0 || outcome.result === 'skipped') return;
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
