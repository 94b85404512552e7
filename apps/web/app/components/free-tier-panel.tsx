import { planById, type ServerDetails, type ServerState } from '@spawnpoint/contracts';
import { useEffect, useState } from 'react';
import { formatDuration, formatMinutes, freeTierStore, remainingAt } from '../lib/free-tier.ts';
import { useStore } from '../lib/use-store.ts';

/**
 * The plan's panel on the overview (headed with the server's plan): the place in the start queue while queued, the account's play time left
 * today (counting down live while a server runs), and after how long without players the server sleeps.
 */
export function FreeTierPanel({ server, state }: { server: ServerDetails; state: ServerState }) {
  const pushedPosition = useStore(freeTierStore, (s) => s.queue[server.serverId]);
  const pushedPlayTime = useStore(freeTierStore, (s) => s.playTime);
  // The details' figures until the socket pushes newer ones.
  const [loadedAt] = useState(() => Date.now());
  const position = pushedPosition !== undefined ? pushedPosition : server.queuePosition;
  const playTime = pushedPlayTime ?? (server.playTime ? { status: server.playTime, at: loadedAt } : null);
  const [now, setNow] = useState(() => Date.now());
  const counting = playTime?.status.counting ?? false;
  useEffect(() => {
    if (!counting) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [counting]);

  const remaining = playTime ? remainingAt(playTime, now) : null;
  return (
    <section aria-labelledby="free-tier-heading" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-6">
      <h2 id="free-tier-heading" className="text-sm font-semibold uppercase tracking-wide text-slate-500">
        {planById(server.planId)?.name ?? 'Free'} plan
      </h2>
      <ul className="mt-2 space-y-1 text-sm text-slate-700">
        {state === 'queued' && position ? (
          <li data-testid="queue-position" className="font-semibold text-amber-800">
            Queued — position {position}. It starts by itself as soon as a slot frees; Stop leaves the queue.
          </li>
        ) : null}
        {state === 'sleeping' ? (
          <li data-testid="sleeping-note">Sleeping: nobody was playing. Start it, or join it, to wake it up.</li>
        ) : null}
        {state === 'uploading' ? (
          <li data-testid="sleeping-note">Going to sleep: its files are being saved to storage, so it can wake on any of our machines.</li>
        ) : null}
        {state === 'downloading' ? (
          <li data-testid="sleeping-note">Waking up: its files are coming back from storage. It starts right after.</li>
        ) : null}
        {server.sleepsAfterMinutes !== null ? (
          <li data-testid="sleeps-after">Sleeps after {formatMinutes(server.sleepsAfterMinutes)} without players.</li>
        ) : null}
        {playTime && remaining !== null ? (
          <li data-testid="play-time-left" aria-live="off">
            {remaining > 0 ? (
              <>
                Play time left today: <strong>{formatDuration(remaining)}</strong> of {formatDuration(playTime.status.allowanceSeconds)}
                {counting ? ' (counting while a server of yours runs)' : ''}.
              </>
            ) : (
              <strong className="text-red-700">Today's play time is used up. It starts again at midnight UTC, or upgrade the plan.</strong>
            )}
          </li>
        ) : null}
      </ul>
    </section>
  );
}
