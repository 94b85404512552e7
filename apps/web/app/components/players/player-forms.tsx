import { playerName, playerReason } from '@spawnpoint/contracts';
import { useState, type FormEvent } from 'react';
import { ApiFailure } from '../../lib/api.ts';
import { useSending } from '../../lib/use-sending.ts';
import { Button } from '../button.tsx';

const input = 'block w-full min-w-0 rounded-md border border-slate-300 px-3 py-2';

/** A name checked with the same rule as the API before it is sent. */
function checkName(value: string): { name: string } | { error: string } {
  const parsed = playerName.safeParse(value);
  return parsed.success ? { name: parsed.data } : { error: parsed.error.issues[0]?.message ?? 'Invalid name.' };
}

/** One name to add to a list (operators, whitelist), checked as the API checks it before it is sent. */
export function AddForm({
  id,
  label,
  submit,
  disabled,
  onAdd,
}: {
  id: string;
  label: string;
  submit: string;
  disabled: boolean;
  onAdd: (name: string) => Promise<void>;
}) {
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const { sending, send } = useSending();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const checked = checkName(value);
    if ('error' in checked) return setError(checked.error);
    void send(async () => {
      try {
        await onAdd(checked.name);
        setValue('');
        setError('');
      } catch (err) {
        if (err instanceof ApiFailure) setError(err.fields.name ?? '');
      }
    });
  };
  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-wrap items-start gap-2">
      <div className="min-w-0 flex-1 basis-48">
        <label htmlFor={`add-${id}`} className="sr-only">
          {label}
        </label>
        <input
          id={`add-${id}`}
          className={input}
          placeholder={label}
          value={value}
          maxLength={16}
          autoComplete="off"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `add-${id}-error` : undefined}
          onChange={(e) => setValue(e.target.value)}
        />
        {error ? (
          <p id={`add-${id}-error`} className="mt-1 text-sm text-red-600">
            {error}
          </p>
        ) : null}
      </div>
      <Button type="submit" busy={sending} disabled={disabled}>
        {submit}
      </Button>
    </form>
  );
}

/** A name and an optional reason to ban it for. */
export function BanForm({ disabled, onBan }: { disabled: boolean; onBan: (name: string, reason: string | undefined) => Promise<void> }) {
  const [name, setName] = useState('');
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const { sending, send } = useSending();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const checked = checkName(name);
    const why = playerReason.safeParse(reason);
    const found: Record<string, string> = {};
    if ('error' in checked) found.name = checked.error;
    if (!why.success) found.reason = why.error.issues[0]?.message ?? 'Invalid reason.';
    setErrors(found);
    if ('error' in checked || !why.success) return;
    void send(async () => {
      try {
        await onBan(checked.name, why.data || undefined);
        setName('');
        setReason('');
      } catch (err) {
        if (err instanceof ApiFailure) setErrors(err.fields);
      }
    });
  };
  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-wrap items-start gap-2">
      <div className="min-w-0 flex-1 basis-40">
        <label htmlFor="ban-name" className="sr-only">
          Player name
        </label>
        <input
          id="ban-name"
          className={input}
          placeholder="Player name"
          value={name}
          maxLength={16}
          autoComplete="off"
          aria-invalid={errors.name ? true : undefined}
          onChange={(e) => setName(e.target.value)}
        />
        {errors.name ? <p className="mt-1 text-sm text-red-600">{errors.name}</p> : null}
      </div>
      <div className="min-w-0 flex-[2] basis-56">
        <label htmlFor="ban-reason" className="sr-only">
          Reason (optional)
        </label>
        <input
          id="ban-reason"
          className={input}
          placeholder="Reason (optional)"
          value={reason}
          maxLength={100}
          aria-invalid={errors.reason ? true : undefined}
          onChange={(e) => setReason(e.target.value)}
        />
        {errors.reason ? <p className="mt-1 text-sm text-red-600">{errors.reason}</p> : null}
      </div>
      <Button type="submit" variant="danger" busy={sending} disabled={disabled}>
        Ban
      </Button>
    </form>
  );
}
