import type { ServerDetails, ServerState } from '@spawnpoint/contracts';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiFailure } from './api.ts';
import { fetchServer } from './servers.ts';
import { onAccessChanged } from './socket.ts';
import { notify } from './toasts.ts';
import { fetchServers, useUser } from './user-store.ts';

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
  const navigate = useNavigate();
  const reload = useRef<() => void>(() => undefined);
  useEffect(() => {
    let active = true;
    let name: string | null = null;
    // Only the newest answer counts: an older one still on its way (the address before a move) is dropped.
    let latest = 0;
    setLoad({ status: 'loading' });
    const load = () => {
      const ticket = ++latest;
      return fetchServer(serverId, true).then(
        (server) => {
          name = server.name;
          if (active && ticket === latest) setLoad({ status: 'ready', server });
        },
        (error: unknown) => {
          if (!active || ticket !== latest) return;
          if (name !== null && error instanceof ApiFailure && ['NOT_FOUND', 'NO_PERMISSION'].includes(error.code)) {
            // Removed while the page was open: nothing on it is theirs to see or use any more.
            notify('warning', 'No longer a member', `You no longer have access to ${name}.`);
            void fetchServers();
            navigate('/servers', { replace: true });
            return;
          }
          setLoad({ status: 'missing', message: error instanceof ApiFailure ? error.message : 'The server could not be loaded.' });
        },
      );
    };
    void load();
    reload.current = () => void load();
    // A new role takes effect on the open page (buttons, the console input); no role leaves it.
    const stop = onAccessChanged((changed) => {
      if (changed === null || changed === serverId) void load();
    });
    return () => {
      active = false;
      stop();
    };
  }, [serverId, navigate]);
  // A start may move the server (another program took its port, or a sleeping server woke on another
  // node): its address on the page is read again once it is on its way, so nobody copies the old one.
  const previous = useRef(liveState);
  useEffect(() => {
    const before = previous.current;
    previous.current = liveState;
    const onItsWay = (state: ServerState | undefined) => state === 'starting' || state === 'online';
    // On a change into it only: the page's first state needs no second read.
    if (before !== undefined && before !== liveState && onItsWay(liveState) && !onItsWay(before)) reload.current();
  }, [liveState]);
  if (load.status !== 'ready') return load;
  return {
    status: 'ready',
    server: load.server,
    state: liveState ?? load.server.state,
    stoppedBecause: liveReason !== undefined ? liveReason : load.server.stoppedBecause,
  };
}
