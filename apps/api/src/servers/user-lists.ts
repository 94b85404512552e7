import type { ServerRole } from '@spawnpoint/contracts';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import type { ServerRow } from '../db/rows.ts';
import { serverMembers, servers } from '../db/schema.ts';
import { SharedReads } from '../db/shared-reads.ts';

/** How long a user's lists are served from memory (they are forgotten at once when they change). */
const CACHE_TTL_MS = 30_000;

/** The servers a user owns, and those they are a member of with their role. */
export interface UserLists {
  owned: ServerRow[];
  memberOf: { row: ServerRow; role: ServerRole }[];
}

/**
 * Each user's server lists, kept in memory for the polled list endpoint: read once at a time per user, and
 * forgotten when they change (ServerDirectory.invalidate: on create, delete, membership and listing changes).
 */
export class UserListCache {
  private byOwner = new Map<string, { rows: ServerRow[]; at: number }>();
  private byMember = new Map<string, { rows: { row: ServerRow; role: ServerRole }[]; at: number }>();
  // A user's lists read once at a time; a read running when the user's lists change is not cached.
  private ownerReads = new SharedReads<string, ServerRow[]>();
  private memberReads = new SharedReads<string, { row: ServerRow; role: ServerRole }[]>();

  constructor(private readonly db: Db) {}

  /** The servers the user owns, oldest first. */
  async owned(userId: string): Promise<ServerRow[]> {
    const hit = this.byOwner.get(userId);
    if (hit && Date.now() - hit.at < CACHE_TTL_MS) return hit.rows;
    return this.ownerReads.read(
      userId,
      () => this.db.select().from(servers).where(eq(servers.ownerId, userId)).orderBy(servers.createdAt),
      (rows) => this.byOwner.set(userId, { rows, at: Date.now() }),
    );
  }

  /**
   * Both of a user's lists: from memory without a promise when both are cached (the polled endpoint's usual
   * case), otherwise once the database answered.
   */
  listsOf(userId: string): UserLists | Promise<UserLists> {
    const owned = this.byOwner.get(userId);
    const memberOf = this.byMember.get(userId);
    const now = Date.now();
    if (owned && memberOf && now - owned.at < CACHE_TTL_MS && now - memberOf.at < CACHE_TTL_MS)
      return { owned: owned.rows, memberOf: memberOf.rows };
    return Promise.all([this.owned(userId), this.membershipsOf(userId)]).then(([owned, memberOf]) => ({ owned, memberOf }));
  }

  /** Servers the user is a member of (not owner), with their role; cached like the owner's list. */
  async membershipsOf(userId: string): Promise<{ row: ServerRow; role: ServerRole }[]> {
    const hit = this.byMember.get(userId);
    if (hit && Date.now() - hit.at < CACHE_TTL_MS) return hit.rows;
    return this.memberReads.read(
      userId,
      () =>
        this.db
          .select({ row: servers, role: serverMembers.role })
          .from(serverMembers)
          .innerJoin(servers, eq(servers.id, serverMembers.serverId))
          .where(eq(serverMembers.userId, userId))
          .orderBy(servers.createdAt),
      (rows) => this.byMember.set(userId, { rows, at: Date.now() }),
    );
  }

  /** Forgets a user's lists (a read on its way is not kept either). */
  forget(userId: string): void {
    this.byOwner.delete(userId);
    this.byMember.delete(userId);
    this.ownerReads.forget(userId);
    this.memberReads.forget(userId);
  }
}
