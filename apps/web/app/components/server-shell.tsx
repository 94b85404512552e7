import type { PermissionKey } from '@spawnpoint/contracts';
import { useEffect, useRef, type ReactNode } from 'react';
import { Link, NavLink, useLocation } from 'react-router';
import type { ServerLoad } from '../lib/use-server.ts';
import { buttonClass } from './button.tsx';
import { StateBadge } from './state-badge.tsx';

/** Each tab with the key its page needs (that page's main endpoint's, in contracts). */
const tabs: { to: string; label: string; needs: PermissionKey; end?: boolean }[] = [
  { to: '', label: 'Overview', end: true, needs: 'console.read' },
  { to: 'console', label: 'Console', needs: 'console.read' },
  { to: 'files', label: 'Files', needs: 'files.read' },
  { to: 'backups', label: 'Backups', needs: 'backups.create' },
  { to: 'players', label: 'Players', needs: 'console.read' },
  { to: 'properties', label: 'Properties', needs: 'properties.update' },
  { to: 'plugins', label: 'Plugins', needs: 'plugins.manage' },
  { to: 'activity', label: 'Activity', needs: 'activity.read' },
  { to: 'schedules', label: 'Schedules', needs: 'schedules.manage' },
  { to: 'subusers', label: 'Members', needs: 'members.manage' },
  { to: 'appearance', label: 'Appearance', needs: 'appearance.update' },
  { to: 'upgrade', label: 'Upgrade', needs: 'billing.manage' },
  { to: 'shop', label: 'Shop', needs: 'billing.manage' },
];

function roleLabel(role: string): string {
  return role === 'administrator' ? 'an administrator' : `a ${role}`;
}

/** Header and tabs of every /servers/{id} page, with the loading and not-found states. */
export function ServerShell({ serverId, load, children }: { serverId: string; load: ServerLoad; children: ReactNode }) {
  const tabBar = useRef<HTMLElement>(null);
  const { pathname } = useLocation();
  // On a phone the tabs scroll sideways inside their bar; the current one (Shop, say) must be in view,
  // not past the right edge where nothing says which tab this is.
  useEffect(() => {
    const bar = tabBar.current;
    const active = bar?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!bar || !active) return;
    const barBox = bar.getBoundingClientRect();
    const tabBox = active.getBoundingClientRect();
    if (tabBox.left < barBox.left || tabBox.right > barBox.right) {
      bar.scrollLeft += tabBox.left - barBox.left - (barBox.width - tabBox.width) / 2;
    }
  }, [pathname, load.status]);
  if (load.status === 'loading') {
    return (
      <main className="mx-auto max-w-6xl px-4 py-8" role="status" aria-live="polite">
        <div className="h-8 w-48 animate-pulse rounded bg-slate-200" />
        <span className="sr-only">Loading the server…</span>
      </main>
    );
  }
  if (load.status === 'missing') {
    return (
      <main className="mx-auto max-w-xl px-4 py-24 text-center">
        <h1 className="text-2xl font-bold">Server not found</h1>
        <p className="mt-3 text-slate-600">{load.message} It may have been deleted, or you may not have access to it.</p>
        <Link to="/servers" className={buttonClass('secondary', 'mt-8')}>
          Back to your servers
        </Link>
      </main>
    );
  }
  const base = `/servers/${encodeURIComponent(serverId)}`;
  return (
    <main className="mx-auto max-w-6xl px-4 py-8">
      <nav aria-label="Breadcrumb" className="text-sm text-slate-500">
        <Link to="/servers" className="inline-block py-1 hover:underline">
          Servers
        </Link>{' '}
        / <span className="text-slate-700">{load.server.name}</span>
      </nav>
      <div className="mt-2 flex flex-wrap items-center gap-3">
        <h1 className="min-w-0 font-sans text-2xl font-bold break-all">{load.server.name}</h1>
        <StateBadge state={load.state} />
        {load.server.role !== 'owner' ? (
          <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-600">
            You are {roleLabel(load.server.role)}
          </span>
        ) : null}
      </div>
      {/* Below lg the ten tabs do not fit: the bar scrolls sideways (the page does not), and its right edge
          fades so it shows there is more; the end padding lets the last tab scroll clear of the fade. */}
      <nav
        ref={tabBar}
        aria-label="Server"
        className="mt-6 flex gap-1 overflow-x-auto border-b border-slate-200 pr-8 [mask-image:linear-gradient(to_right,#000_calc(100%_-_2rem),transparent)] lg:pr-0 lg:[mask-image:none]"
      >
        {tabs
          .filter((tab) => load.server.permissions.includes(tab.needs))
          .map((tab) => (
            <NavLink
              key={tab.label}
              to={tab.to ? `${base}/${tab.to}` : base}
              end={tab.end ?? false}
              className={({ isActive }) =>
                `whitespace-nowrap border-b-2 px-3 py-2 text-sm font-medium ${isActive ? 'border-brand-600 text-brand-700' : 'border-transparent text-slate-600 hover:text-slate-900'}`
              }
            >
              {tab.label}
            </NavLink>
          ))}
      </nav>
      <div className="mt-6">{children}</div>
    </main>
  );
}
