import { endpoints, SERVER_NAME_PATTERN } from '@spawnpoint/contracts';
import { useEffect } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { CopyButton } from '../components/copy-button.tsx';
import { NotFoundPage } from '../components/error-pages.tsx';
import { PublicServerCard } from '../components/public-server-card.tsx';
import { pageMeta } from '../lib/meta.ts';
import { watchPublicServers } from '../lib/public-live.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';

export const meta = () => pageMeta('server-list-name', 'A Minecraft server on Spawnpoint: who is online, and the address to join.');

const REFRESH_MS = 15_000;

/**
 * A listed server's public page. Only a name a server could have is a page (the API answers 404 for the
 * others too): any other text in the address would be shown as the page's heading.
 */
export default function PublicServerPage() {
  const { name = '' } = useParams();
  const location = useLocation();
  return SERVER_NAME_PATTERN.test(name) ? <ListedServer name={name} /> : <NotFoundPage path={location.pathname} />;
}

/** The same entry as the list, live, with how to join. */
function ListedServer({ name }: { name: string }) {
  const entry = useEndpoint(
    endpoints.publicServer,
    { params: { name } },
    { refreshMs: REFRESH_MS, failureMessage: 'The server could not be loaded. Check your connection; the page tries again on its own.' },
  );
  const server = entry.load.status === 'ready' ? entry.load.data : null;

  // Its state and players move live.
  const listed = server !== null;
  const { patch } = entry;
  useEffect(() => {
    if (!listed) return;
    return watchPublicServers([name.toLowerCase()], (event) =>
      patch((current) => ({ ...current, state: event.state, players: event.players })),
    );
  }, [listed, name, patch]);

  return (
    <main className="mx-auto max-w-2xl px-4 py-12">
      <p className="text-sm">
        <Link to="/server-list" className="text-brand-700 hover:underline">
          ← Server list
        </Link>
      </p>
      <h1 className="mt-2 text-4xl font-extrabold break-words">{server?.name ?? name.toLowerCase()}</h1>
      <div className="mt-6" aria-live="polite">
        {entry.load.status === 'failed' && entry.load.failure?.code === 'NOT_FOUND' ? (
          <p className="rounded-xl border border-slate-200 bg-white p-6 text-slate-700" role="alert">
            No server called {name} is on the public list. Its owner may have taken it off; find others on the server list.
          </p>
        ) : entry.load.status === 'failed' ? (
          <p className="rounded-xl border border-red-200 bg-red-50 p-6 text-red-800" role="alert">
            {entry.load.message}
          </p>
        ) : !server ? (
          <p className="text-slate-500">Loading…</p>
        ) : (
          <>
            <PublicServerCard server={server} linked={false} />
            {server.joinAddress ? (
              <div className="mt-4 text-sm text-slate-600">
                <p>Or connect straight to the machine (it does not start a stopped server):</p>
                <div className="mt-1">
                  <CopyButton value={server.address} label="Direct address" />
                </div>
              </div>
            ) : null}
            <h2 className="mt-8 text-lg font-semibold">How to join</h2>
            <ol className="mt-2 list-decimal space-y-1 pl-5 text-slate-700">
              <li>
                Open Minecraft Java Edition {server.version} and choose <strong>Multiplayer</strong>.
              </li>
              <li>
                Choose <strong>Add Server</strong> and paste the address above.
              </li>
              <li>
                {server.state === 'online'
                  ? 'Join: it is running now.'
                  : server.joinAddress
                    ? 'Join: the server starts when you do, in a few seconds.'
                    : 'It is not running right now: it shows as offline in your list until its owner starts it.'}
              </li>
            </ol>
          </>
        )}
      </div>
    </main>
  );
}
