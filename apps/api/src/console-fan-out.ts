import { CONSOLE_HISTORY_LINES, CONSOLE_SUBSCRIBERS_PER_SERVER_MAX } from '@spawnpoint/contracts';
import type { Socket } from 'socket.io';
import { ApiError } from './http/errors.ts';

interface Subscriber {
  socket: Socket;
  queue: string[];
  dropped: number;
  waiting: boolean;
  /** Holds its place under the per-server cap while the console history is fetched; nothing is sent yet. */
  pending: boolean;
}

// Per socket: beyond this many undelivered lines the oldest are dropped (a slow reader loses lines,
// the API never grows).
const SUBSCRIBER_QUEUE_MAX = 5000;

export const consoleRoom = (serverId: string) => `console:${serverId}`;

/**
 * Each server's console as browsers see it: the last lines (CONSOLE_HISTORY_LINES) and, per subscribed
 * socket, a bounded queue sent as fast as that socket reads. A slow reader loses its oldest lines (and is
 * told so); the API's memory never grows with a console's output.
 */
export class ConsoleFanOut {
  private history = new Map<string, string[]>();
  private subscribers = new Map<string, Map<string, Subscriber>>();

  /** Keeps lines in the history and queues them for this process's subscribers. */
  deliver(serverId: string, lines: string[]): void {
    this.remember(serverId, lines);
    for (const sub of this.subscribers.get(serverId)?.values() ?? []) {
      sub.queue.push(...lines);
      if (sub.queue.length > SUBSCRIBER_QUEUE_MAX) {
        sub.dropped += sub.queue.length - SUBSCRIBER_QUEUE_MAX;
        sub.queue.splice(0, sub.queue.length - SUBSCRIBER_QUEUE_MAX);
      }
      this.flush(serverId, sub);
    }
  }

  /**
   * Sends the last lines, then live lines. A socket counts once however often it subscribes; beyond
   * CONSOLE_SUBSCRIBERS_PER_SERVER_MAX sockets on one server this throws RATE_LIMIT, since every line is
   * copied to every subscriber. `fetchHistory` asks the node for the lines before this process knew the
   * server; `joined` sends what a new subscriber sees first (state, stats) once it is in the room.
   */
  async subscribe(socket: Socket, serverId: string, fetchHistory: (() => Promise<string[]>) | null, joined: () => void): Promise<void> {
    const subs = this.subscribers.get(serverId) ?? new Map<string, Subscriber>();
    if (!subs.has(socket.id) && subs.size >= CONSOLE_SUBSCRIBERS_PER_SERVER_MAX)
      throw new ApiError(
        'RATE_LIMIT',
        undefined,
        `This server's console is open in too many places (at most ${CONSOLE_SUBSCRIBERS_PER_SERVER_MAX}). Close it in another tab or window and try again.`,
      );
    // The place is taken before the history is awaited, so subscriptions arriving together cannot all pass the check.
    const sub: Subscriber = { socket, queue: [], dropped: 0, waiting: false, pending: true };
    subs.set(socket.id, sub);
    this.subscribers.set(serverId, subs);
    if (!this.history.has(serverId) && fetchHistory) {
      const lines = await fetchHistory().catch(() => []);
      if (!this.history.has(serverId)) this.history.set(serverId, lines.slice(-CONSOLE_HISTORY_LINES));
    }
    // Unsubscribed, disconnected, forgotten or subscribed again meanwhile: that call owns the place now.
    if (this.subscribers.get(serverId)?.get(socket.id) !== sub) return;
    // The history already holds any line that arrived while waiting.
    sub.queue = [...(this.history.get(serverId) ?? [])];
    sub.pending = false;
    await socket.join(consoleRoom(serverId));
    joined();
    // Whoever holds the place now (subscribed again meanwhile: that call's, which waits for its own history).
    const current = this.subscribers.get(serverId)?.get(socket.id);
    if (current) this.flush(serverId, current);
  }

  unsubscribe(socket: Socket, serverId?: string): void {
    const ids = serverId ? [serverId] : [...this.subscribers.keys()];
    for (const id of ids) {
      const subs = this.subscribers.get(id);
      subs?.delete(socket.id);
      if (subs?.size === 0) this.subscribers.delete(id);
      void socket.leave(consoleRoom(id));
    }
  }

  /** Sockets subscribed to a server's console, including those still receiving the history. */
  subscriberCount(serverId: string): number {
    return this.subscribers.get(serverId)?.size ?? 0;
  }

  /** Ends every console subscription of a user on a server (member removed, access revoked). */
  unsubscribeUser(serverId: string, userId: string): void {
    for (const sub of this.subscribers.get(serverId)?.values() ?? []) {
      if (sub.socket.data.userId === userId) this.unsubscribe(sub.socket, serverId);
    }
  }

  /** The server is gone from this process: its lines and subscribers too. */
  forget(serverId: string): void {
    this.history.delete(serverId);
    for (const sub of this.subscribers.get(serverId)?.values() ?? []) void sub.socket.leave(consoleRoom(serverId));
    this.subscribers.delete(serverId);
  }

  private remember(serverId: string, lines: string[]): void {
    const history = this.history.get(serverId) ?? [];
    history.push(...lines);
    if (history.length > CONSOLE_HISTORY_LINES) history.splice(0, history.length - CONSOLE_HISTORY_LINES);
    this.history.set(serverId, history);
  }

  private flush(serverId: string, sub: Subscriber): void {
    if (sub.pending || sub.waiting || sub.queue.length === 0) return;
    const conn = sub.socket.conn;
    // Wait while the transport still holds earlier batches: this is where a slow reader falls behind.
    // (engine.io keeps unsent packets in `writeBuffer` and emits `drain` when it empties.)
    const pending = (conn as unknown as { writeBuffer: unknown[] }).writeBuffer.length;
    if (pending > 0) {
      sub.waiting = true;
      conn.once('drain', () => {
        sub.waiting = false;
        this.flush(serverId, sub);
      });
      return;
    }
    const lines = sub.queue.splice(0, sub.queue.length);
    if (sub.dropped) {
      lines.unshift(`\x1b[33m[Spawnpoint]\x1b[0m ${sub.dropped} console lines were skipped because your connection is slow.`);
      sub.dropped = 0;
    }
    sub.socket.emit('server:console', { serverId, lines });
  }
}
