import {
  BROWSER_MESSAGE_BYTES_MAX,
  errorMessage,
  roleHas,
  SOCKET_AUTH_TIMEOUT_MS,
  SOCKETS_PER_SESSION_MAX,
  SOCKETS_PER_USER_MAX,
  serverCommandPayload,
  serverIdParams,
  serverSubscribePayload,
  socketAuthPayload,
  socketEventPermissions,
} from '@spawnpoint/contracts';
import { MemorySpentTokenIds, redeemSocketToken, type SpentTokenIds } from './auth/socket-tokens.ts';
import type { Given } from './context.ts';
import { clientAddress } from './http/client-address.ts';
import { ApiError } from './http/errors.ts';
import { recordActivity } from './servers/activity.ts';

import { LiveCounts, memberRoom, sessionRoom, userRoom, type BrowserSocket, type Realtime } from './realtime.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'config' | 'database' | 'log' | 'sessions', 'directory' | 'hub' | 'nodes'>;

// Inbound budget per socket (as Wings does): 10 messages per 200 ms; beyond it messages are ignored.
const INBOUND_MAX = 10;
const INBOUND_WINDOW_MS = 200;

/**
 * Drops a socket that sends a message over the byte cap, or anything but `auth` before it is authenticated,
 * and ignores messages past its budget.
 */
function limitInbound(socket: BrowserSocket): void {
  let windowStart = 0;
  let windowCount = 0;
  // Browser messages are capped in bytes (the engine's own limit is the agents' larger one).
  let oversized = false;
  socket.conn.on('packet', (packet: { type: string; data?: unknown }) => {
    const data = packet.data;
    const bytes = typeof data === 'string' ? Buffer.byteLength(data) : Buffer.isBuffer(data) ? data.length : 0;
    if (bytes > BROWSER_MESSAGE_BYTES_MAX) {
      oversized = true;
      socket.disconnect(true);
    }
  });
  socket.use(([event], next) => {
    if (oversized) return;
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
}

/** A signed-in socket's console subscriptions and commands, each checked against the server's permission keys. */
function serverEvents(socket: BrowserSocket, ctx: Services, refuse: (serverId: string, error: unknown) => void): void {
  const { directory, hub, nodes } = ctx.game;
  socket.on('server:subscribe', async (payload) => {
    const parsed = serverSubscribePayload.safeParse(payload);
    if (!parsed.success || !socket.data.userId) return;
    const { userId } = socket.data;
    const check = () => directory.authorize(userId, parsed.data.serverId, socketEventPermissions['server:subscribe']);
    const epoch = directory.accessEpoch(userId);
    try {
      const row = await check();
      // A server made through another API process is placed here from its row when first watched.
      if (!hub.nodeOf(row.id)) hub.place({ serverId: row.id, nodeId: row.nodeId, ownerId: row.ownerId });
      await hub.subscribe(socket, parsed.data.serverId);
      // The access changed meanwhile (a removal): its ending of this account's subscriptions may have run
      // before this one existed, so it is checked again now that it does.
      if (directory.accessEpoch(userId) !== epoch) await check();
    } catch (error) {
      hub.unsubscribe(socket, parsed.data.serverId);
      refuse(parsed.data.serverId, error);
    }
  });

  socket.on('server:unsubscribe', (payload) => {
    const parsed = serverSubscribePayload.safeParse(payload);
    if (parsed.success) hub.unsubscribe(socket, parsed.data.serverId);
  });

  socket.on('server:command', async (payload) => {
    const parsed = serverCommandPayload.safeParse(payload);
    if (!socket.data.userId) return;
    if (!parsed.success) {
      // A command the console cannot take (two lines, a control character) is said, not dropped unseen.
      const serverId: unknown = (payload as { serverId?: unknown } | null)?.serverId;
      const command = parsed.error.issues.find((issue) => issue.path[0] === 'command');
      if (command && typeof serverId === 'string' && serverIdParams.safeParse({ serverId }).success)
        socket.emit('server:error', { serverId, status: 'INVALID_INPUT', message: command.message });
      return;
    }
    try {
      const row = await directory.authorize(socket.data.userId, parsed.data.serverId, socketEventPermissions['server:command']);
      const state = hub.stateOf(row.id);
      if (state !== 'online' && state !== 'starting')
        throw new ApiError('INVALID_STATE', undefined, 'The server is not running. Start it first.');
      await nodes.command(row.nodeId, row.id, parsed.data.command);
      // Logged as the HTTP command is, once the node took it.
      await recordActivity(ctx.database.db, {
        serverId: row.id,
        actorId: socket.data.userId,
        ip: clientAddress(socket.handshake, ctx.config.TRUST_PROXY),
        action: 'console.command',
        target: parsed.data.command,
      }).catch((err: unknown) => ctx.log.error({ err, serverId: row.id }, 'could not write the activity log entry'));
    } catch (error) {
      refuse(parsed.data.serverId, error);
    }
  });
}

/**
 * Browser sockets are useless until they emit `auth` with a token from GET /v1/user/websocket; anything
 * else first, or nothing within 10 s, disconnects them. Each token authenticates one socket once, and a
 * session (and an account) holds a bounded number of authenticated sockets, so one token or one session
 * cannot fan one console out to hundreds of sockets. Then: console subscriptions (capped per server in the
 * hub) and commands, each checked against the server's permission keys.
 *
 * `spentTokens` is per process by default; several API processes must pass a shared one.
 */
export function handleBrowserSockets(io: Realtime, ctx: Services, spentTokens: SpentTokenIds = new MemorySpentTokenIds()): void {
  const { directory, hub } = ctx.game;
  const perSession = new LiveCounts();
  const perUser = new LiveCounts();

  io.on('connection', (socket) => {
    const timer = setTimeout(() => socket.disconnect(true), SOCKET_AUTH_TIMEOUT_MS);
    // A socket authenticates once: a second `auth` (even racing the first) would count it twice.
    let authTried = false;
    limitInbound(socket);

    const refuse = (serverId: string, error: unknown) => {
      const code = error instanceof ApiError ? error.code : 'INTERNAL_ERROR';
      const message = error instanceof ApiError ? error.message : 'Something went wrong on our side. Please try again.';
      socket.emit('server:error', { serverId, status: code, message });
    };

    const refuseAuth = (message: 'NOT_AUTHENTICATED' | 'TOO_MANY_CONNECTIONS') => {
      socket.emit('auth:error', { message });
      socket.disconnect(true);
    };

    socket.on('auth', async (payload) => {
      if (authTried) return;
      authTried = true;
      const parsed = socketAuthPayload.safeParse(payload);
      const sessionId = parsed.success ? await redeemSocketToken(ctx.config.appSecret, spentTokens, parsed.data.token) : null;
      const session = sessionId ? await ctx.sessions.byId(sessionId).catch(() => null) : null;
      // Gone while we looked the session up: its disconnect handlers already ran, so it must not be counted.
      if (!socket.connected) return;
      if (!session || session.user.lockedAt) return refuseAuth('NOT_AUTHENTICATED');
      // Checked and counted with no await in between, so sockets authenticating at once cannot all slip under the caps.
      if (perSession.of(session.sessionId) >= SOCKETS_PER_SESSION_MAX || perUser.of(session.user.id) >= SOCKETS_PER_USER_MAX)
        return refuseAuth('TOO_MANY_CONNECTIONS');
      perSession.add(session.sessionId);
      perUser.add(session.user.id);
      clearTimeout(timer);
      socket.data.userId = session.user.id;
      socket.data.sessionId = session.sessionId;
      const unwatch = ctx.sessions.watch(session.sessionId);
      socket.once('disconnect', () => {
        unwatch();
        perSession.remove(session.sessionId);
        perUser.remove(session.user.id);
      });
      const shared = await directory.lists.membershipsOf(session.user.id).catch(() => []);
      await socket.join([userRoom(session.user.id), sessionRoom(session.sessionId), ...shared.map((m) => memberRoom(m.row.id))]);
      socket.emit('auth:success');
    });

    serverEvents(socket, ctx, refuse);

    socket.on('disconnect', () => {
      clearTimeout(timer);
      hub.unsubscribe(socket);
    });
  });

  // A revoked or signed-out session loses its live sockets at once. Every API process hears of it (the
  // cluster channel) and ends its own sockets, hence `local`.
  ctx.sessions.onSessionEnded((sessionId) => {
    io.local.in(sessionRoom(sessionId)).disconnectSockets(true);
  });

  // A member removed, or given a role without the console, stops streaming it at once, on every process
  // (each hears of it and ends its own sockets' subscriptions); commands are refused anyway, since every one
  // is checked against the database.
  directory.onAccessChanged(({ serverId, userId, role }) => {
    // The member's sockets on this process hear of the server's state from now on (or no longer).
    if (role) io.local.in(userRoom(userId)).socketsJoin(memberRoom(serverId));
    else io.local.in(userRoom(userId)).socketsLeave(memberRoom(serverId));
    io.local.to(userRoom(userId)).emit('server:access', { serverId, role });
    if (role && roleHas(role, socketEventPermissions['server:subscribe'])) return;
    hub.unsubscribeUser(serverId, userId);
    io.local.to(userRoom(userId)).emit('server:error', { serverId, status: 'NO_PERMISSION', message: errorMessage('NO_PERMISSION') });
  });
}
