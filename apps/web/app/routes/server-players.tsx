import { endpoints, playerName, playerReason, type PlayerActionRequest, type ServerPlayers } from '@spawnpoint/contracts';
import { useCallback, useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { useParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { PlayerHead } from '../components/player-head.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { ApiFailure, call } from '../lib/api.ts';
import { openDialog } from '../lib/dialogs.ts';
import { pageMeta } from '../lib/meta.ts';
import { notify } from '../lib/toasts.ts';
import { useSending } from '../lib/use-sending.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-players', 'Players, operators, whitelist and bans of your Minecraft server.');

// The online list comes from the game every few seconds.
const REFRESH_MS = 5000;
const input = 'block w-full min-w-0 rounded-md border border-slate-300 px-3 py-2';

/** What a change did, in the words of the toast. */
function doneMessage(change: PlayerActionRequest): string {
  switch (change.action) {
    case 'kick':
      return `${change.name} was kicked.`;
    case 'op':
      return `${change.name} is now an operator.`;
    case 'deop':
      return `${change.name} is no longer an operator.`;
    case 'whitelist-add':
      return `${change.name} was added to the whitelist.`;
    case 'whitelist-remove':
      return `${change.name} was removed from the whitelist.`;
    case 'ban':
      return `${change.name} was banned.`;
    case 'pardon':
      return `${change.name} was unbanned.`;
    case 'whitelist':
      return `The whitelist is now ${change.enabled ? 'on' : 'off'}.`;
  }
}

export default function ServerPlayersPage() {
  const { id = '' } = useParams();
  const load = useServer(id);
  const [players, setPlayers] = useState<ServerPlayers | null>(null);
  const state = load.status === 'ready' ? load.state : null;

  const refresh = useCallback(
    (background: boolean) => call(endpoints.serverPlayers, { params: { serverId: id } }, { background }).then(setPlayers, () => undefined),
    [id],
  );
  useEffect(() => {
    if (load.status !== 'ready') return;
    void refresh(false);
    const timer = setInterval(() => void refresh(true), REFRESH_MS);
    return () => clearInterval(timer);
    // The state is in the list so a start or stop shows at once (the lists say how changes apply).
  }, [load.status, state, refresh]);

  /** Sends one change; the answer is the lists as they are after it. */
  const change = async (request: PlayerActionRequest) => {
    setPlayers(await call(endpoints.serverPlayersUpdate, { params: { serverId: id }, body: request }));
    notify('success', doneMessage(request));
  };

  // A sleeping server is stopped too: its files are edited as an offline server's.
  const stopped = state === 'offline' || state === 'sleeping';
  const canChange = state === 'online' || stopped;
  return (
    <ServerShell serverId={id} load={load}>
      {!players ? (
        <p role="status">Loading…</p>
      ) : (
        <div className="space-y-6">
          <p className="text-sm text-slate-600" role="status">
            {state === 'online'
              ? 'The server is running: changes apply at once, through its console.'
              : stopped
                ? 'The server is stopped: changes are saved to its files (ops.json, whitelist.json, banned-players.json) and apply when it starts.'
                : 'Changes can be made once the server is running or stopped.'}
          </p>
          {players.problems.length ? (
            <div className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900" role="alert">
              <p className="font-medium">Some entries of the player files could not be read and are left out:</p>
              <ul className="mt-1 list-disc pl-5 break-words">
                {players.problems.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            </div>
          ) : null}

          <Section title={`Online (${players.online.length})`}>
            {players.online.length === 0 ? (
              <Empty>{state === 'online' ? 'Nobody is online.' : 'Nobody is online: the server is not running.'}</Empty>
            ) : (
              <PlayerRows
                names={players.online.map((name) => ({ name }))}
                action={(p) => (
                  <Button
                    variant="secondary"
                    aria-label={`Kick ${p.name}`}
                    disabled={state !== 'online'}
                    onClick={() =>
                      openDialog('input', {
                        title: `Kick ${p.name}?`,
                        message: 'They are disconnected and can join again.',
                        label: 'Reason (optional)',
                        onContinue: (reason) => change({ action: 'kick', name: p.name, reason: reason.trim() || undefined }),
                      })
                    }
                  >
                    Kick
                  </Button>
                )}
              />
            )}
          </Section>

          <Section title="Operators" description="Operators may use every command in the game.">
            <AddForm
              id="op"
              label="Player name"
              submit="Make operator"
              disabled={!canChange}
              onAdd={(name) => change({ action: 'op', name })}
            />
            <PlayerRows
              names={players.operators}
              empty="No operators."
              action={(p) => (
                <Button
                  variant="secondary"
                  aria-label={`Remove ${p.name} from the operators`}
                  disabled={!canChange}
                  onClick={() => change({ action: 'deop', name: p.name })}
                >
                  Remove
                </Button>
              )}
            />
          </Section>

          <Section title="Whitelist" description="When it is on, only players on it (and operators) can join.">
            <WhitelistSwitch
              enabled={players.whitelistEnabled}
              disabled={!canChange}
              onChange={(enabled) => change({ action: 'whitelist', enabled })}
            />
            <AddForm
              id="whitelist"
              label="Player name"
              submit="Add to whitelist"
              disabled={!canChange}
              onAdd={(name) => change({ action: 'whitelist-add', name })}
            />
            <PlayerRows
              names={players.whitelist}
              empty="Nobody is on the whitelist."
              action={(p) => (
                <Button
                  variant="secondary"
                  aria-label={`Remove ${p.name} from the whitelist`}
                  disabled={!canChange}
                  onClick={() => change({ action: 'whitelist-remove', name: p.name })}
                >
                  Remove
                </Button>
              )}
            />
          </Section>

          <Section title="Bans" description="A banned player is refused at login with the reason, and kicked if online.">
            <BanForm disabled={!canChange} onBan={(name, reason) => change({ action: 'ban', name, reason })} />
            <PlayerRows
              names={players.bans}
              empty="Nobody is banned."
              detail={(p) => {
                const ban = players.bans.find((b) => b.name === p.name);
                return ban ? `${ban.reason}${ban.created ? ` · ${ban.created.slice(0, 10)}` : ''}` : null;
              }}
              action={(p) => (
                <Button
                  variant="secondary"
                  aria-label={`Unban ${p.name}`}
                  disabled={!canChange}
                  onClick={() => change({ action: 'pardon', name: p.name })}
                >
                  Unban
                </Button>
              )}
            />
          </Section>
        </div>
      )}
    </ServerShell>
  );
}

function Section({ title, description, children }: { title: string; description?: string; children: ReactNode }) {
  return (
    <section className="rounded-xl border border-slate-200 bg-white p-4 sm:p-6" aria-label={title}>
      <h2 className="text-lg font-semibold">{title}</h2>
      {description ? <p className="mt-1 text-sm text-slate-600">{description}</p> : null}
      <div className="mt-4 space-y-4">{children}</div>
    </section>
  );
}

function Empty({ children }: { children: ReactNode }) {
  return <p className="text-sm text-slate-500">{children}</p>;
}

function PlayerRows({
  names,
  empty,
  detail,
  action,
}: {
  names: { name: string; uuid?: string }[];
  empty?: string;
  detail?: (p: { name: string }) => string | null;
  action: (p: { name: string }) => ReactNode;
}) {
  if (names.length === 0) return empty ? <Empty>{empty}</Empty> : null;
  return (
    <ul className="divide-y divide-slate-100">
      {names.map((p) => (
        <li key={p.name} className="flex flex-wrap items-center gap-3 py-2">
          <PlayerHead name={p.name} {...(p.uuid ? { uuid: p.uuid } : {})} size={28} />
          <div className="min-w-0 flex-1">
            <p className="truncate font-medium">{p.name}</p>
            {detail?.(p) ? <p className="text-sm break-words text-slate-500">{detail(p)}</p> : null}
          </div>
          {action(p)}
        </li>
      ))}
    </ul>
  );
}

/** A name checked with the same rule as the API before it is sent. */
function checkName(value: string): { name: string } | { error: string } {
  const parsed = playerName.safeParse(value);
  return parsed.success ? { name: parsed.data } : { error: parsed.error.issues[0]?.message ?? 'Invalid name.' };
}

function AddForm({
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

function BanForm({ disabled, onBan }: { disabled: boolean; onBan: (name: string, reason: string | undefined) => Promise<void> }) {
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

function WhitelistSwitch({
  enabled,
  disabled,
  onChange,
}: {
  enabled: boolean;
  disabled: boolean;
  onChange: (enabled: boolean) => Promise<void>;
}) {
  const { sending, send } = useSending();
  return (
    <div className="flex flex-wrap items-center gap-3">
      <button
        type="button"
        role="switch"
        aria-checked={enabled}
        aria-labelledby="whitelist-switch-label"
        disabled={disabled || sending}
        aria-busy={sending || undefined}
        onClick={() => void send(() => onChange(!enabled)).catch(() => undefined)}
        className={`relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-50 ${enabled ? 'bg-brand-600' : 'bg-slate-300'}`}
      >
        <span className={`inline-block size-5 rounded-full bg-white shadow transition ${enabled ? 'translate-x-5' : 'translate-x-0.5'}`} />
      </button>
      <span id="whitelist-switch-label" className="text-sm font-medium text-slate-700">
        Whitelist {enabled ? 'on' : 'off'}
      </span>
    </div>
  );
}
