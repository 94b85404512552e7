import {
  dialInTurn,
  PROXY_NAMESPACE,
  proxyRouteEvent,
  proxyRoutesEvent,
  proxyWakeResult,
  type ApiToProxyEvents,
  type ProxyToApiEvents,
  type ProxyWakeRequest,
  type ProxyWakeResult,
} from '@spawnpoint/contracts';
import { io, type Socket } from 'socket.io-client';
import type { ProxyLog } from './join-proxy.ts';
import type { RouteTable } from './route-table.ts';

/** How long a wake request may wait for the API's answer. */
const WAKE_ANSWER_MS = 10_000;
export const API_AWAY_MESSAGE = 'Spawnpoint cannot be reached right now. Try again in a moment.';

export interface ApiLink {
  wake(serverId: string, player: string): Promise<ProxyWakeResult>;
  connected(): boolean;
  close(): void;
}

/**
 * The proxy's one connection to the API (`/proxy` namespace, proxy token): the routing table arrives whole
 * on every connect and change by change after it, each message checked with the contracts' schemas. While
 * the API is away the last table stays in use, so servers that are online stay reachable.
 */
export function connectToApi(options: { apiUrls: string[]; token: string; table: RouteTable; log: ProxyLog }): ApiLink {
  const { table, log } = options;
  const socket: Socket<ApiToProxyEvents, ProxyToApiEvents> = io(`${options.apiUrls[0]}${PROXY_NAMESPACE}`, {
    auth: { token: options.token },
    reconnectionDelay: 500,
    // At most 2 s between tries: players' joins wait on it after a takeover.
    reconnectionDelayMax: 2_000,
    // Its own connection: dialInTurn moves it between API processes.
    forceNew: true,
  });
  // Only the API process holding the game plane takes proxies; the others refuse and the next is tried.
  const dialing = dialInTurn(socket, options.apiUrls, 1_000);
  let lastProblem = '';
  socket.on('connect', () => {
    lastProblem = '';
    log.info({}, 'join proxy connected to the API');
  });
  socket.on('connect_error', (err) => {
    // Said once per distinct problem, not on every retry.
    if (err.message === lastProblem) return;
    lastProblem = err.message;
    log.warn({ err: err.message }, `join proxy cannot reach the API at ${dialing.current()} (retrying)`);
  });
  socket.on('proxy:routes', (payload: unknown) => {
    const event = proxyRoutesEvent.safeParse(payload);
    if (event.success) table.replace(event.data);
    else log.warn({ issues: event.error.issues.slice(0, 3) }, 'ignored a routing table that is not the protocol');
  });
  socket.on('proxy:route', (payload: unknown) => {
    const event = proxyRouteEvent.safeParse(payload);
    if (event.success) table.apply(event.data);
    else log.warn({ issues: event.error.issues.slice(0, 3) }, 'ignored a route change that is not the protocol');
  });
  return {
    async wake(serverId, player) {
      if (!socket.connected) return { result: 'refused', message: API_AWAY_MESSAGE };
      try {
        const request: ProxyWakeRequest = { serverId, player };
        const answer: unknown = await socket.timeout(WAKE_ANSWER_MS).emitWithAck('proxy:wake', request);
        const parsed = proxyWakeResult.safeParse(answer);
        return parsed.success ? parsed.data : { result: 'refused', message: API_AWAY_MESSAGE };
      } catch {
        return { result: 'refused', message: API_AWAY_MESSAGE };
      }
    },
    connected: () => socket.connected,
    close: () => {
      dialing.stop();
      socket.close();
    },
  };
}
