// The Plugins page's catalogue for Java servers (Modrinth, Hangar): search, install, and the version picker.
import {
  endpoints,
  javaPluginSourceNames,
  type JavaCatalogueResult,
  type JavaPluginSource,
  type ServerPluginsResult,
} from '@spawnpoint/contracts';
import { useEffect, useRef, useState } from 'react';
import { Button } from '../button.tsx';
import { Field } from '../field.tsx';
import { call } from '../../lib/api.ts';
import { notify } from '../../lib/toasts.ts';
import { useDebounced } from '../../lib/use-debounced.ts';
import { useEndpoint } from '../../lib/use-endpoint.ts';
import { useSending } from '../../lib/use-sending.ts';
import { CARD_CLASS as card } from '../styles.ts';

/** Modrinth and Hangar, searched for what fits the server's software and version; installed with one click. */
export function JavaCatalogue({
  serverId,
  sources,
  mayManage,
  onChanged,
}: {
  serverId: string;
  sources: JavaPluginSource[];
  mayManage: boolean;
  onChanged: (result: ServerPluginsResult) => void;
}) {
  const [source, setSource] = useState<JavaPluginSource>(sources[0] ?? 'modrinth');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const [installing, setInstalling] = useState<string | null>(null);
  const [choosing, setChoosing] = useState<string | null>(null);
  const { found, problem, installedHere, markInstalled } = useCatalogueSearch(serverId, source, query, page);

  const install = async (projectId: string, name: string, versionId?: string) => {
    setInstalling(projectId);
    try {
      const result = await call(endpoints.pluginsChange, {
        params: { serverId },
        body: { action: 'install-project', source, projectId, ...(versionId ? { versionId } : {}) },
      });
      onChanged(result);
      markInstalled(projectId);
      notify('success', `${name} installed`, 'Its file was checked against the catalogue’s hash. It loads when the server (re)starts.');
    } catch {
      // The call's toast says why (no version for this server, a hash that did not match…).
    } finally {
      setInstalling(null);
    }
  };

  const pages = found ? Math.max(1, Math.ceil(found.total / found.pageSize)) : 1;
  const kind = found?.kind ?? 'plugins';
  return (
    <section aria-labelledby="java-catalogue-heading" className={card}>
      <h2 id="java-catalogue-heading" className="text-lg font-semibold">
        {kind === 'mods' ? 'Mods' : 'Plugins'} from {sources.map((s) => javaPluginSourceNames[s]).join(' and ')}
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Only what fits this server&apos;s software and Minecraft version. Each file is checked against the hash its catalogue publishes.
      </p>
      <CatalogueControls
        sources={sources}
        source={source}
        query={query}
        onSource={(next) => {
          setSource(next);
          setPage(1);
        }}
        onQuery={(next) => {
          setQuery(next);
          setPage(1);
        }}
      />
      {problem ? (
        <p className="mt-3 rounded-lg bg-amber-50 p-3 text-sm text-amber-900" role="alert">
          {problem}
        </p>
      ) : !found ? (
        <p className="mt-3 text-sm text-slate-600" role="status">
          Searching…
        </p>
      ) : found.entries.length === 0 ? (
        <p className="mt-3 rounded-lg bg-slate-50 p-4 text-sm text-slate-600">Nothing found for “{query}” that fits this server.</p>
      ) : (
        <ul className="mt-3 grid gap-3 sm:grid-cols-2" data-testid="java-catalogue">
          {found.entries.map((entry) => (
            <JavaEntryCard
              key={entry.projectId}
              serverId={serverId}
              source={source}
              entry={entry}
              installed={entry.installed || installedHere.has(entry.projectId)}
              mayManage={mayManage}
              installing={installing}
              choosing={choosing === entry.projectId}
              onChoosing={() => setChoosing((c) => (c === entry.projectId ? null : entry.projectId))}
              onInstall={(versionId) => install(entry.projectId, entry.name, versionId)}
            />
          ))}
        </ul>
      )}
      {found && pages > 1 ? <Pager page={page} answered={found.page} pages={pages} onPage={setPage} /> : null}
    </section>
  );
}

/**
 * The catalogue searched a moment after the last key; a catalogue that cannot answer is said in its own
 * words. What this page installed stays shown as installed until a search asked after the install answers.
 */
function useCatalogueSearch(serverId: string, source: JavaPluginSource, query: string, page: number) {
  const searched = useDebounced(query.trim(), query ? 300 : 0);
  const catalogue = useEndpoint(
    endpoints.pluginCatalogue,
    { params: { serverId }, query: { source, q: searched || undefined, page } },
    { keepPrevious: true, failureMessage: 'The catalogue could not be searched. Try again in a minute.' },
  );
  const found = catalogue.load.status === 'ready' ? catalogue.load.data : null;
  const problem = catalogue.load.status === 'failed' ? catalogue.load.message : catalogue.staleBecause;
  // Installed from this page: shown installed until the catalogue, asked again after the install, says so.
  const [installedHere, setInstalledHere] = useState<ReadonlySet<string>>(new Set());
  const installs = useRef(0);
  const markInstalled = (projectId: string) => {
    const install = ++installs.current;
    setInstalledHere((ids) => new Set(ids).add(projectId));
    void catalogue.reload().then((answer) => {
      if (answer && installs.current === install) setInstalledHere(new Set());
    });
  };
  return { found, problem, installedHere, markInstalled };
}

/** Previous, which page of how many (the one answered), Next. */
function Pager({ page, answered, pages, onPage }: { page: number; answered: number; pages: number; onPage: (page: number) => void }) {
  return (
    <nav className="mt-4 flex items-center justify-between gap-3 text-sm" aria-label="Catalogue pages">
      <Button variant="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </Button>
      <span className="text-slate-600">
        Page {answered} of {pages}
      </span>
      <Button variant="secondary" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </Button>
    </nav>
  );
}

/** One project found: its icon, author, downloads and versions, and Install (or another version) where allowed. */
function JavaEntryCard(props: {
  serverId: string;
  source: JavaPluginSource;
  entry: JavaCatalogueResult['entries'][number];
  installed: boolean;
  mayManage: boolean;
  /** The project being installed now, if any: one install at a time. */
  installing: string | null;
  choosing: boolean;
  onChoosing: () => void;
  onInstall: (versionId?: string) => Promise<void>;
}) {
  const { serverId, source, entry, installed, mayManage, installing, choosing, onChoosing, onInstall } = props;
  return (
    <li className="flex flex-col gap-2 rounded-lg border border-slate-200 p-3 text-sm" data-testid="java-catalogue-entry">
      <div className="flex items-start gap-3">
        {entry.icon ? (
          <img
            src={entry.icon}
            alt=""
            width={40}
            height={40}
            loading="lazy"
            referrerPolicy="no-referrer"
            className="h-10 w-10 shrink-0 rounded-lg"
          />
        ) : (
          <span aria-hidden className="grid h-10 w-10 shrink-0 place-items-center rounded-lg bg-slate-100 text-lg font-bold text-slate-600">
            {entry.name.charAt(0)}
          </span>
        )}
        <div className="min-w-0">
          <h3 className="font-medium break-words text-slate-900">{entry.name}</h3>
          <p className="text-xs text-slate-500">
            {entry.author ? `by ${entry.author} · ` : ''}
            {entry.downloads.toLocaleString()} downloads
            {entry.gameVersions.length
              ? ` · Minecraft ${entry.gameVersions.length > 1 ? `${entry.gameVersions[0]}–${entry.gameVersions.at(-1)}` : entry.gameVersions[0]}`
              : ''}
          </p>
        </div>
      </div>
      <p className="break-words text-slate-700">{entry.summary}</p>
      <div className="mt-auto pt-1">
        {installed ? (
          <span className="text-emerald-700">Installed</span>
        ) : mayManage ? (
          <span className="flex flex-wrap gap-2">
            <Button
              onClick={() => void onInstall()}
              busy={installing === entry.projectId}
              disabled={installing !== null}
              aria-label={`Install ${entry.name}`}
            >
              Install
            </Button>
            <Button variant="secondary" onClick={onChoosing} aria-expanded={choosing} aria-label={`Other versions of ${entry.name}`}>
              Other versions
            </Button>
          </span>
        ) : null}
      </div>
      {choosing && !installed ? (
        <VersionPicker
          serverId={serverId}
          source={source}
          projectId={entry.projectId}
          name={entry.name}
          onChoose={(versionId) => onInstall(versionId)}
        />
      ) : null}
    </li>
  );
}

/** Which catalogue (where there are two) and the search. */
function CatalogueControls(props: {
  sources: JavaPluginSource[];
  source: JavaPluginSource;
  query: string;
  onSource: (source: JavaPluginSource) => void;
  onQuery: (query: string) => void;
}) {
  const { sources, source, query, onSource, onQuery } = props;
  return (
    <div className="mt-3 grid gap-3 sm:grid-cols-3">
      {sources.length > 1 ? (
        <div>
          <label htmlFor="java-source" className="block text-sm font-medium text-slate-700">
            Catalogue
          </label>
          <select
            id="java-source"
            className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-2 text-sm"
            value={source}
            onChange={(e) => onSource(e.target.value as JavaPluginSource)}
          >
            {sources.map((s) => (
              <option key={s} value={s}>
                {javaPluginSourceNames[s]}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <div className={sources.length > 1 ? 'sm:col-span-2' : 'sm:col-span-3'}>
        <Field
          id="java-search"
          label={`Search ${javaPluginSourceNames[source]}`}
          type="search"
          placeholder="worldedit, essentials…"
          value={query}
          onChange={(e) => onQuery(e.target.value)}
        />
      </div>
    </div>
  );
}

/** A catalogue project's versions for this server, newest first, to install one in particular. */
export function VersionPicker({
  serverId,
  source,
  projectId,
  name,
  onChoose,
}: {
  serverId: string;
  source: JavaPluginSource;
  projectId: string;
  name: string;
  onChoose: (versionId: string, version: string) => Promise<void>;
}) {
  const versions = useEndpoint(
    endpoints.pluginVersions,
    { params: { serverId }, query: { source, projectId } },
    { failureMessage: 'The versions could not be loaded. Try again in a minute.' },
  );
  const found = versions.load.status === 'ready' ? versions.load.data : null;
  const problem = versions.load.status === 'failed' ? versions.load.message : null;
  const [chosen, setChosen] = useState('');
  const { sending, send } = useSending();
  const pickerId = `versions-${source}-${projectId}`;
  // The newest version not installed is offered first, once the list is there.
  useEffect(() => {
    if (found) setChosen(found.versions.find((v) => v.versionId !== found.installedVersionId)?.versionId ?? '');
  }, [found]);

  if (problem)
    return (
      <p className="rounded-lg bg-amber-50 p-3 text-sm text-amber-900" role="alert">
        {problem}
      </p>
    );
  if (!found)
    return (
      <p className="text-sm text-slate-600" role="status">
        Loading versions…
      </p>
    );
  if (found.versions.length === 0) return <p className="text-sm text-slate-600">{name} has no version for this server.</p>;
  const version = found.versions.find((v) => v.versionId === chosen);
  return (
    <form
      className="grid gap-2 rounded-lg bg-slate-50 p-3 sm:grid-cols-[1fr_auto] sm:items-end"
      onSubmit={(event) => {
        event.preventDefault();
        if (version) void send(() => onChoose(version.versionId, version.version)).catch(() => undefined);
      }}
    >
      <div className="min-w-0">
        <label htmlFor={pickerId} className="block text-sm font-medium text-slate-700">
          Version of {name}
        </label>
        <select
          id={pickerId}
          className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-2 text-sm"
          value={chosen}
          onChange={(e) => setChosen(e.target.value)}
        >
          {found.versions.map((v) => (
            <option key={v.versionId} value={v.versionId} disabled={v.versionId === found.installedVersionId}>
              {v.version}
              {v.channel !== 'release' ? ` (${v.channel})` : ''}
              {v.published ? ` · ${v.published.slice(0, 10)}` : ''}
              {v.versionId === found.installedVersionId ? ' · installed' : ''}
            </option>
          ))}
        </select>
      </div>
      <Button type="submit" busy={sending} disabled={!version}>
        Install this version
      </Button>
    </form>
  );
}

/** An owner's own plugin (Paper, Purpur) or mod (Fabric) jar, sent with progress; the node keeps only a real one. */
