import {
  SOCKET_OPTIONS,
  backupRestoreEvent,
  endpoints,
  serverStateEvent,
  serverStatsEvent,
  serverStatsHistoryEvent,
  type BackupRestoreEvent,
  type ClientToServerEvents,
  type ServerStats,
  type ServerToClientEvents,
  type StatsSample,
} from '@spawnpoint/contracts';
import type { Socket } from 'socket.io-client';
import { ApiFailure, call } from './api.ts';
import { handleApiError } from './api-errors.ts';
import { receivePlayTime, receiveQueue } from './free-tier.ts';
import { settings } from './settings.ts';
import { setServerPlayers, setServerState } from './user-store.ts';

type AppSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

let socket: AppSocket | null = null;
let wanted = false;
let authenticated = false;

/**
 * The live connection as a signed-in user sees it: `lost` once a socket that was live went away (or
 * cannot connect), until it is live again; `crowded` while the API refuses this tab because its sign-in
 * already has SOCKETS_PER_SESSION_MAX live tabs (it tries again every CROWDED_RETRY_MS, so closing another
 * tab lets this one in). Pages mark live values stale in both.
 */
export type LiveStatus = 'off' | 'connecting' | 'live' | 'lost' | 'crowded';
let live: LiveStatus = 'off';
const liveListeners = new Set<() => void>();
function setLive(next: LiveStatus): void {
  if (live === next) return;
  live = next;
  for (const listener of liveListeners) listener();
}
export const liveStatus = (): LiveStatus => live;
export function subscribeLive(listener: () => void): () => void {
  liveListeners.add(listener);
  return () => liveListeners.delete(listener);
}

/** How long a tab refused for too many live tabs waits before it asks again. */
export const CROWDED_RETRY_MS = 15_000;
let retry: ReturnType<typeof setTimeout> | null = null;
/** Connects again after `ms` unless the user signed out meanwhile (the API's own disconnects are not retried by the client library). */
function connectLater(target: AppSocket, ms: number): void {
  if (retry) clearTimeout(retry);
  retry = setTimeout(() => {
    retry = null;
    if (wanted && !target.active) target.connect();
  }, ms);
}

/**
 * The one socket of this tab, made on first use. One promise for it: the root and a page's subscription
 * both ask at start, and two sockets made side by side would each take one of the sign-in's live slots
 * (and both receive every console line).
 */
let made: Promise<AppSocket> | null = null;
function theSocket(): Promise<AppSocket> {
  if (made) return made;
  made = import('socket.io-client').then(({ io }) => {
    const created: AppSocket = io(settings.socketBaseUrl || undefined, {
      ...SOCKET_OPTIONS,
      autoConnect: false,
      withCredentials: true,
    });
    created.on('auth:success', () => {
      authenticated = true;
      setLive('live');
      resubscribeAll(created);
      // Access changes while this socket was not signed in (a page just loaded, or the connection was
      // away) were sent to nobody: open pages check theirs again.
      for (const listener of accessListeners) listener(null);
    });
    created.on('auth:error', ({ message }) => {
      authenticated = false;
      // The API disconnects this socket right after; the tab asks again later (another may have closed).
      if (wanted && message === 'TOO_MANY_CONNECTIONS') setLive('crowded');
    });
    created.on('disconnect', (reason) => {
      authenticated = false;
      if (!wanted) return;
      if (live !== 'crowded') setLive('lost');
      // The client library reconnects by itself except when the API ended the socket (too many tabs, no
      // auth in time): then this tab asks again itself.
      if (reason === 'io server disconnect')
        connectLater(created, live === 'crowded' ? CROWDED_RETRY_MS : SOCKET_OPTIONS.reconnectionDelayMax);
    });
    created.on('connect_error', () => {
      if (wanted && live !== 'crowded') setLive('lost');
    });
    created.on('server:console', (payload) => {
      for (const h of subscriptions.get(payload.serverId) ?? []) h.onConsole?.(payload.lines);
    });
    created.on('server:stats', (payload) => {
      const event = serverStatsEvent.safeParse(payload);
      if (!event.success) return;
      const { serverId, ...stats } = event.data;
      setServerPlayers(serverId, stats.players.online);
      for (const h of subscriptions.get(serverId) ?? []) h.onStats?.(stats);
    });
    created.on('server:stats-history', (payload) => {
      const event = serverStatsHistoryEvent.safeParse(payload);
      if (!event.success) return;
      for (const h of subscriptions.get(event.data.serverId) ?? []) h.onStatsHistory?.(event.data.samples);
    });
    created.on('server:backup', (payload) => {
      for (const h of subscriptions.get(payload.serverId) ?? []) h.onBackup?.(payload);
    });
    created.on('server:restore', (payload) => {
      const event = backupRestoreEvent.safeParse(payload);
      if (!event.success) return;
      for (const h of subscriptions.get(event.data.serverId) ?? []) h.onRestore?.(event.data);
    });
    created.on('server:error', (payload) => {
      for (const h of subscriptions.get(payload.serverId) ?? []) h.onError?.(payload.status, payload.message);
    });
    created.on('server:access', (payload) => {
      for (const listener of accessListeners) listener(payload.serverId);
    });
    created.on('connect', () => {
      call(endpoints.websocketToken, {}, { background: true }).then(
        ({ token }) => created.emit('auth', { token }),
        (failure: unknown) => {
          // Other token failures are ignored: the next reconnect tries again. A session that is gone will
          // not come back: the tab signs out (and so stops this socket) instead of asking forever.
          if (failure instanceof ApiFailure && failure.code === 'NOT_AUTHENTICATED') handleApiError(failure);
        },
      );
    });
    created.on('server:queue', (payload) => receiveQueue(payload));
    created.on('account:play-time', (payload) => receivePlayTime(payload));
    created.on('server:state', (payload) => {
      const event = serverStateEvent.safeParse(payload);
      if (event.success) setServerState(event.data.serverId, event.data.state, event.data.stoppedBecause);
    });
    socket = created;
    return created;
  });
  // A chunk that failed to load (the network dropped) is asked for again by the next caller.
  made.catch(() => (made = null));
  return made;
}

/**
 * Connect at sign-in, disconnect at sign-out; on every connect fetch a fresh token and emit `auth`
 * (docs/design.md, Realtime). The client library is loaded only once someone signs in, keeping it off
 * public pages.
 */
export async function connectSocket(): Promise<void> {
  wanted = true;
  const created = await theSocket();
  // `active`: connecting, connected or reconnecting already — a second connect would open a second session.
  if (wanted && !created.active) {
    if (live === 'off') setLive('connecting');
    created.connect();
  }
}

export interface ServerSubscription {
  onConsole?: (lines: string[]) => void;
  /** Live stats, stamped with when the API received them. */
  onStats?: (stats: ServerStats & { at: number }) => void;
  /** On every (re)subscription: the last 10 minutes of samples the API kept, oldest first. */
  onStatsHistory?: (samples: StatsSample[]) => void;
  onError?: (status: string, message: string) => void;
  onBackup?: (event: { backupId: string; phase: 'running' | 'complete' | 'failed'; percent: number; message?: string }) => void;
  /** A restore's step, and how it ended. */
  onRestore?: (event: BackupRestoreEvent) => void;
}

const subscriptions = new Map<string, Set<ServerSubscription>>();
const accessListeners = new Set<(serverId: string | null) => void>();

/**
 * Calls `listener` with a server's id when the caller's access to it may have changed (removed, or given a
 * role without something the page used), or with null when any may have (the live socket signed in again):
 * the page then fetches the server again. Returns the unsubscribe.
 */
export function onAccessChanged(listener: (serverId: string | null) => void): () => void {
  accessListeners.add(listener);
  return () => accessListeners.delete(listener);
}

function resubscribeAll(target: AppSocket): void {
  for (const serverId of subscriptions.keys()) target.emit('server:subscribe', { serverId });
}

/**
 * Console and stats of one server while a page shows it. Re-subscribes after every reconnect (the server
 * replays the last lines, so a page may see a line twice after a reconnect, never miss the recent ones).
 */
export function subscribeServer(serverId: string, handlers: ServerSubscription): () => void {
  const set = subscriptions.get(serverId) ?? new Set();
  set.add(handlers);
  const first = !subscriptions.has(serverId);
  subscriptions.set(serverId, set);
  void connectSocket().then(() => {
    if (first && authenticated) socket?.emit('server:subscribe', { serverId });
  });
  return () => {
    set.delete(handlers);
    if (set.size === 0) {
      subscriptions.delete(serverId);
      if (authenticated) socket?.emit('server:unsubscribe', { serverId });
    }
  };
}

/** How long a command typed while the live connection is still signing in (a page just opened) waits for it. */
const COMMAND_WAIT_MS = 5_000;

/** Sends a console command; false when the live connection is not signed in within COMMAND_WAIT_MS. */
export async function sendCommand(serverId: string, command: string): Promise<boolean> {
  if (!(await signedInWithin(COMMAND_WAIT_MS)) || !socket) return false;
  socket.emit('server:command', { serverId, command });
  return true;
}

/** Whether this tab's socket is signed in now, or becomes so within `ms`. */
function signedInWithin(ms: number): Promise<boolean> {
  if (socket && authenticated) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (signedIn: boolean) => {
      clearTimeout(timer);
      stop();
      resolve(signedIn);
    };
    const stop = subscribeLive(() => {
      if (socket && authenticated) done(true);
    });
    const timer = setTimeout(() => done(Boolean(socket && authenticated)), ms);
  });
}

export function disconnectSocket(): void {
  wanted = false;
  if (retry) clearTimeout(retry);
  retry = null;
  setLive('off');
  socket?.disconnect();
}

export function isSocketConnected(): boolean {
  return socket?.connected ?? false;
}
