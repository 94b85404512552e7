import { useState } from 'react';
import { useParams } from 'react-router';
import { JoinCard, StoppedBecause } from '../components/overview/join-card.tsx';
import { PlayersOnline, StatsSection, useLiveStats } from '../components/overview/live-stats.tsx';
import { DeleteServer, LeaveServer, ListingToggle } from '../components/overview/server-actions.tsx';
import { FreeTierPanel } from '../components/free-tier-panel.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { pageMeta } from '../lib/meta.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id', 'Your server at a glance.');

export default function ServerOverview() {
  const { id = '' } = useParams();
  const load = useServer(id);
  const [openedAt] = useState(() => Date.now());
  const state = load.status === 'ready' ? load.state : 'offline';
  const stats = useLiveStats(id, load.status === 'ready' ? load.server : null, state);
  return (
    <ServerShell serverId={id} load={load}>
      {load.status === 'ready' ? (
        <div className="space-y-6">
          {load.state === 'offline' && load.stoppedBecause ? <StoppedBecause serverId={id} reason={load.stoppedBecause} /> : null}
          <JoinCard server={load.server} state={load.state} />
          <FreeTierPanel server={load.server} state={load.state} />
          <StatsSection server={load.server} state={load.state} stats={stats} openedAt={openedAt} />
          <PlayersOnline players={stats.latest?.players.list ?? []} />
          {load.server.permissions.includes('appearance.update') ? (
            <ListingToggle serverId={id} initial={load.server.publicListing} />
          ) : null}
          {load.server.permissions.includes('server.delete') ? <DeleteServer server={load.server} /> : null}
          {load.server.role !== 'owner' ? <LeaveServer server={load.server} /> : null}
        </div>
      ) : null}
    </ServerShell>
  );
}
