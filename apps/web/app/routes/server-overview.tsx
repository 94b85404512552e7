import { endpoints, softwareTitle, type ServerStats, type StatsSample } from '@spawnpoint/contracts';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { Button, buttonClass } from '../components/button.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { PowerButtons } from '../components/power-buttons.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { PlayerHead } from '../components/player-head.tsx';
import { FreeTierPanel } from '../components/free-tier-panel.tsx';
import { StatsChart } from '../components/stats-chart.tsx';
import { call } from '../lib/api.ts';
import { openDialog } from '../lib/dialogs.ts';
import { pageMeta } from '../lib/meta.ts';
import { deleteServer, formatBytes, updateAppearance } from '../lib/servers.ts';
import { subscribeServer } from '../lib/socket.ts';
import { formatMemory, formatPercent, formatPlayers, mergeSamples } from '../lib/stats-chart.ts';
import { notify } from '../lib/toasts.ts';
import { useSending } from '../lib/use-sending.ts';
import { useLiveStatus } from '../lib/use-live-status.ts';
import { fetchServers } from '../lib/user-store.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id', 'Your server at a glance.');

export default function ServerOverview() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const load = useServer(id);
  // The charts' points: the API's last 10 minutes (sent on subscribing, again after a reconnect), then live ones.
  const [samples, setSamples] = useState<StatsSample[]>([]);
  const [historyLoaded, setHistoryLoaded] = useState(false);
  const [live, setLive] = useState<ServerStats | null>(null);
  const [openedAt] = useState(() => Date.now());

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

  const state = load.status === 'ready' ? load.state : 'offline';
  const notRunning = ['offline', 'sleeping', 'queued', 'uploading', 'downloading'].includes(state);
  useEffect(() => {
    if (state === 'offline' || state === 'sleeping' || state === 'uploading') {
      setSamples([]);
      setLive(null);
    }
  }, [state]);

  // The figures the page loaded with are the server's only while it still runs: once it stopped or sleeps,
  // nobody is playing and nothing is used, whatever the last sample said.
  const stopped = state === 'offline' || state === 'sleeping' || state === 'uploading';
  const latest = live ?? (load.status === 'ready' && !stopped ? load.server.stats : null);
  // While the live connection is lost, the figures below are the last ones received: shown as such.
  const connection = useLiveStatus();
  const stale = connection === 'lost' || connection === 'crowded';
  const players = latest?.players.list ?? [];

  return (
    <ServerShell serverId={id} load={load}>
      {load.status === 'ready' ? (
        <div className="space-y-6">
          {/* Why it is offline when nobody stopped it (a start that failed, a crash, a limit): the node's words say what to do. */}
          {load.state === 'offline' && load.stoppedBecause ? (
            <section
              role="alert"
              data-testid="stopped-because"
              className="rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-900 sm:p-6"
            >
              <h2 className="font-semibold">The server is not running</h2>
              <p className="mt-1 break-words whitespace-pre-line">{load.stoppedBecause}</p>
              <Link to={`/servers/${id}/console`} className="mt-2 inline-block font-medium underline">
                See the console
              </Link>
            </section>
          ) : null}
          {/* grid-cols-1 is minmax(0, 1fr): the implicit column would grow to the join address and push the card
              and its power buttons past a phone's edge. */}
          <section
            aria-labelledby="connect-heading"
            className="grid grid-cols-1 gap-4 rounded-xl border border-slate-200 bg-white p-4 sm:p-6 md:grid-cols-2"
          >
            <div className="min-w-0">
              <h2 id="connect-heading" className="text-sm font-semibold uppercase tracking-wide text-slate-500">
                Join address
              </h2>
              <div className="mt-2 flex flex-col items-start gap-2">
                {/* Shown whole (wrapped), not cut: on a phone it is read here and typed into the game elsewhere. */}
                <CopyButton value={load.server.joinAddress} label="Join address" wrap />
                <p className="flex max-w-full flex-wrap items-center gap-1 text-sm text-slate-600">
                  Direct connection: <CopyButton value={`${load.server.host}:${load.server.port}`} label="Direct address" wrap />
                </p>
                {/* Joining by name works only while a join proxy is connected; otherwise nobody is left with an address that leads nowhere. */}
                <p className="text-sm text-slate-600">
                  {load.server.joinByName
                    ? 'Add the join address in Minecraft. Joining starts a stopped server: the first join waits a few seconds while it starts.'
                    : 'Joining by name is not available right now (the join proxy is not running): use the direct connection in Minecraft.'}
                </p>
              </div>
              <p className="mt-3 text-sm text-slate-600">
                {softwareTitle(load.server.software)} server, Minecraft {load.server.version}. Join with Minecraft Java Edition{' '}
                {load.server.version}.
              </p>
            </div>
            <div className="min-w-0">
              <h2 className="text-sm font-semibold uppercase tracking-wide text-slate-500">Power</h2>
              <div className="mt-2">
                <PowerButtons
                  serverId={id}
                  state={load.state}
                  permissions={load.server.permissions}
                  eulaAccepted={load.server.eulaAccepted}
                />
              </div>
              <Link to={`/servers/${id}/console`} className={buttonClass('secondary', 'mt-4')}>
                Open the console
              </Link>
            </div>
          </section>

          <FreeTierPanel server={load.server} state={load.state} />

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
                {load.state === 'sleeping' || load.state === 'uploading'
                  ? 'The server is sleeping. Start it, or join it, to see its CPU, memory and players here.'
                  : load.state === 'downloading'
                    ? 'The server is waking up: its files are coming back from storage. Its CPU, memory and players show here once it runs.'
                    : load.state === 'queued'
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
                  limit={load.server.memoryLimit * 1024 * 1024}
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
                  limit={load.server.players.max}
                  formatTick={formatPlayers}
                  formatLatest={(v) => `${v} / ${load.server.players.max}`}
                  latest={latest?.players.online}
                  loading={!historyLoaded}
                  now={openedAt}
                />
              </div>
            )}
          </section>

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

          {load.server.permissions.includes('appearance.update') ? (
            <ListingToggle serverId={id} initial={load.server.publicListing} />
          ) : null}

          {load.server.permissions.includes('server.delete') ? (
            <section aria-labelledby="danger-heading" className="rounded-xl border border-red-200 bg-white p-6">
              <h2 id="danger-heading" className="text-lg font-semibold text-red-700">
                Delete this server
              </h2>
              <p className="mt-1 text-sm text-slate-600">The server, its world and every file are removed for good.</p>
              <Button
                variant="danger"
                className="mt-4"
                onClick={() =>
                  openDialog('confirm', {
                    title: `Delete ${load.server.name}?`,
                    message: 'This stops the server and removes its world and every file. This cannot be undone.',
                    confirmLabel: 'Delete server',
                    danger: true,
                    typeToConfirm: load.server.name,
                    onConfirm: async () => {
                      await deleteServer(id);
                      notify('success', 'Server deleted', `${load.server.name} and its files were removed.`);
                      navigate('/servers');
                    },
                  })
                }
              >
                Delete server
              </Button>
            </section>
          ) : null}

          {load.server.role !== 'owner' ? (
            <section aria-labelledby="leave-heading" className="rounded-xl border border-slate-200 bg-white p-6">
              <h2 id="leave-heading" className="text-lg font-semibold">
                Leave this server
              </h2>
              <p className="mt-1 text-sm text-slate-600">
                You stop being a member at once. Invitations you sent that nobody accepted yet are revoked.
              </p>
              <Button
                variant="secondary"
                className="mt-4"
                onClick={() =>
                  openDialog('confirm', {
                    title: `Leave ${load.server.name}?`,
                    message: 'Only the owner or an administrator can invite you back.',
                    confirmLabel: 'Leave server',
                    danger: true,
                    onConfirm: async () => {
                      await call(endpoints.memberLeave, { params: { serverId: id } });
                      await fetchServers();
                      notify('success', 'You left the server', `${load.server.name} is no longer in your list.`);
                      navigate('/servers');
                    },
                  })
                }
              >
                Leave server
              </Button>
            </section>
          ) : null}
        </div>
      ) : null}
    </ServerShell>
  );
}

/** Opt in to (or out of) the public server list at /server-list. */
function ListingToggle({ serverId, initial }: { serverId: string; initial: boolean }) {
  const [listed, setListed] = useState(initial);
  const { sending: busy, send } = useSending();
  return (
    <section aria-labelledby="listing-heading" className="rounded-xl border border-slate-200 bg-white p-6">
      <h2 id="listing-heading" className="text-lg font-semibold">
        Public server list
      </h2>
      <label className="mt-3 flex items-start gap-3">
        <input
          type="checkbox"
          className="mt-1 size-4 accent-brand-600"
          checked={listed}
          disabled={busy}
          onChange={(event) => {
            const next = event.target.checked;
            void send(async () => {
              setListed(next);
              try {
                const server = await updateAppearance(serverId, { publicListing: next });
                setListed(server.publicListing);
                notify('success', server.publicListing ? 'Listed publicly' : 'Hidden from the list');
              } catch {
                // The API client's error toast said why; the box goes back to what is saved.
                setListed(!next);
              }
            });
          }}
        />
        <span>
          <span className="font-medium">Show on the public server list</span>
          <span className="block text-sm text-slate-600">
            Anyone can then see this server's name, version, state, player count and address on{' '}
            <Link to="/server-list" className="underline">
              the server list
            </Link>
            . Nothing else about you or the server is shown.
          </span>
        </span>
      </label>
    </section>
  );
}
