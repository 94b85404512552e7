import type { FastifyBaseLogger } from 'fastify';
import {
  isJavaSoftware,
  joinAddressOf,
  type ServerAccess,
  type ServerRole,
  MINECRAFT_DEFAULT_PORT,
  type PermissionKey,
  type ServerDetails,
  type ServerSummary,
  type ClusterEvent,
} from '@spawnpoint/contracts';
import { eq } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import { servers } from '../db/schema.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { ServerHub } from '../server-hub.ts';
import type { ServerRow } from '../db/rows.ts';
import { PublicListing } from './public-listing.ts';
import { KeptAppearances } from './kept-appearances.ts';
import { authorizeAccess, ownerAccess, type AuthorizedServer } from './server-access.ts';
import { UserListCache } from './user-lists.ts';

export { accessOf, ownerAccess, type AuthorizedServer } from './server-access.ts';

/** A member's access to a server changed. */
export interface AccessChange {
  serverId: string;
  userId: string;
  /** The member's new role, or null once they were removed. */
  role: ServerRole | null;
}

/**
 * The servers as the API shows them: where each lives (told to the hub at start), each user's lists (cached:
 * user-lists.ts) and when they change, the access policy, the public listing and the shapes the web app
 * receives.
 */
export class ServerDirectory {
  /** Each user's server lists, cached for the polled list (servers/user-lists.ts). */
  readonly lists: UserListCache;
  private accessListeners = new Set<(change: AccessChange) => void>();
  /** How many times each account's access changed here: a check that read it before a change can tell. */
  private accessEpochs = new Map<string, number>();
  /** The public server list (servers/public-listing.ts). */
  readonly listing: PublicListing;
  /** Each server's MOTD and icon as last read or written, for the public list and the join proxies. */
  readonly appearance: KeptAppearances;

  constructor(
    private db: Db,
    private hub: ServerHub,
    private nodes: NodeRegistry,
    private config: Config,
    /** Whether a join proxy is connected now, so the join address leads somewhere. */
    private joinProxyConnected: () => boolean = () => false,
    private log?: FastifyBaseLogger,
  ) {
    this.lists = new UserListCache(db);
    this.listing = new PublicListing(db, (row) => this.details(row));
    this.appearance = new KeptAppearances(db, nodes, () => this.listing.forget(), log);
  }

  /** Tells the hub where every server lives and keeps its listeners; called once at start. */
  async load(): Promise<void> {
    await this.placeAll();
    this.follow();
  }

  /**
   * Tells the hub where every server lives and which sleep, from the database: at start, and when this
   * process takes over the game plane from another (game-plane.ts).
   */
  async placeAll(): Promise<void> {
    const rows = await this.db
      .select({
        serverId: servers.id,
        ownerId: servers.ownerId,
        nodeId: servers.nodeId,
        sleepingSince: servers.sleepingSince,
        storedIn: servers.storedIn,
      })
      .from(servers);
    this.asleep = new Set(rows.filter((row) => row.sleepingSince).map((row) => row.serverId));
    for (const { sleepingSince, storedIn, ...placement } of rows) {
      this.hub.place(placement);
      this.hub.markStored(placement.serverId, Boolean(storedIn));
      // Asleep when the API stopped: still asleep (its node reports it only as stopped).
      if (sleepingSince) this.hub.hold(placement.serverId, 'sleeping');
    }
  }

  private follow(): void {
    // Kept in the database from now on: set when a server falls asleep, cleared when it leaves sleep.
    this.hub.onStateChange((serverId, state) => {
      // Its folder going to storage or coming back is part of sleeping (an API restart meanwhile finds it asleep).
      const asleep = state === 'sleeping' || state === 'uploading' || state === 'downloading';
      if (asleep === this.asleep.has(serverId)) return;
      if (asleep) this.asleep.add(serverId);
      else this.asleep.delete(serverId);
      void this.db
        .update(servers)
        .set({ sleepingSince: asleep ? new Date() : null })
        .where(eq(servers.id, serverId))
        .catch((err: unknown) => this.log?.warn({ err, serverId }, 'recording the sleeping state failed'));
    });
    // A server that stopped may have a new MOTD or icon in its folder (the file manager, game code), and
    // from now on the public list and the join proxy's own status answer show the copy kept here.
    this.hub.onStateChange((serverId, state) => {
      if ((state === 'offline' || state === 'sleeping') && !this.hub.folderAway(serverId)) this.appearance.queueRead(serverId);
    });
  }

  // Servers recorded asleep in the database (so only a change of it is written).
  private asleep = new Set<string>();

  /** Tells the other API processes (set by the app: cluster.ts); nothing with one process. */
  share: (event: ClusterEvent) => void = () => undefined;

  /** Drops a user's cached lists, here and in the other API processes. */
  invalidate(userId: string): void {
    this.invalidateHere(userId);
    this.share({ type: 'lists-changed', userId });
  }

  invalidateHere(userId: string): void {
    this.lists.forget(userId);
    this.listing.forget();
  }

  /**
   * Says that a member's access to a server changed (a new role, or removed: `role` null). Listeners act on
   * it at once (realtime.ts ends console subscriptions the member may no longer hold), in this process and,
   * through the cluster channel, in every other API process.
   */
  accessChanged(change: AccessChange): void {
    this.accessChangedHere(change);
    this.share({ type: 'access-changed', ...change });
  }

  accessChangedHere(change: AccessChange): void {
    this.accessEpochs.set(change.userId, this.accessEpoch(change.userId) + 1);
    this.invalidateHere(change.userId);
    for (const listener of this.accessListeners) listener(change);
  }

  /** Changes to an account's access seen by this process so far (compare two readings to see one happened). */
  accessEpoch(userId: string): number {
    return this.accessEpochs.get(userId) ?? 0;
  }

  onAccessChanged(listener: (change: AccessChange) => void): () => void {
    this.accessListeners.add(listener);
    return () => this.accessListeners.delete(listener);
  }

  async setPublicListing(row: ServerRow, listed: boolean): Promise<ServerRow> {
    const [updated] = await this.db.update(servers).set({ publicListing: listed }).where(eq(servers.id, row.id)).returning();
    this.invalidate(row.ownerId);
    if (listed) this.appearance.queueRead(row.id);
    return updated ?? row;
  }

  /** The one permission check of every server endpoint and socket event (servers/server-access.ts). */
  authorizeAccess(userId: string, serverId: string, permission: PermissionKey): Promise<AuthorizedServer> {
    return authorizeAccess(this.db, userId, serverId, permission);
  }

  async authorize(userId: string, serverId: string, permission: PermissionKey): Promise<ServerRow> {
    return (await this.authorizeAccess(userId, serverId, permission)).row;
  }

  joinAddress(row: ServerRow): string {
    return joinAddressOf(row.name, this.config.PLAY_DOMAIN, this.config.PROXY_PORT || MINECRAFT_DEFAULT_PORT);
  }

  summary(row: ServerRow, role: ServerRole = 'owner'): ServerSummary {
    const stats = this.hub.statsOf(row.id);
    return {
      serverId: row.id,
      name: row.name,
      state: this.hub.stateOf(row.id),
      createdAt: row.createdAt.toISOString(),
      // What the server runs with (its server.properties, capped by the plan), once its node has said.
      players: { online: stats?.players.online ?? 0, max: this.hub.maxPlayersOf(row.id) ?? row.maxPlayers },
      joinAddress: this.joinAddress(row),
      role,
      planId: row.planId,
    };
  }

  /** The plan's, the start queue's and the play time's figures of a server (the app sets this: servers/free-tier.ts). */
  extras: (row: ServerRow) => Pick<ServerDetails, 'sleepsAfterMinutes' | 'queuePosition' | 'playTime'> = () => ({
    sleepsAfterMinutes: null,
    queuePosition: null,
    playTime: null,
  });

  /** A server as the caller sees it; `access` is theirs (the owner's unless said). */
  details(row: ServerRow, access: ServerAccess = ownerAccess): ServerDetails {
    return {
      ...this.summary(row, access.role),
      permissions: access.permissions,
      software: row.software,
      version: row.version,
      host: this.nodes.config(row.nodeId)?.publicHost ?? 'localhost',
      port: row.port,
      stats: this.hub.statsOf(row.id),
      stoppedBecause: this.hub.stoppedBecauseOf(row.id),
      memoryLimit: row.memoryMb,
      playerSlots: row.maxPlayers,
      publicListing: row.publicListing,
      joinByName: this.joinProxyConnected(),
      eulaAccepted: isJavaSoftware(row.software) ? row.eulaAcceptedAt !== null : null,
      proxyProtocol: isJavaSoftware(row.software) ? row.proxyProtocol : null,
      joinStart: row.joinStart,
      ...this.extras(row),
    };
  }
}
