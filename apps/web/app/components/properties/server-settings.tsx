import { endpoints, type JoinStart, type ServerDetails } from '@spawnpoint/contracts';
import { useState } from 'react';
import { call } from '../../lib/api.ts';
import { notify } from '../../lib/toasts.ts';
import { useSending } from '../../lib/use-sending.ts';
import { VersionSetting } from '../version-setting.tsx';

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
export function ServerSettings({ id, server }: { id: string; server: ServerDetails }) {
  const canEdit = server.permissions.includes('properties.update');
  return (
    <>
      <VersionSetting serverId={id} software={server.software} initial={server.version} canEdit={canEdit} />
      <JoinStartSetting serverId={id} initial={server.joinStart} joinByName={server.joinByName} canEdit={canEdit} />
      {server.proxyProtocol !== null ? <ProxyProtocolSetting serverId={id} initial={server.proxyProtocol} canEdit={canEdit} /> : null}
    </>
  );
}
