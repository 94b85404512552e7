import {
  endpoints,
  newestVersionFirst,
  PUBLIC_SERVER_LIST_PAGE,
  publicServerSorts,
  softwareCatalogue,
  type PublicServerList,
  type PublicServerListQuery,
} from '@spawnpoint/contracts';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { buttonClass } from '../components/button.tsx';
import { SelectField } from '../components/field.tsx';
import { PublicServerCard } from '../components/public-server-card.tsx';
import { pageMeta } from '../lib/meta.ts';
import { watchPublicServers } from '../lib/public-live.ts';
import { useEndpoint, type EndpointLoad } from '../lib/use-endpoint.ts';

export const meta = () =>
  pageMeta(
    'server-list',
    'Minecraft servers hosted on Spawnpoint whose owners invite everyone: see who is online, copy the address and join.',
  );

// The list changes as players come and go; a visitor keeping the page open sees it move.
const REFRESH_MS = 15_000;
const sortLabels: Record<(typeof publicServerSorts)[number], string> = { players: 'Most players', newest: 'Newest' };

/** The search, filters, sort and page live in the address, so a search can be shared and Back works. */
function queryOf(params: URLSearchParams): PublicServerListQuery {
  const sort = params.get('sort');
  const software = softwareCatalogue.find((s) => s.id === params.get('software'))?.id;
  return {
    q: params.get('q') || undefined,
    software,
    version: params.get('version') || undefined,
    sort: sort === 'newest' ? 'newest' : 'players',
    page: Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1),
  };
}

export default function ServerList() {
  const [params, setParams] = useSearchParams();
  const query = queryOf(params);
  const list = useEndpoint(
    endpoints.publicServers,
    { query },
    {
      refreshMs: REFRESH_MS,
      keepPrevious: true,
      failureMessage: 'The server list could not be loaded. Check your connection; the page tries again on its own.',
    },
  );
  const update = (changes: Record<string, string | undefined>) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [k, v] of Object.entries(changes)) {
          if (v) next.set(k, v);
          else next.delete(k);
        }
        // A new search or filter starts again at its first page.
        if (!('page' in changes)) next.delete('page');
        return next;
      },
      { replace: 'q' in changes },
    );

  // Counts and states move live between the 15-second refreshes.
  const shown = list.load.status === 'ready' ? list.load.data.servers.map((server) => server.name).join(',') : '';
  const { patch } = list;
  useEffect(() => {
    if (!shown) return;
    return watchPublicServers(shown.split(','), (event) =>
      patch((current) => ({
        ...current,
        servers: current.servers.map((server) =>
          server.name === event.name ? { ...server, state: event.state, players: event.players } : server,
        ),
      })),
    );
  }, [shown, patch]);

  return (
    <main className="mx-auto max-w-5xl px-4 py-12">
      <h1 className="text-4xl font-extrabold">Server list</h1>
      <p className="mt-3 max-w-2xl text-lg text-slate-600">
        Servers on Spawnpoint whose owners welcome everyone. Copy an address into Minecraft (Multiplayer → Add Server) and say hi.
      </p>
      <SearchForm query={query} update={update} versionsListed={list.load.status === 'ready' ? list.load.data.versions : []} />
      <Results load={list.load} filtered={Boolean(query.q || query.software || query.version)} update={update} />
    </main>
  );
}

type Update = (changes: Record<string, string | undefined>) => void;

/** The search, the software and version filters and the sort, each written into the address. */
function SearchForm({ query, update, versionsListed }: { query: PublicServerListQuery; update: Update; versionsListed: string[] }) {
  const [typed, setTyped] = useState(query.q ?? '');
  // Searched a moment after the last key.
  useEffect(() => {
    if (typed === (query.q ?? '')) return;
    const timer = setTimeout(() => update({ q: typed.trim() || undefined }), 250);
    return () => clearTimeout(timer);
  }, [typed]);
  // The versions listed servers of that software run (the API's facet); the one chosen stays while it loads.
  const versions = newestVersionFirst([...versionsListed, ...(query.version ? [query.version] : [])]);
  return (
    <form className="mt-8 grid gap-3 sm:grid-cols-3 lg:grid-cols-5" role="search" onSubmit={(e) => e.preventDefault()}>
      <div className="sm:col-span-3 lg:col-span-2">
        <label htmlFor="list-search" className="block text-sm font-medium text-slate-700">
          Search by name
        </label>
        <input
          id="list-search"
          type="search"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          maxLength={32}
          className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
        />
      </div>
      <SelectField
        id="list-software"
        label="Software"
        value={query.software ?? ''}
        onChange={(e) => update({ software: e.target.value || undefined, version: undefined })}
      >
        <option value="">Any</option>
        {softwareCatalogue.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </SelectField>
      <SelectField
        id="list-version"
        label="Version"
        value={query.version ?? ''}
        disabled={!query.software}
        onChange={(e) => update({ version: e.target.value || undefined })}
      >
        <option value="">Any</option>
        {versions.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </SelectField>
      <SelectField
        id="list-sort"
        label="Sort"
        value={query.sort}
        onChange={(e) => update({ sort: e.target.value === 'players' ? undefined : e.target.value })}
      >
        {publicServerSorts.map((s) => (
          <option key={s} value={s}>
            {sortLabels[s]}
          </option>
        ))}
      </SelectField>
    </form>
  );
}

/** The servers found, or why there are none, and the pages. */
function Results({ load, filtered, update }: { load: EndpointLoad<PublicServerList>; filtered: boolean; update: Update }) {
  const list = load.status === 'ready' ? load.data : null;
  const pages = list ? Math.max(1, Math.ceil(list.total / PUBLIC_SERVER_LIST_PAGE)) : 1;
  return (
    <section className="mt-8" aria-labelledby="list-heading" aria-live="polite" aria-busy={load.status === 'loading'}>
      <h2 id="list-heading" className="sr-only">
        Public servers
      </h2>
      {load.status === 'failed' ? (
        <p className="rounded-xl border border-red-200 bg-red-50 p-6 text-red-800" role="alert">
          {load.message}
        </p>
      ) : list === null ? (
        <p className="text-slate-500">Loading the servers…</p>
      ) : list.servers.length === 0 && filtered ? (
        <div className="rounded-xl border border-dashed border-slate-300 bg-white p-10 text-center">
          <p className="text-lg font-semibold">No server matches</p>
          <p className="mt-2 text-slate-600">Try another name, or any software and version.</p>
        </div>
      ) : list.servers.length === 0 ? (
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
        <>
          <p className="mb-3 text-sm text-slate-600">
            {list.total === 1 ? '1 server' : `${list.total} servers`}
            {pages > 1 ? ` · page ${list.page} of ${pages}` : ''}
          </p>
          <ul className="grid gap-4 sm:grid-cols-2" data-testid="public-servers">
            {list.servers.map((server) => (
              <li key={server.name} className="min-w-0">
                <PublicServerCard server={server} />
              </li>
            ))}
          </ul>
        </>
      )}
      {list && pages > 1 ? (
        <nav className="mt-6 flex items-center justify-between gap-3" aria-label="Pages">
          <button
            type="button"
            className={buttonClass('secondary')}
            disabled={list.page <= 1}
            onClick={() => update({ page: String(list.page - 1) })}
          >
            Previous
          </button>
          <button
            type="button"
            className={buttonClass('secondary')}
            disabled={list.page >= pages}
            onClick={() => update({ page: String(list.page + 1) })}
          >
            Next
          </button>
        </nav>
      ) : null}
    </section>
  );
}
