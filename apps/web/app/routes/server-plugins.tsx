import { builtinPlugin, endpoints, type PluginChangeRequest, type ServerPluginsResult } from '@spawnpoint/contracts';
import { useEffect, useRef, useState } from 'react';
import { useParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { Field } from '../components/field.tsx';
import { InstalledRow } from '../components/plugins/installed-row.tsx';
import { JavaCatalogue } from '../components/plugins/java-catalogue.tsx';
import { UploadJar, UploadPlugin } from '../components/plugins/plugin-uploads.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { CARD_CLASS as card } from '../components/styles.ts';
import { call } from '../lib/api.ts';
import { pageMeta } from '../lib/meta.ts';
import { powerServer } from '../lib/servers.ts';
import { notify } from '../lib/toasts.ts';
import { useDebounced } from '../lib/use-debounced.ts';
import { useEndpoint } from '../lib/use-endpoint.ts';
import { useSending } from '../lib/use-sending.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () =>
  pageMeta('servers-id-plugins', 'Install plugins on your Minecraft server: homes, teleport requests, kits and more.');

export default function ServerPluginsPage() {
  const { id = '' } = useParams();
  return <PluginsPage key={id} id={id} />;
}

function PluginsPage({ id }: { id: string }) {
  const load = useServer(id);
  const ready = load.status === 'ready';
  const mayManage = ready && load.server.permissions.includes('plugins.manage');
  const mayRestart = ready && load.server.permissions.includes('power.stop');
  const [query, setQuery] = useState('');
  const state = ready ? load.state : null;
  // Searched as the owner types, a moment after the last key.
  const searched = useDebounced(query.trim(), query ? 250 : 0);
  const plugins = useEndpoint(
    endpoints.plugins,
    { params: { serverId: id }, query: searched ? { q: searched } : {} },
    { enabled: ready, keepPrevious: true, failureMessage: 'The plugins could not be loaded. Please reload the page.' },
  );
  const data = plugins.load.status === 'ready' ? plugins.load.data : null;
  const failed = plugins.load.status === 'failed' ? plugins.load.message : null;
  const setData = plugins.set;

  // Asked again when the server's state changes (a restart applies the changes, so "restart needed" goes away).
  const { reload } = plugins;
  const stateSeen = useRef(state);
  useEffect(() => {
    const before = stateSeen.current;
    stateSeen.current = state;
    // The first state is the page's first read (useEndpoint asks as it becomes enabled).
    if (before !== null && state !== null && before !== state) void reload();
  }, [state, reload]);

  const change = async (request: PluginChangeRequest, done: string) => {
    const result = await call(endpoints.pluginsChange, { params: { serverId: id }, body: request });
    setData({ ...result, catalogue: data?.catalogue.map((c) => ({ ...c, installed: result.plugins.some((p) => p.id === c.id) })) ?? [] });
    notify(
      'success',
      done,
      state === 'online' || state === 'starting' ? 'Restart the server to apply it.' : 'It applies when the server starts.',
    );
  };

  return (
    <ServerShell serverId={id} load={load}>
      <div className="grid max-w-3xl gap-6">
        {data?.restartNeeded ? <RestartBanner serverId={id} mayRestart={mayRestart} /> : null}
        {failed ? (
          <p className={`${card} text-sm text-red-700`} role="alert">
            {failed}
          </p>
        ) : null}
        <InstalledSection serverId={id} data={data} mayManage={mayManage} change={change} />

        {data && data.javaSources.length > 0 ? (
          <JavaCatalogue serverId={id} sources={data.javaSources} mayManage={mayManage} onChanged={setData} />
        ) : data && !data.catalogueAvailable ? (
          <p className={`${card} text-sm text-slate-600`}>
            This server&apos;s software loads no plugins or mods. Servers running Paper or Purpur take plugins, Fabric takes mods.
          </p>
        ) : (
          <BuiltinCatalogue
            entries={data?.catalogue ?? null}
            query={query}
            onQuery={setQuery}
            mayManage={mayManage}
            onInstall={(entry) => change({ action: 'install', id: entry.id }, `${entry.name} installed`)}
          />
        )}

        {data?.catalogueAvailable && mayManage ? <UploadPlugin serverId={id} allowed={data.uploadsAllowed} onDone={setData} /> : null}
        {data && data.javaSources.length > 0 && mayManage ? (
          <UploadJar serverId={id} mods={!data.javaSources.includes('hangar')} onDone={setData} />
        ) : null}
      </div>
    </ServerShell>
  );
}

function versionsOf(id: string): string {
  const versions = builtinPlugin(id)?.versions ?? [];
  return versions.length > 1 ? `${versions.at(-1)}–${versions[0]}` : (versions[0] ?? '');
}

function InstallButton({ name, onInstall }: { name: string; onInstall: () => Promise<void> }) {
  const { sending, send } = useSending();
  return (
    <Button onClick={() => void send(onInstall).catch(() => undefined)} busy={sending} aria-label={`Install ${name}`}>
      Install
    </Button>
  );
}

/** The changes wait for a restart: said, with Restart now where the role may. */
function RestartBanner({ serverId, mayRestart }: { serverId: string; mayRestart: boolean }) {
  return (
    <div
      className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm"
      role="status"
    >
      <span className="text-amber-900">Your plugin changes apply when the server restarts.</span>
      {mayRestart ? (
        <Button
          onClick={() =>
            void powerServer(serverId, 'restart')
              .then(() => notify('success', 'Restarting', 'The plugins load as the server starts.'))
              .catch(() => undefined)
          }
        >
          Restart now
        </Button>
      ) : null}
    </div>
  );
}

type CatalogueEntry = ServerPluginsResult['catalogue'][number];

/** The built-in plugins (Spawnpoint's own), searched as typed, each installable where it fits. */
function BuiltinCatalogue(props: {
  entries: CatalogueEntry[] | null;
  query: string;
  onQuery: (query: string) => void;
  mayManage: boolean;
  onInstall: (entry: CatalogueEntry) => Promise<void>;
}) {
  const { entries, query, onQuery, mayManage, onInstall } = props;
  return (
    <section aria-labelledby="catalogue-heading" className={card}>
      <h2 id="catalogue-heading" className="text-lg font-semibold">
        Catalogue
      </h2>
      <p className="mt-1 text-sm text-slate-600">Written and kept up to date by Spawnpoint, for this server&apos;s software.</p>
      <div className="mt-3">
        <Field
          id="plugin-search"
          label="Search plugins"
          type="search"
          placeholder="homes, teleport, kit…"
          value={query}
          onChange={(e) => onQuery(e.target.value)}
        />
      </div>
      {entries && entries.length === 0 ? (
        <p className="mt-3 rounded-lg bg-slate-50 p-4 text-sm text-slate-600">No plugin matches “{query}”.</p>
      ) : null}
      <ul className="mt-3 grid gap-3 sm:grid-cols-2" data-testid="catalogue">
        {entries?.map((entry) => (
          <li key={entry.id} className="flex flex-col gap-2 rounded-lg border border-slate-200 p-3 text-sm" data-testid="catalogue-entry">
            <div className="flex items-start gap-3">
              <span
                aria-hidden
                className="grid h-10 w-10 shrink-0 place-items-center rounded-lg bg-brand-600/10 text-lg font-bold text-brand-700"
              >
                {entry.name.charAt(0)}
              </span>
              <div className="min-w-0">
                <h3 className="font-medium text-slate-900">{entry.name}</h3>
                <p className="text-xs text-slate-500">
                  Version {entry.version} · Minecraft {versionsOf(entry.id)}
                </p>
              </div>
            </div>
            <p className="text-slate-700">{entry.summary}</p>
            {entry.commands.length ? (
              <ul className="text-xs text-slate-600">
                {entry.commands.map((c) => (
                  <li key={c.usage}>
                    <code className="text-slate-800">{c.usage}</code> — {c.info}
                  </li>
                ))}
              </ul>
            ) : null}
            <div className="mt-auto pt-1">
              {entry.installed ? (
                <span className="text-emerald-700">Installed</span>
              ) : !entry.compatible ? (
                <span className="text-slate-500">Not for this server&apos;s version</span>
              ) : mayManage ? (
                <InstallButton name={entry.name} onInstall={() => onInstall(entry)} />
              ) : null}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** What is installed, one row each; a clear empty state, and the catalogue pointed to where there is one. */
function InstalledSection(props: {
  serverId: string;
  data: ServerPluginsResult | null;
  mayManage: boolean;
  change: (request: PluginChangeRequest, done: string) => Promise<void>;
}) {
  const { serverId, data, mayManage, change } = props;
  return (
    <section aria-labelledby="installed-heading" className={card}>
      <h2 id="installed-heading" className="text-lg font-semibold">
        Installed
      </h2>
      {!data ? (
        <p className="mt-3 text-sm text-slate-600" role="status">
          Loading plugins…
        </p>
      ) : data.plugins.length === 0 ? (
        <p className="mt-3 rounded-lg bg-slate-50 p-4 text-sm text-slate-600" data-testid="plugins-empty">
          No plugins yet.{' '}
          {data.catalogueAvailable ? 'Install one from the catalogue below: homes and teleport requests are the favourites.' : ''}
        </p>
      ) : (
        <ul className="mt-3 divide-y divide-slate-100" data-testid="installed-plugins">
          {data.plugins.map((p) => (
            <InstalledRow
              key={p.id}
              serverId={serverId}
              plugin={p}
              update={data.updates[p.id] ?? null}
              mayManage={mayManage}
              change={change}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
