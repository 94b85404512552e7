import type { Server as HttpServer } from 'node:http';
import {
  SOCKET_AUTH_TIMEOUT_MS,
  serverCommandPayload,
  serverSubscribePayload,
  socketAuthPayload,
  type ClientToServerEvents,
  type ServerToClientEvents,
} from '@spawnpoint/contracts';
import { Server } from 'socket.io';
import { readPurposeToken } from './auth/tokens.ts';
import type { AppContext } from './context.ts';
import { ApiError } from './http/errors.ts';
import { SOCKET_TOKEN_PURPOSE } from './routes/user.ts';

interface SocketData {
  userId?: string;
  sessionId?: string;
}

export type Realtime = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

export const userRoom = (userId: string) => `user:${userId}`;
const sessionRoom = (sessionId: string) => `session:${sessionId}`;

// Inbound budget per socket (as Wings does): 10 messages per 200 ms; beyond it messages are ignored.
const INBOUND_MAX = 10;
const INBOUND_WINDOW_MS = 200;

/** The Socket.IO server on the API's port: browsers on the default namespace, agents on `/agent`. */
export function createRealtime(server: HttpServer, allowedOrigins: readonly string[]): Realtime {
  const origins = new Set(allowedOrigins);
  return new Server(server, {
    serveClient: false,
    maxHttpBufferSize: 32 * 1024,
    allowRequest: (req, callback) => {
      // Cross-site WebSocket hijacking: a browser page of another site may not open our socket.
      const origin = req.headers.origin;
      callback(null, origin === undefined || origins.has(origin));
    },
  });
}

/**
 * Browser sockets are useless until they emit `auth` with a token from GET /v1/user/websocket; anything
 * else first, or nothing within 10 s, disconnects them. Then: console subscriptions and commands, each
 * checked against the server's permission keys.
 */
export function handleBrowserSockets(io: Realtime, ctx: AppContext): void {
  const { directory, hub, nodes } = ctx.game;

  io.on('connection', (socket) => {
    const timer = setTimeout(() => socket.disconnect(true), SOCKET_AUTH_TIMEOUT_MS);
    let windowStart = 0;
    let windowCount = 0;
    socket.use(([event], next) => {
      if (event !== 'auth' && !socket.data.userId) {
        socket.disconnect(true);
        return;
      }
      const now = Date.now();
      if (now - windowStart > INBOUND_WINDOW_MS) {
        windowStart = now;
        windowCount = 0;
      }
      if (++windowCount > INBOUND_MAX) return;
      next();
    });

    const refuse = (serverId: string, error: unknown) => {
      const code = error instanceof ApiError ? error.code : 'INTERNAL_ERROR';
      const message = error instanceof ApiError ? error.message : 'Something went wrong on our side. Please try again.';
      socket.emit('server:error', { serverId, status: code, message });
    };

    socket.on('auth', async (payload) => {
      const parsed = socketAuthPayload.safeParse(payload);
      const sessionId = parsed.success ? readPurposeToken(ctx.config.appSecret, SOCKET_TOKEN_PURPOSE, parsed.data.token) : null;
      const session = sessionId ? await ctx.sessions.byId(sessionId).catch(() => null) : null;
      if (!session || session.user.lockedAt) {
        socket.emit('auth:error', { message: 'NOT_AUTHENTICATED' });
        socket.disconnect(true);
        return;
      }
      clearTimeout(timer);
      socket.data.userId = session.user.id;
      socket.data.sessionId = session.sessionId;
      const unwatch = ctx.sessions.watch(session.sessionId);
      socket.once('disconnect', unwatch);
      await socket.join([userRoom(session.user.id), sessionRoom(session.sessionId)]);
      socket.emit('auth:success');
    });

    socket.on('server:subscribe', async (payload) => {
      const parsed = serverSubscribePayload.safeParse(payload);
      if (!parsed.success || !socket.data.userId) return;
      try {
        await directory.authorize(socket.data.userId, parsed.data.serverId, 'console.read');
        await hub.subscribe(socket, parsed.data.serverId);
      } catch (error) {
        refuse(parsed.data.serverId, error);
      }
    });

    socket.on('server:unsubscribe', (payload) => {
      const parsed = serverSubscribePayload.safeParse(payload);
      if (parsed.success) hub.unsubscribe(socket, parsed.data.serverId);
    });

    socket.on('server:command', async (payload) => {
      const parsed = serverCommandPayload.safeParse(payload);
      if (!parsed.success || !socket.data.userId) return;
      try {
        const row = await directory.authorize(socket.data.userId, parsed.data.serverId, 'console.command');
        const state = hub.stateOf(row.id);
        if (state !== 'online' && state !== 'starting')
          throw new ApiError('INVALID_STATE', undefined, 'The server is not running. Start it first.');
        await nodes.command(row.nodeId, row.id, parsed.data.command);
      } catch (error) {
        refuse(parsed.data.serverId, error);
      }
    });

    socket.on('disconnect', () => {
      clearTimeout(timer);
      hub.unsubscribe(socket);
    });
  });

  // A revoked or signed-out session loses its live sockets at once.
  ctx.sessions.onSessionEnded((sessionId) => {
    io.in(sessionRoom(sessionId)).disconnectSockets(true);
  });
}
