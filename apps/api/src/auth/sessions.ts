import type { ClusterEvent } from '@spawnpoint/contracts';
import { and, eq, gt, inArray, isNull, type SQL } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { SharedReads } from '../db/shared-reads.ts';
import { sessions, users } from '../db/schema.ts';
import { newId, randomToken, sha256 } from './tokens.ts';
import type { UserRow } from '../db/rows.ts';

export interface SessionInfo {
  sessionId: string;
  user: UserRow;
  expiresAt: Date;
}

interface CacheEntry {
  info: SessionInfo;
  cachedAt: number;
}

// Bounds how stale another replica's view can be; local writes invalidate at once.
const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 50_000;
const TOUCH_EVERY_MS = 5 * 60_000;

/**
 * Sessions live in the database; lookups are served from memory because `/v1/user/me`,
 * `/v1/user/servers` and socket auth are polled (docs/design.md, Database).
 */
export class SessionStore {
  private cache = new Map<string, CacheEntry>();
  // By token hash; a session or user forgotten while its read runs is not cached from it (forgetAll).
  private reads = new SharedReads<string, SessionInfo | null>();
  private touched = new Map<string, number>();
  private listeners = new Set<(sessionId: string) => void>();
  /** Sessions with a live socket, counted, so the sweep also checks those. */
  private watched = new Map<string, number>();

  constructor(
    private db: Db,
    private ttlDays: number,
    /** Tells the other API processes (cluster.ts); nothing with one process. */
    private share: (event: ClusterEvent) => void = () => undefined,
  ) {}

  async create(userId: string, meta: { userAgent?: string | undefined; ip?: string | undefined }): Promise<string> {
    const token = randomToken();
    const expiresAt = new Date(Date.now() + this.ttlDays * 86_400_000);
    await this.db.insert(sessions).values({
      id: newId(),
      userId,
      tokenHash: sha256(token),
      userAgent: meta.userAgent?.slice(0, 512) ?? null,
      ip: meta.ip ?? null,
      expiresAt,
    });
    return token;
  }

  /**
   * The session for a token's hash (`tokenHash`, the cache's key) as far as memory knows it, without a
   * promise (the polled endpoints' path): null when there is no token or its session is known to have
   * expired, undefined when only the database can say.
   */
  fromCache(hash: string | null): SessionInfo | null | undefined {
    if (!hash) return null;
    const hit = this.cache.get(hash);
    if (!hit) return undefined;
    const now = Date.now();
    if (now - hit.cachedAt >= CACHE_TTL_MS) return undefined;
    return hit.info.expiresAt.getTime() <= now ? null : hit.info;
  }

  /** The session for a token's hash (`tokenHash`), from memory or the database; null for none. */
  async resolve(hash: string | null): Promise<SessionInfo | null> {
    if (!hash) return null;
    const cached = this.fromCache(hash);
    if (cached !== undefined) return cached;
    const now = Date.now();
    return this.reads.read(
      hash,
      () => this.readUnexpired(eq(sessions.tokenHash, hash)),
      (info) => {
        if (!info) return void this.cache.delete(hash);
        if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value as string);
        this.cache.set(hash, { info, cachedAt: now });
        this.touch(info.sessionId);
      },
    );
  }

  /** Looks a session up by id (socket tokens carry the id, not the cookie). */
  async byId(sessionId: string): Promise<SessionInfo | null> {
    for (const entry of this.cache.values()) {
      if (entry.info.sessionId === sessionId && Date.now() - entry.cachedAt < CACHE_TTL_MS) return entry.info;
    }
    return this.readUnexpired(eq(sessions.id, sessionId));
  }

  /** The one session `which` names, with its user, from the database; null when none or expired. */
  private async readUnexpired(which: SQL): Promise<SessionInfo | null> {
    const rows = await this.db
      .select({ session: sessions, user: users })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(and(which, gt(sessions.expiresAt, new Date())))
      .limit(1);
    const row = rows[0];
    return row ? { sessionId: row.session.id, user: row.user, expiresAt: row.session.expiresAt } : null;
  }

  async destroy(sessionId: string): Promise<void> {
    await this.db.delete(sessions).where(eq(sessions.id, sessionId));
    this.forgetSession(sessionId);
    this.share({ type: 'session-ended', sessionId });
  }

  /** Another API process ended this session: it goes from this one's cache, and its sockets here end. */
  endedElsewhere(sessionId: string): void {
    this.forgetSession(sessionId);
  }

  async destroyAllForUser(userId: string, exceptSessionId?: string): Promise<void> {
    const rows = await this.db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, userId));
    for (const row of rows) {
      if (row.id !== exceptSessionId) await this.destroy(row.id);
    }
  }

  /** Drops cached copies of a user after their row changed, here and in the other API processes. */
  forgetUser(userId: string): void {
    this.forgetUserHere(userId);
    this.share({ type: 'user-changed', userId });
  }

  forgetUserHere(userId: string): void {
    for (const [hash, entry] of this.cache) if (entry.info.user.id === userId) this.cache.delete(hash);
    this.reads.forgetAll();
  }

  watch(sessionId: string): () => void {
    this.watched.set(sessionId, (this.watched.get(sessionId) ?? 0) + 1);
    return () => {
      const n = (this.watched.get(sessionId) ?? 1) - 1;
      if (n <= 0) this.watched.delete(sessionId);
      else this.watched.set(sessionId, n);
    };
  }

  /**
   * Ends, in this process, sessions that were deleted or whose account was locked elsewhere (another API
   * replica, the operator command): their cache entries go and their sockets are cut.
   */
  async sweep(): Promise<void> {
    const ids = new Set<string>(this.watched.keys());
    for (const entry of this.cache.values()) ids.add(entry.info.sessionId);
    if (ids.size === 0) return;
    const list = [...ids];
    for (let i = 0; i < list.length; i += 500) {
      const chunk = list.slice(i, i + 500);
      const alive = await this.db
        .select({ id: sessions.id })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(and(inArray(sessions.id, chunk), gt(sessions.expiresAt, new Date()), isNull(users.lockedAt)));
      const keep = new Set(alive.map((r) => r.id));
      for (const id of chunk) if (!keep.has(id)) this.forgetSession(id);
    }
  }

  onSessionEnded(listener: (sessionId: string) => void): void {
    this.listeners.add(listener);
  }

  private forgetSession(sessionId: string): void {
    for (const [hash, entry] of this.cache) if (entry.info.sessionId === sessionId) this.cache.delete(hash);
    this.reads.forgetAll();
    this.touched.delete(sessionId);
    for (const listener of this.listeners) listener(sessionId);
  }

  private touch(sessionId: string): void {
    const last = this.touched.get(sessionId) ?? 0;
    if (Date.now() - last < TOUCH_EVERY_MS) return;
    this.touched.set(sessionId, Date.now());
    this.db
      .update(sessions)
      .set({ lastSeenAt: new Date() })
      .where(eq(sessions.id, sessionId))
      .catch(() => undefined);
  }
}
