import type { Server as HttpServer } from 'node:http';
import { AGENT_MESSAGE_BYTES_MAX, type ClientToServerEvents, type ServerToClientEvents } from '@spawnpoint/contracts';
import { Server, type Socket } from 'socket.io';

interface SocketData {
  userId?: string;
  sessionId?: string;
}

export type Realtime = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
/** One browser's socket. */
export type BrowserSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

export const userRoom = (userId: string) => `user:${userId}`;
/** The sockets of a server's members (not its owner, who has `userRoom`): its state reaches their server list live. */
export const memberRoom = (serverId: string) => `members:${serverId}`;
export const sessionRoom = (sessionId: string) => `session:${sessionId}`;

/** Live authenticated sockets per key; a key leaves the map when its count returns to 0, so nothing accumulates. */
export class LiveCounts {
  private counts = new Map<string, number>();

  of(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  add(key: string): void {
    this.counts.set(key, this.of(key) + 1);
  }

  remove(key: string): void {
    const left = this.of(key) - 1;
    if (left > 0) this.counts.set(key, left);
    else this.counts.delete(key);
  }
}

/** The Socket.IO server on the API's port: browsers on the default namespace, agents on `/agent`. */
export function createRealtime(server: HttpServer, allowedOrigins: readonly string[]): Realtime {
  const origins = new Set(allowedOrigins);
  return new Server(server, {
    serveClient: false,
    // The engine's limit is the agents' (their console batches); browser sockets get their own, smaller
    // one in handleBrowserSockets, counted in bytes.
    maxHttpBufferSize: AGENT_MESSAGE_BYTES_MAX,
    allowRequest: (req, callback) => {
      // Cross-site WebSocket hijacking: a browser page of another site may not open our socket.
      const origin = req.headers.origin;
      callback(null, origin === undefined || origins.has(origin));
    },
  });
}
