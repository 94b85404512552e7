import type { ServerDetails, ServerState } from '@spawnpoint/contracts';
import { useEffect, useState } from 'react';
import { ApiFailure } from './api.ts';
import { fetchServer } from './servers.ts';
import { useUser } from './user-store.ts';

export type ServerLoad =
  | { status: 'loading' }
  | { status: 'missing'; message: string }
  | { status: 'ready'; server: ServerDetails; state: ServerState; stoppedBecause: string | null };

/** The server of the current page; its state follows the live store (socket events and polling). */
export function useServer(serverId: string): ServerLoad {
  const [load, setLoad] = useState<
    { status: 'loading' } | { status: 'missing'; message: string } | { status: 'ready'; server: ServerDetails }
  >({ status: 'loading' });
  const liveState = useUser((s) => s.servers.find((x) => x.serverId === serverId)?.state);
  const liveReason = useUser((s) => s.stoppedBecause?.[serverId]);
  useEffect(() => {
    let active = true;
    setLoad({ status: 'loading' });
    fetchServer(serverId, true).then(
      (server) => active && setLoad({ status: 'ready', server }),
      (error: unknown) =>
        active && setLoad({ status: 'missing', message: error instanceof ApiFailure ? error.message : 'The server could not be loaded.' }),
    );
    return () => {
      active = false;
    };
  }, [serverId]);
  if (load.status !== 'ready') return load;
  return {
    status: 'ready',
    server: load.server,
    state: liveState ?? load.server.state,
    stoppedBecause: liveReason !== undefined ? liveReason : load.server.stoppedBecause,
  };
}
