import { z } from 'zod';
import { serverState } from './api.ts';
import { consoleCommand, playTimeStatus, serverIdParams, serverStats } from './servers.ts';
import type { BackupRestoreEvent } from './files.ts';

/** Socket.IO events between the browser and the API (docs/design.md, Realtime). */
export const socketAuthPayload = z.object({ token: z.string().min(1).max(1024) });

export const serverStateEvent = z.object({
  serverId: z.string(),
  state: serverState,
  /** Why it went offline without being asked (`ServerDetails.stoppedBecause`); null or absent otherwise. */
  stoppedBecause: z.string().nullable().optional(),
});

/** How long the API keeps a server's stats for the overview's charts (a new page gets them on subscribing). */
export const STATS_HISTORY_MS = 10 * 60_000;
/** The node samples a running server every 2 s. */
export const STATS_SAMPLE_INTERVAL_MS = 2000;
/** Slots of each server's stats ring in the API: 10 minutes of samples, so memory per server is fixed. */
export const STATS_HISTORY_SAMPLES_MAX = STATS_HISTORY_MS / STATS_SAMPLE_INTERVAL_MS;

/** Live stats as the API passes them on, stamped with when the API received them (ms since the epoch). */
export const serverStatsEvent = serverStats.extend({ serverId: z.string(), at: z.number().int() });
export type ServerStatsEvent = z.infer<typeof serverStatsEvent>;
/** One point of the charts: what the API keeps per sample (no player names). */
export const statsSample = z.object({ at: z.number().int(), cpu: z.number(), memory: z.number(), players: z.number().int() });
export type StatsSample = z.infer<typeof statsSample>;
/** Sent to a socket when it subscribes to a server: the last STATS_HISTORY_MS of samples, oldest first. */
export const serverStatsHistoryEvent = z.object({
  serverId: z.string(),
  samples: z.array(statsSample).max(STATS_HISTORY_SAMPLES_MAX),
});
export type ServerStatsHistoryEvent = z.infer<typeof serverStatsHistoryEvent>;

/** A server's place in its node's start queue (1 = next), pushed on every change; null once it left the queue. */
export const serverQueueEvent = z.object({ serverId: z.string(), position: z.number().int().min(1).nullable() });
/** The account's play time today, pushed when it starts or stops being used and when it runs out. */
export const accountPlayTimeEvent = playTimeStatus;

export interface ServerToClientEvents {
  'auth:success': () => void;
  'auth:error': (payload: { message: string }) => void;
  'server:state': (payload: z.infer<typeof serverStateEvent>) => void;
  'server:console': (payload: { serverId: string; lines: string[] }) => void;
  'server:stats': (payload: ServerStatsEvent) => void;
  'server:stats-history': (payload: ServerStatsHistoryEvent) => void;
  'server:error': (payload: { serverId: string; status: string; message: string }) => void;
  'server:queue': (payload: z.infer<typeof serverQueueEvent>) => void;
  'account:play-time': (payload: z.infer<typeof accountPlayTimeEvent>) => void;
  'server:backup': (payload: {
    serverId: string;
    backupId: string;
    phase: 'running' | 'complete' | 'failed';
    percent: number;
    message?: string;
  }) => void;
  'server:restore': (payload: BackupRestoreEvent) => void;
  /**
   * To a member whose role on a server changed or who lost it (`role` null: removed, or left from another
   * tab): an open page of that server asks for it again, so its buttons follow the new role or it leaves.
   */
  'server:access': (payload: { serverId: string; role: string | null }) => void;
  /** On the public list's namespace only: a watched server's state and players changed. */
  'public:server': (payload: PublicServerEvent) => void;
}

export interface ClientToServerEvents {
  auth: (payload: z.infer<typeof socketAuthPayload>) => void;
  'server:subscribe': (payload: z.infer<typeof serverSubscribePayload>) => void;
  'server:unsubscribe': (payload: z.infer<typeof serverSubscribePayload>) => void;
  'server:command': (payload: z.infer<typeof serverCommandPayload>) => void;
  /** On the public list's namespace only. */
  'public:watch': (payload: z.infer<typeof publicWatchPayload>) => void;
}

// Ids as the HTTP routes take them (no NUL or other stray character reaches a lookup).
export const serverSubscribePayload = serverIdParams;
export const serverCommandPayload = serverIdParams.extend({ command: consoleCommand });

/** Bytes one message of a browser socket may carry (measured in bytes, not characters). */
export const BROWSER_MESSAGE_BYTES_MAX = 32 * 1024;
/** Bytes one message of an agent socket may carry: console batches are far below it (AGENT_CONSOLE_BATCH_BYTES). */
export const AGENT_MESSAGE_BYTES_MAX = 1024 * 1024;
/** How long a socket may stay connected without authenticating. */
export const SOCKET_AUTH_TIMEOUT_MS = 10_000;
/** Lifetime of a token from GET /v1/user/websocket (each token authenticates one socket, once). */
export const SOCKET_TOKEN_TTL_MS = 60_000;
/**
 * Authenticated browser sockets one session may hold at once. The web app keeps one per tab, so this is
 * room for ten tabs of one browser; one token-minting session cannot open hundreds of sockets.
 */
export const SOCKETS_PER_SESSION_MAX = 10;
/**
 * Authenticated browser sockets one account may hold at once over all its sessions, so signing in again
 * is no way around the cap above. Kept above the per-server cap below, so that one, not this, bounds one console.
 */
export const SOCKETS_PER_USER_MAX = 50;
/** Sockets subscribed to one server's console at once (as Pterodactyl's Wings); each console line is copied to each of them. */
export const CONSOLE_SUBSCRIBERS_PER_SERVER_MAX = 30;

/**
 * The public server list's live counts: an anonymous namespace (no session), where a page names the
 * servers it shows and receives their state and players as they change.
 */
export const PUBLIC_LIST_NAMESPACE = '/public-list';
/** At most this many servers watched by one socket (a page of the list). */
export const PUBLIC_WATCH_MAX = 24;
/** Anonymous sockets one address may hold on the public namespace. */
export const PUBLIC_SOCKETS_PER_ADDRESS_MAX = 8;
export const publicWatchPayload = z.object({ names: z.array(z.string().min(1).max(64)).max(PUBLIC_WATCH_MAX) });
export const publicServerEvent = z.object({
  name: z.string(),
  state: serverState,
  players: z.object({ online: z.number().int(), max: z.number().int() }),
});
export type PublicServerEvent = z.infer<typeof publicServerEvent>;
