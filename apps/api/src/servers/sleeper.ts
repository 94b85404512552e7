import type { ServerState } from '@spawnpoint/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { ServerHub } from '../server-hub.ts';
import type { PlanLimits } from './plan-limits.ts';
import type { PowerDispatcher } from './power.ts';
import type { ServerRow } from '../db/rows.ts';

interface Watched {
  /** When it came online. */
  onlineAt: number;
  /** The last time anyone was in the game (or when it came online). */
  lastPlayerAt: number;
  /** Players in the game by its own join/leave lines; undefined until the node has counted them. */
  inGame: number | undefined;
}

// How long a server going to sleep may take to stop before its folder would go to storage.
const STOPPED_WAIT_MS = 120_000;

/** How often idle servers are looked for; a server sleeps at most this late. */
export const SLEEP_CHECK_MS = 1000;

/**
 * Puts idle servers to sleep: a server that has been online for at least the plan's minimum
 * time and has had nobody in the game for the plan's idle time is stopped gracefully through the power
 * line (the game saves the world as for any stop), and its "offline" becomes `sleeping`. Players are
 * counted from the game's own join and leave lines (the node's `inGame`), never from status pings, which
 * server lists and the join proxy send without anyone playing. A node that does not count players never
 * has its servers put to sleep.
 */
export class Sleeper {
  private watched = new Map<string, Watched>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private hub: ServerHub,
    private power: PowerDispatcher,
    private rowOf: (serverId: string) => Promise<ServerRow | undefined>,
    /** A server's limits (its own plan's idle time). */
    private limitsOf: (serverId: string) => PlanLimits,
    private log: FastifyBaseLogger,
    /** After the server fell asleep, still in its power line: its folder may go to shared storage. */
    private afterSleep: (server: ServerRow) => Promise<void> = async () => undefined,
    private now: () => number = Date.now,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.check(), SLEEP_CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  stateChanged(serverId: string, state: ServerState): void {
    if (state === 'online') {
      if (!this.watched.has(serverId)) this.watched.set(serverId, { onlineAt: this.now(), lastPlayerAt: this.now(), inGame: undefined });
    } else this.watched.delete(serverId);
  }

  inGame(serverId: string, count: number): void {
    const watched = this.watched.get(serverId);
    if (!watched) return;
    // The idle time runs from when the node saw the last player leave (at most one stats interval late, so
    // a server sleeps a little later than the setting, never sooner).
    if (count > 0 || (watched.inGame ?? 0) > 0) watched.lastPlayerAt = this.now();
    watched.inGame = count;
  }

  /** When the server will sleep if nobody joins (ms since the epoch); null when it will not. */
  sleepsAt(serverId: string): number | null {
    const watched = this.watched.get(serverId);
    if (!watched || watched.inGame !== 0) return null;
    const limits = this.limitsOf(serverId);
    if (limits.idleStopMs === null) return null;
    return Math.max(watched.lastPlayerAt + limits.idleStopMs, watched.onlineAt + limits.minOnlineMs);
  }

  private check(): void {
    const now = this.now();
    for (const [serverId, watched] of this.watched) {
      if (watched.inGame !== 0) continue;
      const at = this.sleepsAt(serverId);
      if (at === null || now < at) continue;
      this.watched.delete(serverId);
      void this.sleep(serverId);
    }
  }

  private async sleep(serverId: string): Promise<void> {
    try {
      const row = await this.rowOf(serverId);
      if (!row) return;
      // In the server's power line: whatever was asked before (a stop, a restart) goes first.
      await this.power.exclusive(row, async (act) => {
        if (this.hub.stateOf(serverId) !== 'online') return;
        this.hub.notice(serverId, 'Nobody has played for a while, so the server is going to sleep. Joining or Start wakes it.');
        this.hub.sleepWhenStopped(serverId, true);
        try {
          await act('stop');
        } catch (err) {
          this.hub.sleepWhenStopped(serverId, false);
          throw err;
        }
        if (await this.hub.waitForState(serverId, (state) => state !== 'stopping' && state !== 'online', STOPPED_WAIT_MS))
          await this.afterSleep(row);
      });
      this.log.info({ serverId }, 'an idle server went to sleep');
    } catch (err) {
      this.log.warn({ err, serverId }, 'putting an idle server to sleep failed');
      // Still online and still idle: watched again, so it is tried again after another idle time instead
      // of running forever because one attempt failed.
      if (this.hub.stateOf(serverId) === 'online' && !this.watched.has(serverId))
        this.watched.set(serverId, { onlineAt: this.now(), lastPlayerAt: this.now(), inGame: 0 });
    }
  }
}
