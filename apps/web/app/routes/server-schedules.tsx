import {
  endpoints,
  FREE_BACKUP_LIMIT,
  nextRuns,
  RESTART_WARNING_MAX_MINUTES,
  scheduleActionLabels,
  SCHEDULE_NEXT_RUNS,
  type ScheduleAction,
  type ScheduleActionKind,
  type ServerSchedule,
} from '@spawnpoint/contracts';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { Field, FormError } from '../components/field.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { ApiFailure, call } from '../lib/api.ts';
import { openDialog } from '../lib/dialogs.ts';
import { pageMeta } from '../lib/meta.ts';
import { relativeTime } from '../lib/relative-time.ts';
import { notify } from '../lib/toasts.ts';
import { useSending } from '../lib/use-sending.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-schedules', 'Back up, restart or run commands on your Minecraft server on a schedule.');

const select = 'mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-2 text-sm';
/** The fields the form shows an error under; any other is said above its buttons. */
const shownFields = ['name', 'cron', 'timeZone', 'action.command', 'action.warnMinutes'];
const kinds = Object.keys(scheduleActionLabels) as ScheduleActionKind[];

/** Ready-made expressions, so nobody has to know cron to say "every night at 4". */
const presets: { label: string; cron: string }[] = [
  { label: 'Every day at 04:00', cron: '0 4 * * *' },
  { label: 'Every day at 06:00', cron: '0 6 * * *' },
  { label: 'Every 6 hours', cron: '0 */6 * * *' },
  { label: 'Every hour', cron: '0 * * * *' },
  { label: 'Every Monday at 05:00', cron: '0 5 * * 1' },
];

function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

function zones(): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return all.includes('UTC') ? all : ['UTC', ...all];
}

/** A run time as the owner reads it: in the schedule's zone, with the zone's name. */
function inZone(iso: string, timeZone: string): string {
  return new Date(iso).toLocaleString(undefined, {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  });
}

function describeAction(action: ScheduleAction): string {
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

interface Draft {
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

const emptyDraft = (): Draft => ({
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

function draftOf(s: ServerSchedule): Draft {
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

const bodyOf = (d: Draft) => ({
  name: d.name,
  cron: d.cron,
  timeZone: d.timeZone,
  action: actionOf(d),
  onlyWhenOnline: d.onlyWhenOnline,
  enabled: d.enabled,
});

export default function ServerSchedulesPage() {
  const { id = '' } = useParams();
  return <SchedulesPage key={id} id={id} />;
}

function SchedulesPage({ id }: { id: string }) {
  const load = useServer(id);
  const mayManage = load.status === 'ready' && load.server.permissions.includes('schedules.manage');
  const [schedules, setSchedules] = useState<ServerSchedule[] | null>(null);
  const [failed, setFailed] = useState(false);
  const [editing, setEditing] = useState<ServerSchedule | null>(null);

  const reload = useCallback(async () => {
    try {
      setSchedules((await call(endpoints.schedules, { params: { serverId: id } })).schedules);
      setFailed(false);
    } catch {
      setFailed(true);
    }
  }, [id]);

  useEffect(() => {
    if (mayManage) void reload();
  }, [mayManage, reload]);

  return (
    <ServerShell serverId={id} load={load}>
      {load.status === 'ready' && !mayManage ? (
        <p className="rounded-xl border border-slate-200 bg-white p-6 text-slate-600">
          Only the owner and administrators manage schedules.
        </p>
      ) : (
        <div className="grid max-w-3xl gap-6">
          <ScheduleForm
            key={editing?.scheduleId ?? 'new'}
            serverId={id}
            editing={editing}
            onDone={async () => {
              setEditing(null);
              await reload();
            }}
          />
          <section aria-labelledby="schedules-heading" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-6">
            <h2 id="schedules-heading" className="text-lg font-semibold">
              Schedules
            </h2>
            {failed ? (
              <p className="mt-3 text-sm text-red-700" role="alert">
                The schedules could not be loaded. Please reload the page.
              </p>
            ) : !schedules ? (
              <p className="mt-3 text-sm text-slate-600" role="status">
                Loading schedules…
              </p>
            ) : schedules.length === 0 ? (
              <p className="mt-3 rounded-lg bg-slate-50 p-4 text-sm text-slate-600" data-testid="schedules-empty">
                No schedules yet. Add one above: a nightly backup and a daily restart keep most servers healthy.
              </p>
            ) : (
              <ul className="mt-3 divide-y divide-slate-100" data-testid="schedules">
                {schedules.map((s) => (
                  <ScheduleRow key={s.scheduleId} serverId={id} schedule={s} onEdit={() => setEditing(s)} onChanged={reload} />
                ))}
              </ul>
            )}
          </section>
        </div>
      )}
    </ServerShell>
  );
}

function ScheduleForm({ serverId, editing, onDone }: { serverId: string; editing: ServerSchedule | null; onDone: () => Promise<void> }) {
  const [draft, setDraft] = useState<Draft>(() => (editing ? draftOf(editing) : emptyDraft()));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>();
  const { sending, send } = useSending();
  const zoneList = useMemo(zones, []);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  // The same parser as the API's, so the times shown while typing are the times it will run.
  const preview = useMemo(() => nextRuns(draft.cron, draft.timeZone, SCHEDULE_NEXT_RUNS), [draft.cron, draft.timeZone]);
  // Change opens the form at the top of the page: it comes into view with the name field focused.
  useEffect(() => {
    if (!editing) return;
    const name = document.getElementById('schedule-name');
    name?.scrollIntoView({ block: 'center' });
    name?.focus();
  }, [editing]);

  function submit(event: React.FormEvent) {
    event.preventDefault();
    void send(async () => {
      setErrors({});
      setFormError(undefined);
      try {
        if (editing) await call(endpoints.scheduleUpdate, { params: { serverId, scheduleId: editing.scheduleId }, body: bodyOf(draft) });
        else await call(endpoints.scheduleCreate, { params: { serverId }, body: bodyOf(draft) });
        notify(
          'success',
          editing ? 'Schedule saved' : 'Schedule added',
          `${draft.name} runs next ${'error' in preview ? '' : inZone(preview[0]?.toISOString() ?? '', draft.timeZone)}.`,
        );
        if (!editing) setDraft(emptyDraft());
        await onDone();
      } catch (failure) {
        if (failure instanceof ApiFailure) {
          setErrors(failure.fields);
          // A field this form has no place for (or none at all): said above the buttons.
          const elsewhere = Object.entries(failure.fields).find(([key]) => !shownFields.includes(key));
          if (Object.keys(failure.fields).length === 0) setFormError(failure.message);
          else if (elsewhere) setFormError(elsewhere[1]);
        }
      }
    });
  }

  const heading = editing ? `Change ${editing.name}` : 'Add a schedule';
  return (
    <form
      onSubmit={submit}
      noValidate
      aria-labelledby="schedule-form-heading"
      className="rounded-xl border border-slate-200 bg-white p-4 sm:p-6"
    >
      <h2 id="schedule-form-heading" className="text-lg font-semibold">
        {heading}
      </h2>
      <p className="mt-1 text-sm text-slate-600">Times are read in the time zone you choose. A schedule runs at most once a minute.</p>
      <div className="mt-4 grid gap-4 sm:grid-cols-2">
        <Field
          id="schedule-name"
          label="Name"
          value={draft.name}
          maxLength={40}
          onChange={(e) => set('name', e.target.value)}
          error={errors.name}
        />
        <div>
          <label htmlFor="schedule-action" className="block text-sm font-medium text-slate-700">
            Action
          </label>
          <select
            id="schedule-action"
            className={select}
            value={draft.kind}
            onChange={(e) => set('kind', e.target.value as ScheduleActionKind)}
          >
            {kinds.map((k) => (
              <option key={k} value={k}>
                {scheduleActionLabels[k]}
              </option>
            ))}
          </select>
        </div>
        {draft.kind === 'backup' ? (
          <div>
            <label htmlFor="schedule-keep" className="block text-sm font-medium text-slate-700">
              Backups of this schedule to keep
            </label>
            <select id="schedule-keep" className={select} value={draft.keep} onChange={(e) => set('keep', Number(e.target.value))}>
              {Array.from({ length: FREE_BACKUP_LIMIT }, (_, i) => i + 1).map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
            <p className="mt-1 text-xs text-slate-500">
              Older ones of this schedule go once a new one is made. Locked backups always stay; beyond the plan&apos;s {FREE_BACKUP_LIMIT}{' '}
              backups in all, the oldest unlocked one goes, whichever made it.
            </p>
          </div>
        ) : null}
        {draft.kind === 'restart' ? (
          <Field
            id="schedule-warn"
            label="Warn players in chat, minutes before"
            type="number"
            min={0}
            max={RESTART_WARNING_MAX_MINUTES}
            value={draft.warnMinutes}
            onChange={(e) => set('warnMinutes', Number(e.target.value))}
            error={errors['action.warnMinutes']}
          />
        ) : null}
        {draft.kind === 'command' ? (
          <Field
            id="schedule-command"
            label="Console command"
            placeholder="say Remember to vote!"
            maxLength={256}
            value={draft.command}
            onChange={(e) => set('command', e.target.value)}
            error={errors['action.command']}
          />
        ) : null}
      </div>
      <fieldset className="mt-4 grid gap-4 sm:grid-cols-2">
        <legend className="sr-only">When</legend>
        <div>
          <label htmlFor="schedule-preset" className="block text-sm font-medium text-slate-700">
            Often used
          </label>
          <select
            id="schedule-preset"
            className={select}
            value={presets.find((p) => p.cron === draft.cron)?.cron ?? ''}
            onChange={(e) => e.target.value && set('cron', e.target.value)}
          >
            <option value="">Custom expression</option>
            {presets.map((p) => (
              <option key={p.cron} value={p.cron}>
                {p.label}
              </option>
            ))}
          </select>
        </div>
        <Field
          id="schedule-cron"
          label="Cron expression (minute hour day month weekday)"
          value={draft.cron}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => set('cron', e.target.value)}
          error={errors.cron}
        />
        <div>
          <label htmlFor="schedule-zone" className="block text-sm font-medium text-slate-700">
            Time zone
          </label>
          <select id="schedule-zone" className={select} value={draft.timeZone} onChange={(e) => set('timeZone', e.target.value)}>
            {(zoneList.includes(draft.timeZone) ? zoneList : [draft.timeZone, ...zoneList]).map((z) => (
              <option key={z} value={z}>
                {z}
              </option>
            ))}
          </select>
          {errors.timeZone ? (
            <p role="alert" className="mt-1 text-sm text-red-600">
              {errors.timeZone}
            </p>
          ) : null}
        </div>
        <div className="text-sm" aria-live="polite" data-testid="schedule-preview">
          <p className="font-medium text-slate-700">Next runs</p>
          {'error' in preview ? (
            <p className="mt-1 text-red-700">{preview.error}</p>
          ) : (
            <ul className="mt-1 text-slate-600">
              {preview.map((d) => (
                <li key={d.toISOString()}>{inZone(d.toISOString(), draft.timeZone)}</li>
              ))}
            </ul>
          )}
        </div>
      </fieldset>
      <div className="mt-4 grid gap-2 text-sm">
        {draft.kind !== 'start' ? (
          <label className="flex items-start gap-2">
            <input
              type="checkbox"
              className="mt-1"
              checked={draft.onlyWhenOnline}
              onChange={(e) => set('onlyWhenOnline', e.target.checked)}
            />
            <span>Only when the server is online (skipped otherwise, for example while it sleeps)</span>
          </label>
        ) : null}
        {editing ? (
          <label className="flex items-start gap-2">
            <input type="checkbox" className="mt-1" checked={draft.enabled} onChange={(e) => set('enabled', e.target.checked)} />
            <span>Enabled</span>
          </label>
        ) : null}
      </div>
      <div className="mt-4">
        <FormError message={formError} />
      </div>
      <div className="mt-4 flex flex-wrap gap-2">
        <Button type="submit" disabled={sending}>
          {editing ? 'Save changes' : 'Add schedule'}
        </Button>
        {editing ? (
          <Button type="button" variant="secondary" onClick={() => void onDone()}>
            Cancel
          </Button>
        ) : null}
      </div>
    </form>
  );
}

const resultStyle = { ok: 'text-emerald-700', failed: 'text-red-700', skipped: 'text-slate-600', running: 'text-sky-700' } as const;
const resultWord = { ok: 'Ran', failed: 'Failed', skipped: 'Skipped', running: 'Running' } as const;

function ScheduleRow({
  serverId,
  schedule: s,
  onEdit,
  onChanged,
}: {
  serverId: string;
  schedule: ServerSchedule;
  onEdit: () => void;
  onChanged: () => Promise<void>;
}) {
  const { sending, send } = useSending();
  // A refusal is shown as a toast by the call; nothing else to do with it here.
  const toggle = () =>
    void send(async () => {
      await call(endpoints.scheduleUpdate, {
        params: { serverId, scheduleId: s.scheduleId },
        body: { name: s.name, cron: s.cron, timeZone: s.timeZone, action: s.action, onlyWhenOnline: s.onlyWhenOnline, enabled: !s.enabled },
      });
      notify('success', s.enabled ? 'Schedule paused' : 'Schedule resumed', s.name);
      await onChanged();
    }).catch(() => undefined);
  const remove = () =>
    openDialog('confirm', {
      title: `Delete ${s.name}?`,
      message: 'It will not run again. Backups it made stay.',
      confirmLabel: 'Delete',
      danger: true,
      onConfirm: async () => {
        await call(endpoints.scheduleDelete, { params: { serverId, scheduleId: s.scheduleId } });
        notify('success', 'Schedule deleted', s.name);
        await onChanged();
      },
    });
  return (
    <li className="grid gap-1 py-3 text-sm" data-testid="schedule">
      <div className="flex flex-wrap items-baseline justify-between gap-x-3">
        <span className="min-w-0 font-medium break-words text-slate-900">{s.name}</span>
        <code className="text-xs text-slate-500">
          {s.cron} · {s.timeZone}
        </code>
      </div>
      <span className="break-all text-slate-700">
        {describeAction(s.action)}
        {s.onlyWhenOnline && s.action.kind !== 'start' ? ', only when online' : ''}
      </span>
      <span className="text-slate-600">
        {s.enabled ? (s.nextRuns[0] ? `Next: ${inZone(s.nextRuns[0], s.timeZone)}` : 'No next run') : 'Paused'}
      </span>
      {s.lastRun ? (
        <span className={`break-words ${resultStyle[s.lastRun.result]}`}>
          {s.lastRun.result === 'running'
            ? `Running now (the run of ${inZone(s.lastRun.at, s.timeZone)})`
            : `${resultWord[s.lastRun.result]} ${relativeTime(s.lastRun.at)}: ${s.lastRun.message}`}
        </span>
      ) : (
        <span className="text-slate-500">Has not run yet.</span>
      )}
      <div className="mt-1 flex flex-wrap gap-2">
        <Button variant="secondary" onClick={onEdit} aria-label={`Change ${s.name}`}>
          Change
        </Button>
        <Button variant="secondary" onClick={toggle} disabled={sending} aria-label={`${s.enabled ? 'Pause' : 'Resume'} ${s.name}`}>
          {s.enabled ? 'Pause' : 'Resume'}
        </Button>
        <Button variant="danger" onClick={remove} aria-label={`Delete ${s.name}`}>
          Delete
        </Button>
      </div>
    </li>
  );
}
