import type { ServerState } from '@spawnpoint/contracts';
import { stateLabels } from '../lib/servers.ts';

const tone: Record<ServerState, string> = {
  online: 'bg-brand-100 text-brand-800 ring-brand-600/30',
  starting: 'bg-amber-100 text-amber-800 ring-amber-600/30',
  queued: 'bg-amber-100 text-amber-800 ring-amber-600/30',
  waking: 'bg-amber-100 text-amber-800 ring-amber-600/30',
  stopping: 'bg-orange-100 text-orange-800 ring-orange-600/30',
  offline: 'bg-slate-100 text-slate-700 ring-slate-500/30',
  sleeping: 'bg-indigo-100 text-indigo-800 ring-indigo-600/30',
  uploading: 'bg-indigo-100 text-indigo-800 ring-indigo-600/30',
  downloading: 'bg-amber-100 text-amber-800 ring-amber-600/30',
  backing_up: 'bg-sky-100 text-sky-800 ring-sky-600/30',
  restoring: 'bg-sky-100 text-sky-800 ring-sky-600/30',
  installing: 'bg-sky-100 text-sky-800 ring-sky-600/30',
  locked: 'bg-red-100 text-red-800 ring-red-600/30',
};

export function StateBadge({ state }: { state: ServerState }) {
  const busy = ['starting', 'stopping', 'queued', 'waking', 'installing', 'uploading', 'downloading'].includes(state);
  return (
    <span
      className={`inline-flex shrink-0 items-center gap-1.5 whitespace-nowrap rounded-full px-2.5 py-0.5 text-xs font-semibold ring-1 ring-inset ${tone[state]}`}
      data-testid="server-state"
    >
      <span className={`size-1.5 rounded-full bg-current ${busy ? 'animate-pulse' : ''}`} aria-hidden="true" />
      {stateLabels[state]}
    </span>
  );
}
