import type { ReactNode } from 'react';
import { useSending } from '../../lib/use-sending.ts';
import { CARD_CLASS } from '../styles.ts';
import { PlayerHead } from '../player-head.tsx';

/** A card of the players page: a heading, what it is for, and its lists and forms. */
export function Section({ title, description, children }: { title: string; description?: string; children: ReactNode }) {
  return (
    <section className={CARD_CLASS} aria-label={title}>
      <h2 className="text-lg font-semibold">{title}</h2>
      {description ? <p className="mt-1 text-sm text-slate-600">{description}</p> : null}
      <div className="mt-4 space-y-4">{children}</div>
    </section>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="text-sm text-slate-500">{children}</p>;
}

/** Players with their heads, a detail line each (a ban's reason) and one action button. */
export function PlayerRows({
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

/** The whitelist on or off, as a switch. */
export function WhitelistSwitch({
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
