import {
  endpoints,
  MOTD_RAW_MAX,
  type JoinStart,
  type ServerDetails,
  type ServerProperties,
  type ServerPropertiesView,
} from '@spawnpoint/contracts';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { Button } from '../components/button.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { VersionSetting } from '../components/version-setting.tsx';
import { ApiFailure, call } from '../lib/api.ts';
import { getProperties, putProperties } from '../lib/files.ts';
import { pageMeta } from '../lib/meta.ts';
import { powerServer } from '../lib/servers.ts';
import { notify } from '../lib/toasts.ts';
import { useSending } from '../lib/use-sending.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-properties', 'Settings of your Minecraft server.');

const input = 'mt-1 block w-full rounded-md border border-slate-300 px-3 py-2';

export default function ServerPropertiesPage() {
  const { id = '' } = useParams();
  const load = useServer(id);
  const [values, setValues] = useState<ServerPropertiesView | null>(null);
  // As last read or saved: only what the user changed is sent, so a value the form would refuse (a tenant
  // can write anything into the file) or a two-line MOTD from the Appearance page is kept unless edited.
  const [loaded, setLoaded] = useState<ServerPropertiesView | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const { sending: saving, send } = useSending();
  const [saved, setSaved] = useState(false);
  const show = (read: ServerPropertiesView) => {
    setValues(read);
    setLoaded(read);
  };

  useEffect(() => {
    if (load.status === 'ready') getProperties(id).then(show, () => undefined);
  }, [id, load.status]);

  const set = <K extends keyof ServerPropertiesView>(key: K, value: ServerPropertiesView[K]) =>
    setValues((v) => (v ? { ...v, [key]: value } : v));

  // Spawn protection and the nether exist on Java servers only; the API sends them only for those.
  const javaOnly = values?.['spawn-protection'] !== undefined;

  function save(event: React.FormEvent) {
    event.preventDefault();
    if (!values) return;
    const changed = Object.fromEntries(
      Object.entries(values).filter(([key, value]) => loaded?.[key as keyof ServerPropertiesView] !== value),
    ) as Partial<ServerProperties>;
    if (Object.keys(changed).length === 0) {
      notify('info', 'Nothing to save', 'No setting was changed.');
      return;
    }
    void send(async () => {
      setErrors({});
      try {
        show(await putProperties(id, changed));
        setSaved(true);
        notify('success', 'Settings saved', 'They apply the next time the server starts.');
      } catch (err) {
        if (err instanceof ApiFailure) setErrors(err.fields);
      }
    });
  }

  const running = load.status === 'ready' && load.state === 'online';
  return (
    <ServerShell serverId={id} load={load}>
      {!values ? (
        <p role="status">Loading…</p>
      ) : (
        <form onSubmit={save} className="max-w-2xl space-y-5 rounded-xl border border-slate-200 bg-white p-6" noValidate>
          <div>
            <label htmlFor="p-motd" className="block text-sm font-medium text-slate-700">
              Message of the day
            </label>
            <input
              id="p-motd"
              className={input}
              value={values.motd}
              maxLength={MOTD_RAW_MAX}
              onChange={(e) => set('motd', e.target.value)}
            />
            <p className="mt-1 text-xs text-slate-500">
              Shown in the players’ server list. Colours and a second line:{' '}
              <Link to={`/servers/${id}/appearance`} className="underline">
                Appearance
              </Link>
              .
            </p>
            {errors.motd ? <p className="text-sm text-red-600">{errors.motd}</p> : null}
          </div>
          <div className="grid gap-5 sm:grid-cols-2">
            <div>
              <label htmlFor="p-max" className="block text-sm font-medium text-slate-700">
                Max players
              </label>
              <input
                id="p-max"
                type="number"
                min={1}
                max={load.status === 'ready' ? load.server.playerSlots : undefined}
                className={input}
                value={values['max-players']}
                onChange={(e) => set('max-players', Number(e.target.value))}
              />
              {load.status === 'ready' ? (
                <p className="mt-1 text-xs text-slate-500">Up to {load.server.playerSlots} on this server’s plan.</p>
              ) : null}
              {errors['max-players'] ? <p className="text-sm text-red-600">{errors['max-players']}</p> : null}
            </div>
            <div>
              <label htmlFor="p-view" className="block text-sm font-medium text-slate-700">
                View distance (chunks)
              </label>
              <input
                id="p-view"
                type="number"
                min={2}
                max={32}
                className={input}
                value={values['view-distance']}
                onChange={(e) => set('view-distance', Number(e.target.value))}
              />
              {errors['view-distance'] ? <p className="text-sm text-red-600">{errors['view-distance']}</p> : null}
            </div>
            <div>
              <label htmlFor="p-mode" className="block text-sm font-medium text-slate-700">
                Game mode
              </label>
              <select
                id="p-mode"
                className={input}
                value={values.gamemode}
                onChange={(e) => set('gamemode', e.target.value as ServerProperties['gamemode'])}
              >
                <option value="survival">Survival</option>
                <option value="creative">Creative</option>
                <option value="adventure">Adventure</option>
                <option value="spectator">Spectator</option>
              </select>
            </div>
            <div>
              <label htmlFor="p-difficulty" className="block text-sm font-medium text-slate-700">
                Difficulty
              </label>
              <select
                id="p-difficulty"
                className={input}
                value={values.difficulty}
                onChange={(e) => set('difficulty', e.target.value as ServerProperties['difficulty'])}
              >
                <option value="peaceful">Peaceful</option>
                <option value="easy">Easy</option>
                <option value="normal">Normal</option>
                <option value="hard">Hard</option>
              </select>
            </div>
            <div>
              <label htmlFor="p-type" className="block text-sm font-medium text-slate-700">
                World type
              </label>
              <select
                id="p-type"
                className={input}
                value={values['level-type']}
                onChange={(e) => set('level-type', e.target.value as ServerProperties['level-type'])}
              >
                <option value="default">Default</option>
                <option value="flat">Flat</option>
              </select>
            </div>
            <div>
              <label htmlFor="p-seed" className="block text-sm font-medium text-slate-700">
                World seed
              </label>
              <input
                id="p-seed"
                className={input}
                value={values['level-seed']}
                inputMode="numeric"
                onChange={(e) => set('level-seed', e.target.value)}
                placeholder="Random"
              />
              {errors['level-seed'] ? <p className="text-sm text-red-600">{errors['level-seed']}</p> : null}
            </div>
          </div>
          <p className="text-xs text-slate-500">
            World type and seed only shape a new world: delete the world folder in Files to generate it again.
          </p>
          <fieldset className="space-y-3">
            <legend className="text-sm font-medium text-slate-700">Players</legend>
            <label className="flex items-start gap-2">
              <input type="checkbox" className="mt-1" checked={values.pvp} onChange={(e) => set('pvp', e.target.checked)} />
              <span>
                PvP <span className="block text-xs text-slate-500">Players can hurt each other.</span>
              </span>
            </label>
            <label className="flex items-start gap-2">
              <input
                type="checkbox"
                className="mt-1"
                checked={values['white-list']}
                onChange={(e) => set('white-list', e.target.checked)}
              />
              <span>
                Whitelist
                <span className="block text-xs text-slate-500">
                  Only players on the whitelist (and operators) can join. Manage it on the{' '}
                  <Link to={`/servers/${encodeURIComponent(id)}/players`} className="text-brand-700 underline">
                    Players
                  </Link>{' '}
                  page, where it also changes a running server at once.
                </span>
              </span>
            </label>
            {!javaOnly ? null : (
              <>
                <label className="flex items-start gap-2">
                  <input
                    type="checkbox"
                    className="mt-1"
                    checked={values['allow-nether'] ?? true}
                    onChange={(e) => set('allow-nether', e.target.checked)}
                  />
                  <span>
                    Allow the nether <span className="block text-xs text-slate-500">Nether portals take players there.</span>
                  </span>
                </label>
                <div>
                  <label htmlFor="p-spawn" className="block text-sm font-medium text-slate-700">
                    Spawn protection (blocks)
                  </label>
                  <input
                    id="p-spawn"
                    type="number"
                    min={0}
                    max={64}
                    className={`${input} sm:max-w-40`}
                    value={values['spawn-protection']}
                    onChange={(e) => set('spawn-protection', Number(e.target.value))}
                  />
                  <p className="mt-1 text-xs text-slate-500">
                    Players who are not operators cannot break or place blocks this close to the spawn; 0 turns it off.
                  </p>
                  {errors['spawn-protection'] ? <p className="text-sm text-red-600">{errors['spawn-protection']}</p> : null}
                </div>
              </>
            )}
            {!javaOnly ? (
              <p className="text-xs text-slate-500">
                The built-in runtime has no fixed spawn and no nether portals, so spawn protection and the nether are settings of Java
                servers only.
              </p>
            ) : null}
          </fieldset>
          <div className="flex flex-wrap items-center gap-3">
            <Button type="submit" busy={saving}>
              Save
            </Button>
            {saved && running ? (
              <Button
                type="button"
                variant="secondary"
                onClick={async () => {
                  await powerServer(id, 'restart').catch(() => undefined);
                  setSaved(false);
                }}
              >
                Restart now to apply
              </Button>
            ) : null}
          </div>
        </form>
      )}
      {load.status === 'ready' ? <ServerSettings id={id} server={load.server} /> : null}
    </ServerShell>
  );
}

const joinStartChoices: { value: JoinStart; label: string; hint: string }[] = [
  { value: 'always', label: 'Always', hint: 'A player joining starts the server when it is offline or asleep.' },
  {
    value: 'sleeping',
    label: 'Only from sleep',
    hint: 'A player wakes it after it fell asleep by itself; once you press Stop, only you start it again.',
  },
  { value: 'never', label: 'Never', hint: 'Only Start on the dashboard starts it; players see that it is offline.' },
];

/**
 * Whether a player joining by name starts the server (the join proxy asks the API, which checks this): a
 * stranger who knows the name could otherwise start it, using the owner's play time.
 */
function JoinStartSetting({
  serverId,
  initial,
  joinByName,
  canEdit,
}: {
  serverId: string;
  initial: JoinStart;
  joinByName: boolean;
  canEdit: boolean;
}) {
  const [value, setValue] = useState(initial);
  const { sending, send } = useSending();
  // Shown chosen at once; a refused save puts the previous choice back (the error is toasted).
  const choose = (next: JoinStart) => {
    if (sending) return;
    const previous = value;
    setValue(next);
    void send(async () => {
      const details = await call(endpoints.serverJoinStart, { params: { serverId }, body: { joinStart: next } });
      setValue(details.joinStart);
      notify('success', 'Saved', joinStartChoices.find((c) => c.value === details.joinStart)?.hint ?? '');
    }).catch(() => setValue(previous));
  };
  return (
    <section aria-labelledby="join-start-heading" className="mt-6 max-w-2xl rounded-xl border border-slate-200 bg-white p-6">
      <h2 id="join-start-heading" className="text-lg font-semibold">
        Starting when a player joins
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        {joinByName
          ? 'Players who join by name come through the join proxy, which can start a stopped server for them.'
          : 'Applies when joining by name is available (no join proxy is running right now).'}
      </p>
      <fieldset className="mt-3 space-y-2" disabled={!canEdit || sending}>
        <legend className="sr-only">Start the server when a player joins</legend>
        {joinStartChoices.map((choice) => (
          <label key={choice.value} className="flex items-start gap-3 text-sm">
            <input
              type="radio"
              name="join-start"
              value={choice.value}
              checked={value === choice.value}
              onChange={() => choose(choice.value)}
              className="mt-0.5 size-4 shrink-0"
            />
            <span>
              <span className="font-medium">{choice.label}</span>
              <span className="block text-slate-600">{choice.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
    </section>
  );
}

/**
 * Java servers behind the join proxy see the proxy's address for every player, unless both ends speak the
 * PROXY protocol: the server must expect it first (Paper and Purpur: `proxies.proxy-protocol: true` in
 * `config/paper-global.yml`), or nobody can join by name.
 */
function ProxyProtocolSetting({ serverId, initial, canEdit }: { serverId: string; initial: boolean; canEdit: boolean }) {
  const [enabled, setEnabled] = useState(initial);
  const { sending, send } = useSending();
  const toggle = () =>
    void send(async () => {
      const details = await call(endpoints.serverProxyProtocol, { params: { serverId }, body: { enabled: !enabled } });
      setEnabled(details.proxyProtocol === true);
      notify(
        'success',
        details.proxyProtocol ? "Players' real addresses are sent" : 'Real addresses are no longer sent',
        'For joins from now on.',
      );
    }).catch(() => undefined);
  return (
    <section aria-labelledby="proxy-protocol-heading" className="mt-6 max-w-2xl rounded-xl border border-slate-200 bg-white p-6">
      <h2 id="proxy-protocol-heading" className="text-lg font-semibold">
        Players&apos; real addresses
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Players who join by name come through Spawnpoint&apos;s join proxy, so the server sees the proxy&apos;s address for all of them
        (bans by address and logs need the real one). With this on, the proxy sends each player&apos;s address first with the PROXY protocol
        v2. Turn on <code>proxies.proxy-protocol: true</code> in <code>config/paper-global.yml</code> first: a server that does not expect
        it refuses everyone who joins by name.
      </p>
      <label className="mt-3 flex items-center gap-3 text-sm font-medium">
        <input type="checkbox" role="switch" checked={enabled} disabled={!canEdit || sending} onChange={toggle} className="size-4" />
        Send players&apos; real addresses (PROXY protocol v2)
      </label>
    </section>
  );
}

/** The settings kept by the API rather than in server.properties: version, joins and the PROXY protocol. */
function ServerSettings({ id, server }: { id: string; server: ServerDetails }) {
  const canEdit = server.permissions.includes('properties.update');
  return (
    <>
      <VersionSetting serverId={id} software={server.software} initial={server.version} canEdit={canEdit} />
      <JoinStartSetting serverId={id} initial={server.joinStart} joinByName={server.joinByName} canEdit={canEdit} />
      {server.proxyProtocol !== null ? <ProxyProtocolSetting serverId={id} initial={server.proxyProtocol} canEdit={canEdit} /> : null}
    </>
  );
}
