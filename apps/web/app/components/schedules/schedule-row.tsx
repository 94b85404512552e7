import { endpoints, type ServerSchedule } from '@spawnpoint/contracts';
import { call } from '../../lib/api.ts';
import { openDialog } from '../../lib/dialogs.ts';
import { relativeTime } from '../../lib/relative-time.ts';
import { notify } from '../../lib/toasts.ts';
import { useSending } from '../../lib/use-sending.ts';
import { Button } from '../button.tsx';
import { describeAction, inZone } from './schedule-draft.ts';

const resultStyle = { ok: 'text-emerald-700', failed: 'text-red-700', skipped: 'text-slate-600', running: 'text-sky-700' } as const;
const resultWord = { ok: 'Ran', failed: 'Failed', skipped: 'Skipped', running: 'Running' } as const;

/** One schedule in the list: what it does and when, how its last run went, and Change, Pause/Resume, Delete. */
export function ScheduleRow({
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
