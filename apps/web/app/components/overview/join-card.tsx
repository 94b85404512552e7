import { softwareTitle, type ServerDetails, type ServerState } from '@spawnpoint/contracts';
import { Link } from 'react-router';
import { buttonClass } from '../button.tsx';
import { CopyButton } from '../copy-button.tsx';
import { PowerButtons } from '../power-buttons.tsx';

/** Why it is offline when nobody stopped it (a start that failed, a crash, a limit): the node's words say what to do. */
export function StoppedBecause({ serverId: id, reason }: { serverId: string; reason: string }) {
  return (
    <section
      role="alert"
      data-testid="stopped-because"
      className="rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-900 sm:p-6"
    >
      <h2 className="font-semibold">The server is not running</h2>
      <p className="mt-1 break-words whitespace-pre-line">{reason}</p>
      <Link to={`/servers/${id}/console`} className="mt-2 inline-block font-medium underline">
        See the console
      </Link>
    </section>
  );
}

/** How to join (by name, or directly) and the power buttons. */
export function JoinCard({ server, state }: { server: ServerDetails; state: ServerState }) {
  const id = server.serverId;
  return (
    <>
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
            <CopyButton value={server.joinAddress} label="Join address" wrap />
            <p className="flex max-w-full flex-wrap items-center gap-1 text-sm text-slate-600">
              Direct connection: <CopyButton value={`${server.host}:${server.port}`} label="Direct address" wrap />
            </p>
            {/* Joining by name works only while a join proxy is connected; otherwise nobody is left with an address that leads nowhere. */}
            <p className="text-sm text-slate-600">
              {server.joinByName
                ? 'Add the join address in Minecraft. Joining starts a stopped server: the first join waits a few seconds while it starts.'
                : 'Joining by name is not available right now (the join proxy is not running): use the direct connection in Minecraft.'}
            </p>
          </div>
          <p className="mt-3 text-sm text-slate-600">
            {softwareTitle(server.software)} server, Minecraft {server.version}. Join with Minecraft Java Edition {server.version}.
          </p>
        </div>
        <div className="min-w-0">
          <h2 className="text-sm font-semibold uppercase tracking-wide text-slate-500">Power</h2>
          <div className="mt-2">
            <PowerButtons serverId={id} state={state} permissions={server.permissions} eulaAccepted={server.eulaAccepted} />
          </div>
          <Link to={`/servers/${id}/console`} className={buttonClass('secondary', 'mt-4')}>
            Open the console
          </Link>
        </div>
      </section>
    </>
  );
}
