import { z } from 'zod';
import { serverState } from './api.ts';
import type { ServerStats } from './servers.ts';

/** Socket.IO events between the browser and the API (ARCHITECTURE §5). */
export const socketAuthPayload = z.object({ token: z.string().min(1).max(1024) });

export const serverStateEvent = z.object({ serverId: z.string(), state: serverState });

export interface ServerToClientEvents {
  'auth:success': () => void;
  'auth:error': (payload: { message: string }) => void;
  'server:state': (payload: z.infer<typeof serverStateEvent>) => void;
  'server:console': (payload: { serverId: string; lines: string[] }) => void;
  'server:stats': (payload: ServerStats & { serverId: string }) => void;
  'server:error': (payload: { serverId: string; status: string; message: string }) => void;
  'server:backup': (payload: {
    serverId: string;
    backupId: string;
    phase: 'running' | 'complete' | 'failed';
    percent: number;
    message?: string;
  }) => void;
}

export interface ClientToServerEvents {
  auth: (payload: z.infer<typeof socketAuthPayload>) => void;
  'server:subscribe': (payload: z.infer<typeof serverSubscribePayload>) => void;
  'server:unsubscribe': (payload: z.infer<typeof serverSubscribePayload>) => void;
  'server:command': (payload: z.infer<typeof serverCommandPayload>) => void;
}

export const serverSubscribePayload = z.object({ serverId: z.string().min(1).max(64) });
export const serverCommandPayload = z.object({ serverId: z.string().min(1).max(64), command: z.string().trim().min(1).max(256) });

/** How long a socket may stay connected without authenticating. */
export const SOCKET_AUTH_TIMEOUT_MS = 10_000;
/** Lifetime of a token from GET /v1/user/websocket. */
export const SOCKET_TOKEN_TTL_MS = 60_000;
