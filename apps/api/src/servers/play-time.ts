import type { PlayTimeStatus, ServerState } from '@spawnpoint/contracts';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/index.ts';
import { playTime } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { ServerHub } from '../server-hub.ts';
import type { PlanLimits } from './plan-limits.ts';
import type { PowerDispatcher } from './power.ts';
import type { ServerRow } from '../db/rows.ts';

/** States in which a server uses play time: its game process runs. */
export const PLAY_TIME_STATES: readonly ServerState[] = ['starting', 'waking', 'online', 'stopping'];
export const PLAY_TIME_TICK_MS = 1000;
/** Play time is written to the database at least this often while it is used, and whenever its use stops. */
export const PLAY_TIME_SAVE_MS = 15_000;

interface Account {
  day: string;
  usedMs: number;
  savedSeconds: number;
  savedAt: number;
  counting: boolean;
  /** The servers were told to stop (play time used up) and have not all stopped yet. */
  stopping: boolean;
}

export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

function nextUtcMidnight(at: number): string {
  const d = new Date(at);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)).toISOString();
}

/**
 * Daily play time: each account's plan allows so many minutes per UTC day, counted while any
 * of its servers runs (two servers at once count once). The counter lives in memory, ticking every second,
 * and is saved in `play_time` (one row per account and day) every 15 s and when the servers stop, so an
 * API restart loses at most 15 s of it. When it is used up, the running servers are told in their console
 * and in the game, and stopped (gracefully, world saved) through the power line; a start answers
 * SERVER_PLAY_TIME_REACHED until the next midnight UTC. One API process counts an account (several
 * processes would need to agree on who counts; see docs/design.md).
 */
export class PlayTime {
  private accounts = new Map<string, Account>();
  private loading = new Map<string, Promise<Account>>();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;

  constructor(
    private db: Db,
    private hub: ServerHub,
    private power: PowerDispatcher,
    private rowsOf: (ownerId: string) => Promise<ServerRow[]>,
    private limitsOf: (ownerId: string) => PlanLimits,
    private push: (ownerId: string, status: PlayTimeStatus) => void,
    private log: FastifyBaseLogger,
    private now: () => number = Date.now,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), PLAY_TIME_TICK_MS);
    this.timer.unref();
  }

  /** Stops counting and saves what was counted. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([...this.accounts.entries()].map(([userId, account]) => this.save(userId, account)));
  }

  /** A server's state changed: its account starts or stops counting at the next tick; starting is seen at once. */
  stateChanged(serverId: string): void {
    const owner = this.hub.ownerOf(serverId);
    if (owner && !this.accounts.has(owner)) void this.load(owner).catch(() => undefined);
  }

  /** Refuses a start when the account's play time for today is used up. */
  async check(ownerId: string): Promise<void> {
    const limits = this.limitsOf(ownerId);
    if (limits.dailyPlayTimeMs === null) return;
    const account = await this.load(ownerId);
    if (account.usedMs >= limits.dailyPlayTimeMs) throw new ApiError('SERVER_PLAY_TIME_REACHED');
  }

  /** The account's play time today, or null when its plan has no allowance. Call `load` first for exact figures. */
  status(ownerId: string): PlayTimeStatus | null {
    const limits = this.limitsOf(ownerId);
    if (limits.dailyPlayTimeMs === null) return null;
    const now = this.now();
    const account = this.accounts.get(ownerId);
    const usedMs = account && account.day === utcDay(now) ? account.usedMs : 0;
    const allowanceSeconds = Math.floor(limits.dailyPlayTimeMs / 1000);
    const usedSeconds = Math.min(allowanceSeconds, Math.floor(usedMs / 1000));
    return {
      allowanceSeconds,
      usedSeconds,
      remainingSeconds: Math.max(0, allowanceSeconds - usedSeconds),
      counting: this.running(ownerId).length > 0 && usedMs < limits.dailyPlayTimeMs,
      resetsAt: nextUtcMidnight(now),
    };
  }

  /** Today's counter of an account, read from the database once. */
  load(ownerId: string): Promise<Account> {
    const day = utcDay(this.now());
    const known = this.accounts.get(ownerId);
    if (known && known.day === day) return Promise.resolve(known);
    const pending = this.loading.get(ownerId);
    if (pending) return pending;
    const loaded = (async () => {
      const [row] = await this.db
        .select({ usedSeconds: playTime.usedSeconds })
        .from(playTime)
        .where(and(eq(playTime.userId, ownerId), eq(playTime.day, day)));
      const seconds = row?.usedSeconds ?? 0;
      const account: Account = {
        day,
        usedMs: seconds * 1000,
        savedSeconds: seconds,
        savedAt: this.now(),
        counting: false,
        stopping: false,
      };
      // A tick of the old day may have counted meanwhile; the newest day wins.
      const current = this.accounts.get(ownerId);
      if (current && current.day === day) return current;
      if (current) await this.save(ownerId, current);
      this.accounts.set(ownerId, account);
      return account;
    })().finally(() => this.loading.delete(ownerId));
    this.loading.set(ownerId, loaded);
    return loaded;
  }

  private running(ownerId: string): string[] {
    return this.hub.serversOf(ownerId).filter((id) => PLAY_TIME_STATES.includes(this.hub.stateOf(id)));
  }

  private lastTick = 0;

  /** Counts the time since the last tick for every account with a running server. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const now = this.now();
      const elapsed = this.lastTick ? Math.min(now - this.lastTick, 10 * PLAY_TIME_TICK_MS) : 0;
      this.lastTick = now;
      const day = utcDay(now);
      for (const ownerId of [...this.accounts.keys()]) {
        await this.count(ownerId, now, elapsed, day).catch((err: unknown) => this.log.error({ err, ownerId }, 'counting play time failed'));
      }
      // Accounts whose servers started since: counted from the next tick.
      for (const ownerId of this.ownersRunning()) if (!this.accounts.has(ownerId)) void this.load(ownerId).catch(() => undefined);
    } catch (err) {
      this.log.error({ err }, 'counting play time failed');
    } finally {
      this.ticking = false;
    }
  }

  private async count(ownerId: string, now: number, elapsed: number, day: string): Promise<void> {
    let account = this.accounts.get(ownerId);
    if (!account) return;
    if (account.day !== day) account = await this.load(ownerId);
    const running = this.running(ownerId);
    const limits = this.limitsOf(ownerId);
    if (running.length > 0) account.usedMs += elapsed;
    const counting = running.length > 0;
    if (counting !== account.counting) {
      account.counting = counting;
      if (!counting) account.stopping = false;
      const status = this.status(ownerId);
      if (status) this.push(ownerId, status);
    }
    if (limits.dailyPlayTimeMs !== null && counting && account.usedMs >= limits.dailyPlayTimeMs && !account.stopping) {
      account.stopping = true;
      const status = this.status(ownerId);
      if (status) this.push(ownerId, status);
      void this.stopAll(ownerId, running);
    }
    if (Math.floor(account.usedMs / 1000) !== account.savedSeconds && (!counting || now - account.savedAt >= PLAY_TIME_SAVE_MS)) {
      await this.save(ownerId, account);
    }
    // An account with nothing running and nothing to save is forgotten; it is read again when needed.
    if (!counting && Math.floor(account.usedMs / 1000) === account.savedSeconds) this.accounts.delete(ownerId);
  }

  private ownersRunning(): Set<string> {
    const owners = new Set<string>();
    for (const id of this.hub.placedServers()) {
      if (!PLAY_TIME_STATES.includes(this.hub.stateOf(id))) continue;
      const owner = this.hub.ownerOf(id);
      if (owner) owners.add(owner);
    }
    return owners;
  }

  private async stopAll(ownerId: string, serverIds: string[]): Promise<void> {
    const rows = (await this.rowsOf(ownerId)).filter((row) => serverIds.includes(row.id));
    await Promise.all(
      rows.map(async (row) => {
        this.hub.notice(
          row.id,
          "Today's play time is used up, so the server stops now. It can start again after midnight UTC, or upgrade the plan.",
        );
        await this.hub.say(row.id, "Today's play time is used up; the server stops now.").catch(() => undefined);
        await this.power
          .run(row, 'stop')
          .catch((err: unknown) => this.log.warn({ err, serverId: row.id }, 'stopping a server out of play time failed'));
      }),
    );
  }

  /** The account was deleted: nothing of it is counted or saved any more (its row went with it). */
  forget(userId: string): void {
    this.accounts.delete(userId);
  }

  private async save(userId: string, account: Account): Promise<void> {
    const seconds = Math.floor(account.usedMs / 1000);
    if (seconds === account.savedSeconds) return;
    await this.db
      .insert(playTime)
      .values({ userId, day: account.day, usedSeconds: seconds })
      .onConflictDoUpdate({ target: [playTime.userId, playTime.day], set: { usedSeconds: seconds, updatedAt: sql`now()` } });
    account.savedSeconds = seconds;
    account.savedAt = this.now();
  }
}
