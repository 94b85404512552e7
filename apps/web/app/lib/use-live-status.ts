import { useSyncExternalStore } from 'react';
import { liveStatus, subscribeLive, type LiveStatus } from './socket.ts';

/** The live connection's status (see socket.ts); 'off' while rendering on the server. */
export function useLiveStatus(): LiveStatus {
  return useSyncExternalStore(subscribeLive, liveStatus, () => 'off');
}
