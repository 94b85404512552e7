import {
  endpoints,
  FREE_BACKUP_LIMIT,
  nextRuns,
  RESTART_WARNING_MAX_MINUTES,
  scheduleActionLabels,
  SCHEDULE_NEXT_RUNS,
  type ScheduleActionKind,
  type ServerSchedule,
} from '@spawnpoint/contracts';
import { useEffect, useMemo, useState } from 'react';
import { ApiFailure, call } from '../../lib/api.ts';
import { notify } from '../../lib/toasts.ts';
import { useSending } from '../../lib/use-sending.ts';
import { Button } from '../button.tsx';
import { CARD_CLASS } from '../styles.ts';
import { Field, FormError, SelectField } from '../field.tsx';
import { actionKinds, bodyOf, draftOf, emptyDraft, inZone, presets, zones, type Draft } from './schedule-draft.ts';

/** The fields the form shows an error under; any other is said above its buttons. */
const shownFields = ['name', 'cron', 'timeZone', 'action.command', 'action.warnMinutes'];

/** A part of the form: the draft, a setter for one of its values, and the API's field messages. */
interface PartProps {
  draft: Draft;
  set: <K extends keyof Draft>(key: K, value: Draft[K]) => void;
  errors: Record<string, string>;
}

/** Adds a schedule, or changes `editing`; `onDone` after a save or Cancel. */
export function ScheduleForm({
  serverId,
  editing,
  onDone,
}: {
  serverId: string;
  editing: ServerSchedule | null;
  onDone: () => Promise<void>;
}) {
  const [draft, setDraft] = useState<Draft>(() => (editing ? draftOf(editing) : emptyDraft()));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>();
  const { sending, send } = useSending();
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  // Change opens the form at the top of the page: it comes into view with the name field focused.
  useEffect(() => {
    if (!editing) return;
    const name = document.getElementById('schedule-name');
    name?.scrollIntoView({ block: 'center' });
    name?.focus();
  }, [editing]);

  const save = async () => {
    setErrors({});
    setFormError(undefined);
    try {
      if (editing) await call(endpoints.scheduleUpdate, { params: { serverId, scheduleId: editing.scheduleId }, body: bodyOf(draft) });
      else await call(endpoints.scheduleCreate, { params: { serverId }, body: bodyOf(draft) });
      const next = nextRuns(draft.cron, draft.timeZone, 1);
      notify(
        'success',
        editing ? 'Schedule saved' : 'Schedule added',
        `${draft.name} runs next ${'error' in next ? '' : inZone(next[0]?.toISOString() ?? '', draft.timeZone)}.`,
      );
      if (!editing) setDraft(emptyDraft());
      await onDone();
    } catch (failure) {
      if (!(failure instanceof ApiFailure)) return;
      setErrors(failure.fields);
      // A field this form has no place for (or none at all): said above the buttons.
      const elsewhere = Object.entries(failure.fields).find(([key]) => !shownFields.includes(key));
      if (Object.keys(failure.fields).length === 0) setFormError(failure.message);
      else if (elsewhere) setFormError(elsewhere[1]);
    }
  };

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void send(save);
      }}
      noValidate
      aria-labelledby="schedule-form-heading"
      className={CARD_CLASS}
    >
      <h2 id="schedule-form-heading" className="text-lg font-semibold">
        {editing ? `Change ${editing.name}` : 'Add a schedule'}
      </h2>
      <p className="mt-1 text-sm text-slate-600">Times are read in the time zone you choose. A schedule runs at most once a minute.</p>
      <ActionFields draft={draft} set={set} errors={errors} />
      <WhenFields draft={draft} set={set} errors={errors} />
      <OptionFields draft={draft} set={set} editing={editing !== null} />
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

/** The name, the action and what that action needs (backups to keep, a warning, a command). */
function ActionFields({ draft, set, errors }: PartProps) {
  return (
    <div className="mt-4 grid gap-4 sm:grid-cols-2">
      <Field
        id="schedule-name"
        label="Name"
        value={draft.name}
        maxLength={40}
        onChange={(e) => set('name', e.target.value)}
        error={errors.name}
      />
      <SelectField
        id="schedule-action"
        label="Action"
        value={draft.kind}
        onChange={(e) => set('kind', e.target.value as ScheduleActionKind)}
      >
        {actionKinds.map((k) => (
          <option key={k} value={k}>
            {scheduleActionLabels[k]}
          </option>
        ))}
      </SelectField>
      {draft.kind === 'backup' ? (
        <SelectField
          id="schedule-keep"
          label="Backups of this schedule to keep"
          value={draft.keep}
          onChange={(e) => set('keep', Number(e.target.value))}
          hint={`Older ones of this schedule go once a new one is made. Locked backups always stay; beyond the plan's ${FREE_BACKUP_LIMIT} backups in all, the oldest unlocked one goes, whichever made it.`}
        >
          {Array.from({ length: FREE_BACKUP_LIMIT }, (_, i) => i + 1).map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </SelectField>
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
  );
}

/** When it runs: a ready-made expression or one's own, the time zone, and the next runs while typing. */
function WhenFields({ draft, set, errors }: PartProps) {
  const zoneList = useMemo(zones, []);
  // The same parser as the API's, so the times shown while typing are the times it will run.
  const preview = useMemo(() => nextRuns(draft.cron, draft.timeZone, SCHEDULE_NEXT_RUNS), [draft.cron, draft.timeZone]);
  return (
    <fieldset className="mt-4 grid gap-4 sm:grid-cols-2">
      <legend className="sr-only">When</legend>
      <SelectField
        id="schedule-preset"
        label="Often used"
        value={presets.find((p) => p.cron === draft.cron)?.cron ?? ''}
        onChange={(e) => e.target.value && set('cron', e.target.value)}
      >
        <option value="">Custom expression</option>
        {presets.map((p) => (
          <option key={p.cron} value={p.cron}>
            {p.label}
          </option>
        ))}
      </SelectField>
      <Field
        id="schedule-cron"
        label="Cron expression (minute hour day month weekday)"
        value={draft.cron}
        spellCheck={false}
        autoComplete="off"
        onChange={(e) => set('cron', e.target.value)}
        error={errors.cron}
      />
      <SelectField
        id="schedule-zone"
        label="Time zone"
        value={draft.timeZone}
        onChange={(e) => set('timeZone', e.target.value)}
        error={errors.timeZone}
      >
        {(zoneList.includes(draft.timeZone) ? zoneList : [draft.timeZone, ...zoneList]).map((z) => (
          <option key={z} value={z}>
            {z}
          </option>
        ))}
      </SelectField>
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
  );
}

/** Only when online (not for Start, which is for a server that is not), and Enabled when changing one. */
function OptionFields({ draft, set, editing }: Omit<PartProps, 'errors'> & { editing: boolean }) {
  return (
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
  );
}
