import { rolePermissions } from '@spawnpoint/contracts';
import { Link } from 'react-router';
import { buttonClass } from '../components/button.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { ServerIcon } from '../components/pixel-art.tsx';
import { PowerButtons } from '../components/power-buttons.tsx';
import { StateBadge } from '../components/state-badge.tsx';
import { pageMeta } from '../lib/meta.ts';
import { useUser } from '../lib/user-store.ts';

export const meta = () => pageMeta('servers', 'Your Minecraft servers.');

export default function Servers() {
  const servers = useUser((s) => s.servers);
  const verified = useUser((s) => s.userData?.emailVerified ?? false);
  const emailAddress = useUser((s) => s.userData?.emailAddress ?? '');
  return (
    <main className="mx-auto max-w-6xl px-4 py-8">
      <div className="flex flex-wrap items-center justify-between gap-4">
        <h1 className="text-2xl font-bold">Servers</h1>
        <Link to="/servers/create" className={buttonClass('primary')}>
          Create server
        </Link>
      </div>
      {!verified ? (
        <p className="mt-6 rounded-lg bg-amber-50 p-4 text-sm text-amber-900">
          Verify your email address to create servers. We sent a link to <strong className="break-all">{emailAddress}</strong>; you can{' '}
          <Link to="/account" className="font-semibold underline">
            resend it from your account
          </Link>
          .
        </p>
      ) : null}
      {servers.length === 0 ? (
        <section className="mt-10 rounded-xl border-2 border-dashed border-slate-300 bg-white px-6 py-16 text-center">
          <h2 className="text-lg font-semibold">You have no servers yet</h2>
          <p className="mx-auto mt-2 max-w-md text-slate-600">
            Create your first Minecraft server. It is free, sleeps when nobody plays, and wakes up when someone joins.
          </p>
          <Link to="/servers/create" className={buttonClass('primary', 'mt-6')}>
            Create your first server
          </Link>
        </section>
      ) : (
        // grid-cols-1 (minmax(0, 1fr)), not the implicit auto column: a card is as wide as the screen, not as its address.
        <ul className="mt-8 grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {servers.map((server) => (
            <li
              key={server.serverId}
              className="flex min-w-0 flex-col gap-4 rounded-xl border border-slate-200 bg-white p-5"
              data-testid="server-card"
            >
              <div className="flex items-center justify-between gap-3">
                <div className="flex min-w-0 items-center gap-3">
                  <ServerIcon serverId={server.serverId} size={40} className="size-8 sm:size-10" />
                  <Link to={`/servers/${server.serverId}`} className="min-w-0 truncate text-lg font-semibold hover:underline">
                    {server.name}
                  </Link>
                </div>
                <StateBadge state={server.state} />
              </div>
              <p className="text-sm text-slate-600">
                <span className="font-semibold tabular-nums text-slate-900">{server.players.online}</span> / {server.players.max} players
                online
              </p>
              <CopyButton value={server.joinAddress} label="Join address" />
              {server.role !== 'owner' ? <p className="text-xs text-slate-500">Shared with you as {server.role}</p> : null}
              {/* The list says the role; its keys are the contracts' table for that role, as the API holds them. */}
              <PowerButtons
                serverId={server.serverId}
                state={server.state}
                permissions={rolePermissions[server.role]}
                actions={['start', 'stop']}
              />
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
