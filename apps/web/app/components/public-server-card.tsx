import { findSoftware, parseMotd, type PublicServerEntry } from '@spawnpoint/contracts';
import { Link } from 'react-router';
import { CopyButton } from './copy-button.tsx';
import { ServerListRow } from './server-list-row.tsx';
import { StateBadge } from './state-badge.tsx';

/** A server of the public list: its entry as Minecraft shows it, its software, state and the address to copy. */
export function PublicServerCard({ server, linked = true }: { server: PublicServerEntry; linked?: boolean }) {
  const address = server.joinAddress ?? server.address;
  return (
    <div className="flex min-w-0 flex-col gap-3 rounded-xl border border-slate-200 bg-white p-4 sm:p-5" data-testid="public-server">
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <h3 className="text-lg font-bold break-words">
            {linked ? (
              <Link to={`/server-list/${server.name}`} className="hover:underline">
                {server.name}
              </Link>
            ) : (
              server.name
            )}
          </h3>
          <p className="text-sm text-slate-600">
            {findSoftware(server.software)?.name ?? server.software} {server.version}
          </p>
        </div>
        <StateBadge state={server.state} />
      </div>
      <ServerListRow
        name={server.name}
        icon={server.icon}
        fallbackId={server.name}
        lines={parseMotd(server.motd).lines}
        players={server.players}
      />
      <p className="text-sm text-slate-700">
        <strong className="tabular-nums">
          {server.players.online} / {server.players.max}
        </strong>{' '}
        players online
        {server.joinAddress && server.state === 'sleeping' ? ' · joining wakes it' : ''}
      </p>
      <CopyButton value={address} label={`Address of ${server.name}`} />
    </div>
  );
}
