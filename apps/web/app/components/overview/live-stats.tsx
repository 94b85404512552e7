import type { ServerDetails, ServerStats, ServerState, StatsSample } from '@spawnpoint/contracts';
import { useEffect, useState } from 'react';
import { formatBytes } from '../../lib/servers.ts';
import { subscribeServer } from '../../lib/socket.ts';
import { formatMemory, formatPercent, formatPlayers, mergeSamples } from '../../lib/stats-chart.ts';
import { notify } from '../../lib/toasts.ts';
import { useLiveStatus } from '../../lib/use-live-status.ts';
import { PlayerHead } from '../player-head.tsx';
import { StatsChart } from '../stats-chart.tsx';

/**
 * The server's figures: the API's last 10 minutes (sent on subscribing, again after a reconnect), then live
 * ones; `latest` is the newest, or the ones the page loaded with while the server still runs.
 */
export function useLiveStats(id: string, server: ServerDetails | null, state: ServerState) {
  const [samples, setSamples] = useState<StatsSample[]>([]);
  const [historyLoaded, setHistoryLoaded] = useState(false);
  const [live, setLive] = useState<ServerStats | null>(null);
  useEffect(() => {
    setSamples([]);
    setLive(null);
    setHistoryLoaded(false);
    return subscribeServer(id, {
      // Something asked of the server failed after it was answered (a start fetching its files from storage).
      onError: (_status, message) => notify('danger', 'Whoopsie!', message),
      onStatsHistory: (history) => {
        setSamples((prev) => mergeSamples(prev, history));
        setHistoryLoaded(true);
      },
      onStats: ({ at, ...stats }) => {
        setLive(stats);
        setSamples((prev) => mergeSamples(prev, [{ at, cpu: stats.cpu, memory: stats.memory, players: stats.players.online }]));
      },
    });
  }, [id]);
  // The figures the page loaded with are the server's only while it still runs: once it stopped or sleeps,
  // nobody is playing and nothing is used, whatever the last sample said.
  const stopped = state === 'offline' || state === 'sleeping' || state === 'uploading';
  useEffect(() => {
    if (stopped) {
      setSamples([]);
      setLive(null);
    }
  }, [stopped]);
  const latest = live ?? (server && !stopped ? server.stats : null);
  return { samples, historyLoaded, latest };
}

type LiveStats = ReturnType<typeof useLiveStats>;

/** CPU, memory and players as charts, or why there are none (not running). */
export function StatsSection({
  server,
  state,
  stats,
  openedAt,
}: {
  server: ServerDetails;
  state: ServerState;
  stats: LiveStats;
  openedAt: number;
}) {
  const { samples, historyLoaded, latest } = stats;
  const notRunning = ['offline', 'sleeping', 'queued', 'uploading', 'downloading'].includes(state);
  // While the live connection is lost, the figures below are the last ones received: shown as such.
  const connection = useLiveStatus();
  const stale = connection === 'lost' || connection === 'crowded';
  return (
    <section aria-labelledby="stats-heading" data-stale={stale || undefined} className={stale ? 'opacity-60' : undefined}>
      <h2 id="stats-heading" className="sr-only">
        Live statistics
      </h2>
      {stale ? (
        <p className="mb-2 text-sm font-medium text-amber-800">
          {connection === 'crowded'
            ? 'Last known values — not live while live updates are paused in this tab.'
            : 'Last known values — not live while the connection is lost.'}
        </p>
      ) : null}
      {notRunning ? (
        <p className="rounded-xl border border-dashed border-slate-300 bg-white p-6 text-center text-slate-600">
          {state === 'sleeping' || state === 'uploading'
            ? 'The server is sleeping. Start it, or join it, to see its CPU, memory and players here.'
            : state === 'downloading'
              ? 'The server is waking up: its files are coming back from storage. Its CPU, memory and players show here once it runs.'
              : state === 'queued'
                ? 'The server is waiting for a free slot. Its CPU, memory and players show here once it runs.'
                : 'The server is offline. Start it to see its CPU, memory and players here.'}
        </p>
      ) : (
        <div className="grid grid-cols-1 gap-4 md:grid-cols-3">
          <StatsChart
            label="CPU"
            samples={samples}
            pick={(s) => s.cpu}
            limit={100}
            formatTick={formatPercent}
            formatLatest={formatPercent}
            latest={latest?.cpu}
            loading={!historyLoaded}
            now={openedAt}
          />
          <StatsChart
            label="Memory"
            samples={samples}
            pick={(s) => s.memory}
            limit={server.memoryLimit * 1024 * 1024}
            formatTick={formatMemory}
            formatLatest={formatBytes}
            latest={latest?.memory}
            loading={!historyLoaded}
            now={openedAt}
          />
          <StatsChart
            label="Players"
            samples={samples}
            pick={(s) => s.players}
            limit={server.players.max}
            formatTick={formatPlayers}
            formatLatest={(v) => `${v} / ${server.players.max}`}
            latest={latest?.players.online}
            loading={!historyLoaded}
            now={openedAt}
          />
        </div>
      )}
    </section>
  );
}

/** Who is online now, with their heads. */
export function PlayersOnline({ players }: { players: string[] }) {
  return (
    <section aria-labelledby="players-heading" className="rounded-xl border border-slate-200 bg-white p-6">
      <h2 id="players-heading" className="text-lg font-semibold">
        Players online
      </h2>
      {players.length === 0 ? (
        <p className="mt-2 text-slate-600">Nobody is online right now.</p>
      ) : (
        <ul className="mt-3 flex flex-wrap gap-2" data-testid="player-list">
          {players.map((name) => (
            <li key={name} className="flex min-w-0 items-center gap-2 rounded-md bg-slate-100 py-1 pr-3 pl-1 font-mono text-sm">
              <PlayerHead name={name} size={24} />
              <span className="min-w-0 break-all">{name}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
