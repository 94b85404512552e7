import { Cron } from 'croner';
import { z } from 'zod';
import { FREE_BACKUP_LIMIT } from './files.ts';

/**
 * Schedules of a server (docs/guide.md, Schedules): a five-field cron expression read in an IANA time zone,
 * and one action. Five fields (minute hour day month weekday) mean a schedule runs at most once a minute;
 * the expression is read by croner (a well-kept parser), the same in the browser (live next runs) and the
 * API.
 */

/** Schedules one server may have. */
export const SCHEDULES_MAX = 20;
/** How long before a scheduled restart the players are warned, at most. */
export const RESTART_WARNING_MAX_MINUTES = 30;
/** Next run times listed with each schedule. */
export const SCHEDULE_NEXT_RUNS = 3;

/** A backup schedule runs at most this often (a backup every minute would only churn the node's disk). */
export const BACKUP_SCHEDULE_MIN_GAP_MINUTES = 60;

export const scheduleMessages = {
  fields: 'Use five fields: minute hour day-of-month month day-of-week (for example 0 4 * * *). A schedule runs at most once a minute.',
  never: 'This schedule would never run. Check the day and month.',
  timeZone: 'Choose a time zone from the list (for example Europe/Berlin).',
  tooMany: `A server can have at most ${SCHEDULES_MAX} schedules. Delete one first.`,
  backupTooOften: `A backup schedule runs at most once an hour (every ${BACKUP_SCHEDULE_MIN_GAP_MINUTES} minutes or less often).`,
  warningTooLong: 'The warning must be shorter than the time between two restarts.',
  controls: 'Use letters, digits, spaces and punctuation only.',
} as const;

/** Control characters (and the Unicode line separators) have no place in a name or a console line. */
/** Control characters and line separators: free text typed by people and shown in a game's chat or console. */
export const CONTROLS = /[\p{Cc}\u2028\u2029]/u;

/** The runtime's own spelling of a zone ("utc" → "UTC"), so the page finds it in its list. */
export function canonicalTimeZone(zone: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return zone;
  }
}

/** Whether the runtime knows the zone (every IANA name Node and browsers ship). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The next `count` run times after `from`, or a message saying what is wrong with the expression. Only
 * five fields are taken: croner would also read a seconds field (six), which could fire every second.
 */
export function nextRuns(cron: string, timeZone: string, count: number, from = new Date()): Date[] | { error: string } {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5 || fields.some((f) => f.startsWith('@'))) return { error: scheduleMessages.fields };
  if (!isTimeZone(timeZone)) return { error: scheduleMessages.timeZone };
  let job: Cron;
  try {
    job = new Cron(fields.join(' '), { timezone: timeZone, paused: true });
  } catch (err) {
    // croner names the field: "Invalid value for minute: 61".
    const detail = err instanceof Error ? err.message.replace(/^CronPattern:\s*/, '') : '';
    return { error: detail ? `${detail}. ${scheduleMessages.fields}` : scheduleMessages.fields };
  }
  const runs = job.nextRuns(count, from);
  return runs.length === 0 ? { error: scheduleMessages.never } : runs;
}

const cronField = z
  .string()
  .trim()
  .max(100, scheduleMessages.fields)
  .transform((s) => s.split(/\s+/).join(' '));

export const scheduleAction = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('backup'),
    /** This schedule's own backups kept (older ones of it go once a new one is complete). */
    keep: z.number().int().min(1).max(FREE_BACKUP_LIMIT),
  }),
  z.object({
    kind: z.literal('restart'),
    /** Players are told in chat this many minutes before (then at 1 minute and 10 seconds). 0: no warning. */
    warnMinutes: z.number().int().min(0).max(RESTART_WARNING_MAX_MINUTES),
  }),
  z.object({
    kind: z.literal('command'),
    command: z
      .string()
      .trim()
      .min(1, 'Write the command to run.')
      .max(256, 'A command is at most 256 characters.')
      .refine((c) => !/[\r\n]/.test(c), 'One line only.')
      .refine((c) => !CONTROLS.test(c), scheduleMessages.controls),
  }),
  z.object({ kind: z.literal('start') }),
  z.object({ kind: z.literal('stop') }),
]);
export type ScheduleAction = z.infer<typeof scheduleAction>;
export type ScheduleActionKind = ScheduleAction['kind'];

export const scheduleActionLabels: Record<ScheduleActionKind, string> = {
  backup: 'Back up',
  restart: 'Restart',
  command: 'Run a console command',
  start: 'Start',
  stop: 'Stop',
};

export const scheduleInput = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, 'Give the schedule a name.')
      .max(40, 'A name is at most 40 characters.')
      .refine((n) => !CONTROLS.test(n), scheduleMessages.controls),
    cron: cronField,
    timeZone: z.string().max(64).refine(isTimeZone, scheduleMessages.timeZone).transform(canonicalTimeZone),
    action: scheduleAction,
    /** Skip the run when the server is not online at that time (a start is never skipped). */
    onlyWhenOnline: z.boolean().default(false),
    enabled: z.boolean().default(true),
  })
  .superRefine((input, ctx) => {
    // An unknown zone is said once, under the zone.
    if (!isTimeZone(input.timeZone)) return;
    const runs = nextRuns(input.cron, input.timeZone, 8);
    if ('error' in runs) return ctx.addIssue({ code: 'custom', path: ['cron'], message: runs.error });
    const gap = shortestGapMs(runs);
    if (input.action.kind === 'backup' && gap < BACKUP_SCHEDULE_MIN_GAP_MINUTES * 60_000)
      ctx.addIssue({ code: 'custom', path: ['cron'], message: scheduleMessages.backupTooOften });
    if (input.action.kind === 'restart' && input.action.warnMinutes * 60_000 >= gap)
      ctx.addIssue({ code: 'custom', path: ['action', 'warnMinutes'], message: scheduleMessages.warningTooLong });
  });

/** The shortest time between two of the runs (Infinity for fewer than two). */
function shortestGapMs(runs: Date[]): number {
  let gap = Infinity;
  for (let i = 1; i < runs.length; i++) gap = Math.min(gap, (runs[i] as Date).getTime() - (runs[i - 1] as Date).getTime());
  return gap;
}
export type ScheduleInput = z.infer<typeof scheduleInput>;

/** `running`: claimed and under way (a restart waiting out its warnings, a backup being made). */
export const scheduleResults = ['ok', 'failed', 'skipped', 'running'] as const;

export const serverSchedule = z.object({
  scheduleId: z.string(),
  name: z.string(),
  cron: z.string(),
  timeZone: z.string(),
  action: scheduleAction,
  onlyWhenOnline: z.boolean(),
  enabled: z.boolean(),
  /** The next times it runs (a restart's warnings start before them); empty when disabled. */
  nextRuns: z.array(z.string()),
  lastRun: z
    .object({
      at: z.string(),
      result: z.enum(scheduleResults),
      message: z.string(),
    })
    .nullable(),
});
export type ServerSchedule = z.infer<typeof serverSchedule>;

export const serverSchedulesResult = z.object({ schedules: z.array(serverSchedule) });
export const scheduleParams = z.object({ serverId: z.string().min(1), scheduleId: z.string().min(1) });

/** How long until a restart, as players read it in chat: "5 minutes", "1 minute", "10 seconds". */
export function timeLeftWords(seconds: number): string {
  if (seconds >= 60) {
    const minutes = Math.round(seconds / 60);
    return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  }
  const whole = Math.max(1, Math.round(seconds));
  return `${whole} second${whole === 1 ? '' : 's'}`;
}

/** The chat warnings before a restart, as [seconds before, words]: at the chosen minutes, 1 minute, 10 s. */
export function restartWarnings(warnMinutes: number): [number, string][] {
  if (warnMinutes <= 0) return [];
  const marks = [warnMinutes * 60, 60, 10].filter((s, i, all) => s <= warnMinutes * 60 && all.indexOf(s) === i);
  return marks.map((s) => [s, `The server restarts in ${timeLeftWords(s)}.`]);
}
