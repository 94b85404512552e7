import {
  builtinPlugin,
  endpoints,
  javaPluginSourceNames,
  PLUGIN_JAR_MAX_BYTES,
  PLUGIN_UPLOAD_MAX_BYTES,
  type InstalledPlugin,
  type JavaCatalogueResult,
  type JavaPluginSource,
  type JavaPluginVersionsResult,
  type PluginChangeRequest,
  type PluginSettingField,
  type ServerPluginsResult,
} from '@spawnpoint/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { Field, FILE_INPUT_CLASS, FormError } from '../components/field.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { ApiFailure, call } from '../lib/api.ts';
import { openDialog } from '../lib/dialogs.ts';
import { uploadPluginJar } from '../lib/files.ts';
import { pageMeta } from '../lib/meta.ts';
import { powerServer } from '../lib/servers.ts';
import { notify } from '../lib/toasts.ts';
import { useSending } from '../lib/use-sending.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () =>
  pageMeta('servers-id-plugins', 'Install plugins on your Minecraft server: homes, teleport requests, kits and more.');

const card = 'rounded-xl border border-slate-200 bg-white p-4 sm:p-6';

export default function ServerPluginsPage() {
  const { id = '' } = useParams();
  return <PluginsPage key={id} id={id} />;
}

function PluginsPage({ id }: { id: string }) {
  const load = useServer(id);
  const ready = load.status === 'ready';
  const mayManage = ready && load.server.permissions.includes('plugins.manage');
  const mayRestart = ready && load.server.permissions.includes('power.stop');
  const [data, setData] = useState<ServerPluginsResult | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  const state = ready ? load.state : null;

  const reload = useCallback(
    async (q: string) => {
      try {
        setData(await call(endpoints.plugins, { params: { serverId: id }, query: q.trim() ? { q: q.trim() } : {} }, { background: true }));
        setFailed(null);
      } catch (failure) {
        setFailed(failure instanceof ApiFailure ? failure.message : 'The plugins could not be loaded. Please reload the page.');
      }
    },
    [id],
  );

  // Searched as the owner types, a moment after the last key; and again when the server's state changes
  // (a restart applies the changes, so "restart needed" goes away).
  useEffect(() => {
    if (!ready) return;
    const timer = setTimeout(() => void reload(query), query ? 250 : 0);
    return () => clearTimeout(timer);
  }, [ready, query, state, reload]);

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
        {data?.restartNeeded ? (
          <div
            className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm"
            role="status"
          >
            <span className="text-amber-900">Your plugin changes apply when the server restarts.</span>
            {mayRestart ? (
              <Button
                onClick={() =>
                  void powerServer(id, 'restart')
                    .then(() => notify('success', 'Restarting', 'The plugins load as the server starts.'))
                    .catch(() => undefined)
                }
              >
                Restart now
              </Button>
            ) : null}
          </div>
        ) : null}
        {failed ? (
          <p className={`${card} text-sm text-red-700`} role="alert">
            {failed}
          </p>
        ) : null}
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
                  serverId={id}
                  plugin={p}
                  update={data.updates[p.id] ?? null}
                  mayManage={mayManage}
                  change={change}
                />
              ))}
            </ul>
          )}
        </section>

        {data && data.javaSources.length > 0 ? (
          <JavaCatalogue serverId={id} sources={data.javaSources} mayManage={mayManage} onChanged={setData} />
        ) : data && !data.catalogueAvailable ? (
          <p className={`${card} text-sm text-slate-600`}>
            This server&apos;s software loads no plugins or mods. Servers running Paper or Purpur take plugins, Fabric takes mods.
          </p>
        ) : (
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
                onChange={(e) => setQuery(e.target.value)}
              />
            </div>
            {data && data.catalogue.length === 0 ? (
              <p className="mt-3 rounded-lg bg-slate-50 p-4 text-sm text-slate-600">No plugin matches “{query}”.</p>
            ) : null}
            <ul className="mt-3 grid gap-3 sm:grid-cols-2" data-testid="catalogue">
              {data?.catalogue.map((entry) => (
                <li
                  key={entry.id}
                  className="flex flex-col gap-2 rounded-lg border border-slate-200 p-3 text-sm"
                  data-testid="catalogue-entry"
                >
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
                      <InstallButton
                        name={entry.name}
                        onInstall={() => change({ action: 'install', id: entry.id }, `${entry.name} installed`)}
                      />
                    ) : null}
                  </div>
                </li>
              ))}
            </ul>
          </section>
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

function InstalledRow({
  serverId,
  plugin: p,
  update,
  mayManage,
  change,
}: {
  serverId: string;
  plugin: InstalledPlugin;
  /** A newer version in its catalogue. */
  update: string | null;
  mayManage: boolean;
  change: (request: PluginChangeRequest, done: string) => Promise<void>;
}) {
  const { sending, send } = useSending();
  const [editing, setEditing] = useState(false);
  const [choosing, setChoosing] = useState(false);
  const manifest = p.source === 'builtin' ? builtinPlugin(p.id) : undefined;
  // A refusal is shown as a toast by the call.
  const toggle = () =>
    void send(() => change({ action: p.enabled ? 'disable' : 'enable', id: p.id }, `${p.name} turned ${p.enabled ? 'off' : 'on'}`)).catch(
      () => undefined,
    );
  const remove = () =>
    openDialog('confirm', {
      title: `Remove ${p.name}?`,
      message:
        p.source === 'upload'
          ? `${p.folder}/${p.file} is deleted.`
          : 'Its settings are forgotten; what players saved with it stays in the plugins folder.',
      confirmLabel: 'Remove',
      danger: true,
      onConfirm: () => change({ action: 'remove', id: p.id }, `${p.name} removed`),
    });
  return (
    <li className="grid gap-2 py-3 text-sm" data-testid="installed-plugin">
      <div className="flex flex-wrap items-baseline justify-between gap-x-3">
        <span className="min-w-0 font-medium break-words text-slate-900">{p.name}</span>
        <span className="text-xs text-slate-500">
          {p.source === 'upload'
            ? `Your file ${p.file}${p.version ? ` · version ${p.version}` : ''} · SHA-256 ${p.sha256?.slice(0, 12)}…`
            : p.source === 'builtin'
              ? `Version ${p.version}`
              : `${javaPluginSourceNames[p.source]} · version ${p.version}`}
        </span>
      </div>
      <span className="flex flex-wrap items-center gap-2">
        <span className={p.enabled ? 'text-emerald-700' : 'text-slate-500'}>{p.enabled ? 'On' : 'Off'}</span>
        {update ? (
          <span className="rounded-full bg-sky-100 px-2 py-0.5 text-xs font-medium text-sky-800" data-testid="update-available">
            Update available: {update}
          </span>
        ) : null}
      </span>
      {mayManage ? (
        <div className="flex flex-wrap gap-2">
          {update ? (
            <Button
              onClick={() =>
                void send(() => change({ action: 'update', id: p.id }, `${p.name} updated to ${update}`)).catch(() => undefined)
              }
              busy={sending}
              aria-label={`Update ${p.name} to ${update}`}
            >
              Update
            </Button>
          ) : null}
          <Button variant="secondary" onClick={toggle} disabled={sending} aria-label={`${p.enabled ? 'Turn off' : 'Turn on'} ${p.name}`}>
            {p.enabled ? 'Turn off' : 'Turn on'}
          </Button>
          {(p.source === 'modrinth' || p.source === 'hangar') && p.projectId ? (
            <Button
              variant="secondary"
              onClick={() => setChoosing((c) => !c)}
              aria-expanded={choosing}
              aria-label={`Versions of ${p.name}`}
            >
              Versions
            </Button>
          ) : null}
          {manifest && manifest.settings.length ? (
            <Button variant="secondary" onClick={() => setEditing((e) => !e)} aria-expanded={editing} aria-label={`Settings of ${p.name}`}>
              Settings
            </Button>
          ) : null}
          <Button variant="danger" onClick={remove} aria-label={`Remove ${p.name}`}>
            Remove
          </Button>
        </div>
      ) : null}
      {choosing && (p.source === 'modrinth' || p.source === 'hangar') && p.projectId ? (
        <VersionPicker
          serverId={serverId}
          source={p.source}
          projectId={p.projectId}
          name={p.name}
          onChoose={async (versionId, version) => {
            await change({ action: 'update', id: p.id, versionId }, `${p.name} ${version} installed`);
            setChoosing(false);
          }}
        />
      ) : null}
      {editing && manifest ? (
        <SettingsForm
          plugin={p}
          fields={manifest.settings}
          onSave={async (settings) => {
            await change({ action: 'settings', id: p.id, settings }, `${p.name} settings saved`);
            setEditing(false);
          }}
        />
      ) : null}
    </li>
  );
}

function SettingsForm({
  plugin,
  fields,
  onSave,
}: {
  plugin: InstalledPlugin;
  fields: PluginSettingField[];
  onSave: (settings: Record<string, unknown>) => Promise<void>;
}) {
  const [values, setValues] = useState<Record<string, unknown>>(() =>
    Object.fromEntries(fields.map((f) => [f.key, plugin.settings[f.key] ?? f.default])),
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string>();
  const { sending, send } = useSending();
  const set = (key: string, value: unknown) => setValues((v) => ({ ...v, [key]: value }));
  const idOf = (key: string) => `plugin-${plugin.id}-${key}`;

  function submit(event: React.FormEvent) {
    event.preventDefault();
    void send(async () => {
      setErrors({});
      setFormError(undefined);
      try {
        await onSave(values);
      } catch (failure) {
        if (!(failure instanceof ApiFailure)) return;
        const byKey = Object.fromEntries(Object.entries(failure.fields).map(([k, m]) => [k.replace(/^settings\./, ''), m]));
        setErrors(byKey);
        if (Object.keys(byKey).length === 0) setFormError(failure.message);
      }
    });
  }

  return (
    <form onSubmit={submit} noValidate className="grid gap-3 rounded-lg bg-slate-50 p-3" aria-label={`Settings of ${plugin.name}`}>
      {fields.map((f) => {
        const id = idOf(f.key);
        const hint = f.help ? <p className="mt-1 text-xs text-slate-500">{f.help}</p> : null;
        switch (f.kind) {
          case 'text':
            return (
              <div key={f.key}>
                <Field
                  id={id}
                  label={f.label}
                  maxLength={f.maxLength}
                  value={String(values[f.key] ?? '')}
                  onChange={(e) => set(f.key, e.target.value)}
                  error={errors[f.key]}
                />
                {hint}
              </div>
            );
          case 'number':
            return (
              <div key={f.key}>
                <Field
                  id={id}
                  label={f.unit ? `${f.label} (${f.unit})` : f.label}
                  type="number"
                  min={f.min}
                  max={f.max}
                  value={String(values[f.key] ?? '')}
                  onChange={(e) => set(f.key, e.target.value === '' ? '' : Number(e.target.value))}
                  error={errors[f.key]}
                />
                {hint}
              </div>
            );
          case 'boolean':
            return (
              <label key={f.key} className="flex items-start gap-2 text-sm">
                <input type="checkbox" className="mt-1" checked={values[f.key] === true} onChange={(e) => set(f.key, e.target.checked)} />
                <span>{f.label}</span>
              </label>
            );
          case 'lines':
            return (
              <div key={f.key}>
                <label htmlFor={id} className="block text-sm font-medium text-slate-700">
                  {f.label}
                </label>
                <textarea
                  id={id}
                  rows={4}
                  className={`mt-1 block w-full rounded-md border px-3 py-2 font-mono text-xs text-slate-900 ${errors[f.key] ? 'border-red-500' : 'border-slate-300'}`}
                  value={((values[f.key] as string[] | undefined) ?? []).join('\n')}
                  onChange={(e) => set(f.key, e.target.value.split('\n'))}
                />
                {errors[f.key] ? (
                  <p role="alert" className="mt-1 text-sm text-red-600">
                    {errors[f.key]}
                  </p>
                ) : null}
                {hint}
              </div>
            );
        }
      })}
      <FormError message={formError} />
      <div>
        <Button type="submit" busy={sending}>
          Save settings
        </Button>
      </div>
    </form>
  );
}

function UploadPlugin({
  serverId,
  allowed,
  onDone,
}: {
  serverId: string;
  allowed: boolean;
  onDone: (result: ServerPluginsResult) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string>();
  const { sending, send } = useSending();

  const upload = (file: File) =>
    void send(async () => {
      setError(undefined);
      // Said before sending anything: the API would refuse it for the same reasons.
      if (!file.name.endsWith('.js')) return setError('A plugin of your own is a .js file.');
      if (file.size > PLUGIN_UPLOAD_MAX_BYTES) return setError(`${file.name} is larger than ${PLUGIN_UPLOAD_MAX_BYTES / 1024} KiB.`);
      const bytes = new Uint8Array(await file.arrayBuffer());
      let binary = '';
      for (const byte of bytes) binary += String.fromCharCode(byte);
      try {
        onDone(await call(endpoints.pluginUpload, { params: { serverId }, body: { fileName: file.name, content: btoa(binary) } }));
        notify('success', `${file.name} uploaded`, 'It loads when the server starts.');
      } catch (failure) {
        if (failure instanceof ApiFailure) setError(Object.values(failure.fields)[0] ?? failure.message);
      } finally {
        if (input.current) input.current.value = '';
      }
    });

  return (
    <section aria-labelledby="upload-heading" className={card}>
      <h2 id="upload-heading" className="text-lg font-semibold">
        Your own plugin
      </h2>
      {allowed ? (
        <>
          <p className="mt-1 text-sm text-slate-600">
            A flying-squid plugin: a <code>.js</code> file exporting <code>server</code> and/or <code>player</code> functions, at most{' '}
            {PLUGIN_UPLOAD_MAX_BYTES / 1024} KiB. It runs inside your server&apos;s own sandbox, never beside other servers.
          </p>
          <label htmlFor="plugin-file" className="mt-3 block text-sm font-medium text-slate-700">
            Plugin file
          </label>
          <input
            ref={input}
            id="plugin-file"
            type="file"
            accept=".js,text/javascript"
            disabled={sending}
            className={`mt-1 ${FILE_INPUT_CLASS}`}
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) upload(file);
            }}
          />
          <div className="mt-2">
            <FormError message={error} />
          </div>
        </>
      ) : (
        <p className="mt-1 text-sm text-slate-600">
          This node runs game servers without their sandbox, so it does not run plugin code of your own. The catalogue&apos;s plugins work.
        </p>
      )}
    </section>
  );
}

/** Modrinth and Hangar, searched for what fits the server's software and version; installed with one click. */
function JavaCatalogue({
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
  const [found, setFound] = useState<JavaCatalogueResult | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [installing, setInstalling] = useState<string | null>(null);
  const [choosing, setChoosing] = useState<string | null>(null);
  // Installed from this page: a search that answers after the install (started before it) must not show
  // the entry as not installed again.
  const [installedHere, setInstalledHere] = useState<ReadonlySet<string>>(new Set());
  const installs = useRef(0);

  // Searched a moment after the last key; a catalogue that cannot answer is said in its own words.
  useEffect(() => {
    let active = true;
    const timer = setTimeout(
      () => {
        const installsBefore = installs.current;
        void call(
          endpoints.pluginCatalogue,
          { params: { serverId }, query: { source, q: query.trim() || undefined, page } },
          { background: true },
        ).then(
          (result) => {
            if (!active) return;
            setFound(result);
            // Asked after every install of this page: the catalogue's own answer says what is installed.
            if (installs.current === installsBefore) setInstalledHere(new Set());
            setProblem(null);
          },
          (failure: unknown) => {
            if (active)
              setProblem(failure instanceof ApiFailure ? failure.message : 'The catalogue could not be searched. Try again in a minute.');
          },
        );
      },
      query ? 300 : 0,
    );
    return () => {
      active = false;
      clearTimeout(timer);
    };
  }, [serverId, source, query, page]);

  const install = async (projectId: string, name: string, versionId?: string) => {
    setInstalling(projectId);
    try {
      const result = await call(endpoints.pluginsChange, {
        params: { serverId },
        body: { action: 'install-project', source, projectId, ...(versionId ? { versionId } : {}) },
      });
      onChanged(result);
      installs.current += 1;
      setInstalledHere((ids) => new Set(ids).add(projectId));
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
              onChange={(e) => {
                setSource(e.target.value as JavaPluginSource);
                setPage(1);
              }}
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
            onChange={(e) => {
              setQuery(e.target.value);
              setPage(1);
            }}
          />
        </div>
      </div>
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
            <li
              key={entry.projectId}
              className="flex flex-col gap-2 rounded-lg border border-slate-200 p-3 text-sm"
              data-testid="java-catalogue-entry"
            >
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
                  <span
                    aria-hidden
                    className="grid h-10 w-10 shrink-0 place-items-center rounded-lg bg-slate-100 text-lg font-bold text-slate-600"
                  >
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
                {entry.installed || installedHere.has(entry.projectId) ? (
                  <span className="text-emerald-700">Installed</span>
                ) : mayManage ? (
                  <span className="flex flex-wrap gap-2">
                    <Button
                      onClick={() => void install(entry.projectId, entry.name)}
                      busy={installing === entry.projectId}
                      disabled={installing !== null}
                      aria-label={`Install ${entry.name}`}
                    >
                      Install
                    </Button>
                    <Button
                      variant="secondary"
                      onClick={() => setChoosing((c) => (c === entry.projectId ? null : entry.projectId))}
                      aria-expanded={choosing === entry.projectId}
                      aria-label={`Other versions of ${entry.name}`}
                    >
                      Other versions
                    </Button>
                  </span>
                ) : null}
              </div>
              {choosing === entry.projectId && !entry.installed && !installedHere.has(entry.projectId) ? (
                <VersionPicker
                  serverId={serverId}
                  source={source}
                  projectId={entry.projectId}
                  name={entry.name}
                  onChoose={(versionId) => install(entry.projectId, entry.name, versionId)}
                />
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {found && pages > 1 ? (
        <nav className="mt-4 flex items-center justify-between gap-3 text-sm" aria-label="Catalogue pages">
          <Button variant="secondary" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
            Previous
          </Button>
          <span className="text-slate-600">
            Page {found.page} of {pages}
          </span>
          <Button variant="secondary" disabled={page >= pages} onClick={() => setPage((p) => p + 1)}>
            Next
          </Button>
        </nav>
      ) : null}
    </section>
  );
}

/** A catalogue project's versions for this server, newest first, to install one in particular. */
function VersionPicker({
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
  const [found, setFound] = useState<JavaPluginVersionsResult | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [chosen, setChosen] = useState('');
  const { sending, send } = useSending();
  const pickerId = `versions-${source}-${projectId}`;

  useEffect(() => {
    let active = true;
    call(endpoints.pluginVersions, { params: { serverId }, query: { source, projectId } }, { background: true }).then(
      (result) => {
        if (!active) return;
        setFound(result);
        setChosen(result.versions.find((v) => v.versionId !== result.installedVersionId)?.versionId ?? '');
      },
      (failure: unknown) => {
        if (active)
          setProblem(failure instanceof ApiFailure ? failure.message : 'The versions could not be loaded. Try again in a minute.');
      },
    );
    return () => {
      active = false;
    };
  }, [serverId, source, projectId]);

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
function UploadJar({ serverId, mods, onDone }: { serverId: string; mods: boolean; onDone: (result: ServerPluginsResult) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string>();
  const [progress, setProgress] = useState<{ name: string; loaded: number; total: number } | null>(null);
  const kind = mods ? 'mod' : 'plugin';

  const upload = async (file: File) => {
    setError(undefined);
    // Said before sending anything: the API would refuse it for the same reasons.
    if (!file.name.endsWith('.jar')) return setError(`A ${kind} is a .jar file.`);
    if (file.size > PLUGIN_JAR_MAX_BYTES) return setError(`${file.name} is larger than ${PLUGIN_JAR_MAX_BYTES / 1024 / 1024} MiB.`);
    setProgress({ name: file.name, loaded: 0, total: file.size });
    try {
      const result = await uploadPluginJar(serverId, file, (loaded) => setProgress((p) => p && { ...p, loaded }));
      onDone(result);
      notify('success', `${file.name} uploaded`, 'It loads when the server (re)starts.');
    } catch (failure) {
      if (failure instanceof ApiFailure) setError(Object.values(failure.fields)[0] ?? failure.message);
    } finally {
      setProgress(null);
      if (input.current) input.current.value = '';
    }
  };

  return (
    <section aria-labelledby="upload-jar-heading" className={card}>
      <h2 id="upload-jar-heading" className="text-lg font-semibold">
        Upload a {kind} of your own
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        A <code>.jar</code> of at most {PLUGIN_JAR_MAX_BYTES / 1024 / 1024} MiB that holds{' '}
        {mods ? (
          <code>fabric.mod.json</code>
        ) : (
          <>
            <code>plugin.yml</code> or <code>paper-plugin.yml</code>
          </>
        )}
        . It goes into <code>{mods ? 'mods' : 'plugins'}/</code> and loads at the next start.
      </p>
      <label htmlFor="plugin-jar" className="mt-3 block text-sm font-medium text-slate-700">
        {mods ? 'Mod' : 'Plugin'} file
      </label>
      <input
        ref={input}
        id="plugin-jar"
        type="file"
        accept=".jar,application/java-archive"
        disabled={progress !== null}
        className={`mt-1 ${FILE_INPUT_CLASS}`}
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file) void upload(file);
        }}
      />
      {progress ? (
        <div className="mt-3 text-sm text-slate-700" role="status">
          Uploading {progress.name}…
          <progress
            className="mt-1 h-2 w-full accent-brand-600"
            max={progress.total || 1}
            value={progress.loaded}
            aria-label="Upload progress"
          />
        </div>
      ) : null}
      <div className="mt-2">
        <FormError message={error} />
      </div>
    </section>
  );
}
