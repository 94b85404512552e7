import { endpoints, findSoftware, type PublicServerEntry } from '@spawnpoint/contracts';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { buttonClass } from '../components/button.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { StateBadge } from '../components/state-badge.tsx';
import { call } from '../lib/api.ts';
import { pageMeta } from '../lib/meta.ts';

export const meta = () =>
  pageMeta(
    'server-list',
    'Minecraft servers hosted on Spawnpoint whose owners invite everyone: see who is online, copy the address and join.',
  );

// The list changes as players come and go; a visitor keeping the page open sees it move.
const REFRESH_MS = 15_000;

export default function ServerList() {
  const [servers, setServers] = useState<PublicServerEntry[] | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let active = true;
    const load = () =>
      call(endpoints.publicServers, {}, { background: true }).then(
        (list) => {
          if (!active) return;
          setServers(list);
          setFailed(false);
        },
        () => active && setFailed(true),
      );
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => {
      active = false;
      clearInterval(timer);
    };
  }, []);

  return (
    <main className="mx-auto max-w-5xl px-4 py-12">
      <h1 className="text-4xl font-extrabold">Server list</h1>
      <p className="mt-3 max-w-2xl text-lg text-slate-600">
        Servers on Spawnpoint whose owners welcome everyone. Copy an address into Minecraft (Multiplayer → Direct connection) and say hi.
      </p>

      <section className="mt-10" aria-labelledby="list-heading" aria-live="polite" aria-busy={servers === null && !failed}>
        <h2 id="list-heading" className="sr-only">
          Public servers
        </h2>
        {failed && servers === null ? (
          <p className="rounded-xl border border-red-200 bg-red-50 p-6 text-red-800" role="alert">
            The server list could not be loaded. Check your connection; the page tries again on its own.
          </p>
        ) : servers === null ? (
          <p className="text-slate-500">Loading the servers…</p>
        ) : servers.length === 0 ? (
          <div className="rounded-xl border border-dashed border-slate-300 bg-white p-10 text-center">
            <p className="text-lg font-semibold">No public servers yet</p>
            <p className="mt-2 text-slate-600">
              Own a server? Turn on “Show on the public server list” on its overview page and it appears here.
            </p>
            <Link to="/servers" className={buttonClass('primary', 'mt-6')}>
              Go to your servers
            </Link>
          </div>
        ) : (
          <ul className="grid gap-4 sm:grid-cols-2" data-testid="public-servers">
            {servers.map((server) => (
              <li key={server.name} className="flex flex-col gap-3 rounded-xl border border-slate-200 bg-white p-5">
                <div className="flex items-start justify-between gap-3">
                  <div>
                    <h3 className="text-lg font-bold">{server.name}</h3>
                    <p className="text-sm text-slate-600">
                      {findSoftware(server.software)?.name ?? server.software} {server.version}
                    </p>
                  </div>
                  <StateBadge state={server.state} />
                </div>
                <p className="text-sm text-slate-700">
                  <strong className="tabular-nums">
                    {server.players.online} / {server.players.max}
                  </strong>{' '}
                  players online
                </p>
                <CopyButton value={server.address} label={`Address of ${server.name}`} />
              </li>
            ))}
          </ul>
        )}
      </section>
    </main>
  );
}
