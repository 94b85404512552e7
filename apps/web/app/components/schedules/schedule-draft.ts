import { scheduleActionLabels, type ScheduleAction, type ScheduleActionKind, type ServerSchedule } from '@spawnpoint/contracts';

/** The schedule form's values: one flat record, whichever action is chosen, so switching keeps what was typed. */
export interface Draft {
  name: string;
  cron: string;
  timeZone: string;
  kind: ScheduleActionKind;
  keep: number;
  warnMinutes: number;
  command: string;
  onlyWhenOnline: boolean;
  enabled: boolean;
}

export const actionKinds = Object.keys(scheduleActionLabels) as ScheduleActionKind[];

/** Ready-made expressions, so nobody has to know cron to say "every night at 4". */
export const presets: { label: string; cron: string }[] = [
  { label: 'Every day at 04:00', cron: '0 4 * * *' },
  { label: 'Every day at 06:00', cron: '0 6 * * *' },
  { label: 'Every 6 hours', cron: '0 */6 * * *' },
  { label: 'Every hour', cron: '0 * * * *' },
  { label: 'Every Monday at 05:00', cron: '0 5 * * 1' },
];

function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function zones(): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return all.includes('UTC') ? all : ['UTC', ...all];
}

/** A run time as the owner reads it: in the schedule's zone, with the zone's name. */
export function inZone(iso: string, timeZone: string): string {
  return new Date(iso).toLocaleString(undefined, {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  });
}

export function describeAction(action: ScheduleAction): string {
  switch (action.kind) {
    case 'backup':
      return `Back up, keeping this schedule's last ${action.keep}`;
    case 'restart':
      return action.warnMinutes > 0 ? `Restart, warning players ${action.warnMinutes} min before` : 'Restart without a warning';
    case 'command':
      return `Run ${action.command}`;
    default:
      return scheduleActionLabels[action.kind];
  }
}

export const emptyDraft = (): Draft => ({
  name: '',
  cron: '0 4 * * *',
  timeZone: browserZone(),
  kind: 'backup',
  keep: 1,
  warnMinutes: 5,
  command: '',
  onlyWhenOnline: false,
  enabled: true,
});

export function draftOf(s: ServerSchedule): Draft {
  const a = s.action;
  return {
    ...emptyDraft(),
    name: s.name,
    cron: s.cron,
    timeZone: s.timeZone,
    kind: a.kind,
    keep: a.kind === 'backup' ? a.keep : 1,
    warnMinutes: a.kind === 'restart' ? a.warnMinutes : 5,
    command: a.kind === 'command' ? a.command : '',
    onlyWhenOnline: s.onlyWhenOnline,
    enabled: s.enabled,
  };
}

function actionOf(d: Draft): ScheduleAction {
  switch (d.kind) {
    case 'backup':
      return { kind: 'backup', keep: d.keep };
    case 'restart':
      return { kind: 'restart', warnMinutes: d.warnMinutes };
    case 'command':
      return { kind: 'command', command: d.command };
    default:
      return { kind: d.kind };
  }
}

/** What the create and update endpoints are sent. */
export const bodyOf = (d: Draft) => ({
  name: d.name,
  cron: d.cron,
  timeZone: d.timeZone,
  action: actionOf(d),
  onlyWhenOnline: d.onlyWhenOnline,
  enabled: d.enabled,
});
