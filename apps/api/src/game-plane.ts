/**
 * Which API process runs the game plane: the agents' and join proxies' sockets, the servers' live state,
 * power, the start queue, sleeping, play time, backups and schedules. One process at a time does, so none
 * of that is ever decided twice:
 * - without REDIS_URL the one process always holds it;
 * - with REDIS_URL the holder is whoever holds a lease in Redis (`<prefix>game-plane`, renewed every quarter
 *   of GAME_PLANE_LEASE_SECONDS). The others are mirrors: they refuse agents and proxies (which then try the
 *   next address in their API_URL list), keep a copy of the live state from the holder's `LiveEvent`s (so
 *   they answer the polled lists and stream consoles to their own browsers), and hand every request that
 *   acts on the game plane to the holder over Redis, which runs it as if it had arrived there (`app.inject`
 *   with the client's address) and sends back its answer.
 * - When the holder dies its lease runs out, another process takes it, reloads what the database says, and
 *   the agents and proxies reconnect to it; games keep running on their nodes meanwhile. A holder that finds
 *   the lease taken by another (it could not renew in time) has lost it and must not act again: `onLost`
 *   (the API's main exits, so its service manager starts it again, as a mirror).
 */
import type { GamePlaneAnswer, GamePlaneCall, LiveEvent } from '@spawnpoint/contracts';
import type { FastifyRequest } from 'fastify';

export interface GamePlane {
  readonly mode: 'single' | 'redis';
  /** This process's id on the cluster channels. */
  readonly origin: string;
  /** Whether this process runs the game plane now. */
  held(): boolean;
  /**
   * Runs when this process comes to hold the game plane (in `start`, in single mode). The process takes agents,
   * proxies and handed requests only once every listener is done; one that fails gives the lease up.
   */
  onHeld(listener: () => void | Promise<void>): void;
  /** Another process holds the lease this one held: this one must stop acting at once. */
  onLost(listener: () => void): void;
  /** The holder tells the mirrors (a no-op without REDIS_URL). */
  share(event: LiveEvent): void;
  /** A mirror is told (never called on the holder). */
  onLive(listener: (event: LiveEvent) => void): void;
  /** The holder's whole live state, sent when a mirror asks (it just started) and on taking over. */
  snapshot(make: () => LiveEvent): void;
  /** How the holder runs a request handed to it. */
  serve(run: (call: GamePlaneCall) => Promise<GamePlaneAnswer>): void;
  /**
   * A mirror hands a request to the holder and gets its answer. While the plane is between holders (the
   * holder died, or this process is taking over) it waits for the next one, at most a takeover's time;
   * null when this process came to hold the plane meanwhile (the caller runs the request itself).
   */
  forward(request: FastifyRequest): Promise<GamePlaneAnswer | null>;
  /** Takes the lease if it is free (or always, in single mode), then keeps it or watches for it. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export function singleGamePlane(): GamePlane {
  const held: (() => void | Promise<void>)[] = [];
  let started = false;
  return {
    mode: 'single',
    origin: 'single',
    held: () => started,
    onHeld: (listener) => void held.push(listener),
    onLost: () => undefined,
    share: () => undefined,
    onLive: () => undefined,
    snapshot: () => undefined,
    serve: () => undefined,
    forward: () => Promise.reject(new Error('one process holds the game plane itself')),
    async start() {
      for (const listener of held) await listener();
      started = true;
    },
    close: async () => undefined,
  };
}
