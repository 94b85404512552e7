import type { FastifyBaseLogger } from 'fastify';
import {
  agentEndpoints,
  isJavaSoftware,
  joinAddressOf,
  newestVersionFirst,
  rolePermissions,
  type ServerAccess,
  type ServerRole,
  MINECRAFT_DEFAULT_PORT,
  PUBLIC_SERVER_LIST_PAGE,
  publicMotd,
  type PermissionKey,
  type PublicServerEntry,
  type PublicServerList,
  type PublicServerListQuery,
  type ServerDetails,
  type ServerSummary,
  type ClusterEvent,
} from '@spawnpoint/contracts';
import { and, eq, getTableColumns, ne, or, sql } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import { SharedReads } from '../db/shared-reads.ts';
import { serverMembers, servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { ServerHub } from '../server-hub.ts';
import type { ServerRow } from '../db/rows.ts';
import { readServerIcon } from './server-icon.ts';

const CACHE_TTL_MS = 30_000;
// The public list is read by every visitor of /server-list; its rows are re-read at most this often.
const PUBLIC_LIST_TTL_MS = 10_000;
const stateOrder: Record<string, number> = { online: 0, starting: 1 };
// Folder reads of MOTDs and icons at once (many servers may stop together, or a node reports all at connect).
const APPEARANCE_READS_AT_ONCE = 4;

/** The servers a user owns, and those they are a member of with their role. */
export interface UserLists {
  owned: ServerRow[];
  memberOf: { row: ServerRow; role: ServerRole }[];
}

/** A server's MOTD (as saved, `§` codes; '' for none) and icon (a PNG data URL) as last read from its folder. */
export interface KeptAppearance {
  motd: string;
  icon: string | null;
}

/** A listed server's row as the public list keeps it: the icon's digest instead of its bytes. */
type ListedRow = Omit<ServerRow, 'listIcon'> & { iconVersion: string | null };

/** What the owner of a server holds. */
export const ownerAccess: ServerAccess = { role: 'owner', permissions: [...rolePermissions.owner] };
export function accessOf(role: ServerRole): ServerAccess {
  return { role, permissions: [...rolePermissions[role]] };
}

/** A server with the caller's role on it, as the one permission check answers it. */
export interface AuthorizedServer {
  row: ServerRow;
  access: ServerAccess;
}

/**
 * Server rows with an in-memory cache for the polled list (invalidated on create and delete), the
 * access policy, and the shapes the web app receives.
 */
export interface AccessChange {
  serverId: string;
  userId: string;
  /** The member's new role, or null once they were removed. */
  role: ServerRole | null;
}

export class ServerDirectory {
  private byOwner = new Map<string, { rows: ServerRow[]; at: number }>();
  private byMember = new Map<string, { rows: { row: ServerRow; role: ServerRole }[]; at: number }>();
  // A user's lists read once at a time; a read running when the user's lists change is not cached.
  private ownerReads = new SharedReads<string, ServerRow[]>();
  private memberReads = new SharedReads<string, { row: ServerRow; role: ServerRole }[]>();
  private accessListeners = new Set<(change: AccessChange) => void>();
  /** How many times each account's access changed here: a check that read it before a change can tell. */
  private accessEpochs = new Map<string, number>();
  private listed: { rows: ListedRow[]; at: number } | null = null;

  constructor(
    private db: Db,
    private hub: ServerHub,
    private nodes: NodeRegistry,
    private config: Config,
    /** Whether a join proxy is connected now, so the join address leads somewhere. */
    private joinProxyConnected: () => boolean = () => false,
    private log?: FastifyBaseLogger,
  ) {}

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
      if ((state === 'offline' || state === 'sleeping') && !this.hub.folderAway(serverId)) this.queueAppearanceRead(serverId);
    });
  }

  private appearanceQueue = new Set<string>();
  private appearanceReads = 0;
  private appearanceListeners = new Set<(serverId: string, look: KeptAppearance) => void>();

  /** Reads a server's MOTD and icon from its folder again (a few servers at a time). */
  queueAppearanceRead(serverId: string): void {
    this.appearanceQueue.add(serverId);
    while (this.appearanceReads < APPEARANCE_READS_AT_ONCE && this.appearanceQueue.size) {
      const next = this.appearanceQueue.values().next().value as string;
      this.appearanceQueue.delete(next);
      this.appearanceReads++;
      void this.readAppearance(next)
        .catch((err: unknown) => this.log?.debug({ err, serverId: next }, 'could not read the MOTD and icon'))
        .finally(() => {
          this.appearanceReads--;
          const waiting = this.appearanceQueue.values().next().value;
          if (waiting) this.queueAppearanceRead(waiting);
        });
    }
  }

  private async readAppearance(serverId: string): Promise<void> {
    const [row] = await this.db.select({ id: servers.id, nodeId: servers.nodeId }).from(servers).where(eq(servers.id, serverId)).limit(1);
    if (!row) return;
    const [properties, icon] = await Promise.all([
      this.nodes.call(row.nodeId, agentEndpoints.propertiesRead, { params: { serverId } }),
      readServerIcon(this.nodes, row),
    ]);
    await this.keepAppearance(serverId, { motd: properties.motd ?? '', icon });
  }

  /** Called with a server's kept MOTD and icon whenever they change (the join proxies show them). */
  onAppearance(listener: (serverId: string, look: KeptAppearance) => void): void {
    this.appearanceListeners.add(listener);
  }

  /** Every server's kept MOTD and icon, for the join proxies' table at start. */
  async keptAppearances(): Promise<Map<string, KeptAppearance>> {
    const rows = await this.db.select({ id: servers.id, motd: servers.listMotd, icon: servers.listIcon }).from(servers);
    return new Map(rows.map((r) => [r.id, { motd: r.motd, icon: r.icon }]));
  }

  // Servers recorded asleep in the database (so only a change of it is written).
  private asleep = new Set<string>();

  async listForUser(userId: string): Promise<ServerRow[]> {
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
    return Promise.all([this.listForUser(userId), this.membershipsOf(userId)]).then(([owned, memberOf]) => ({ owned, memberOf }));
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

  /** Tells the other API processes (set by the app: cluster.ts); nothing with one process. */
  share: (event: ClusterEvent) => void = () => undefined;

  /** Drops a user's cached lists, here and in the other API processes. */
  invalidate(userId: string): void {
    this.invalidateHere(userId);
    this.share({ type: 'lists-changed', userId });
  }

  invalidateHere(userId: string): void {
    this.byOwner.delete(userId);
    this.byMember.delete(userId);
    this.ownerReads.forget(userId);
    this.memberReads.forget(userId);
    this.listed = null;
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
    if (listed) this.queueAppearanceRead(row.id);
    return updated ?? row;
  }

  /** Listed servers' rows (without the icon's bytes, with a digest of them), re-read at most every 10 s. */
  private async listedRows(): Promise<ListedRow[]> {
    if (!this.listed || Date.now() - this.listed.at > PUBLIC_LIST_TTL_MS) {
      const { listIcon: _icon, ...columns } = getTableColumns(servers);
      const rows = await this.db
        .select({ ...columns, iconVersion: sql<string | null>`md5(${servers.listIcon})` })
        .from(servers)
        .where(eq(servers.publicListing, true));
      this.listed = { rows, at: Date.now() };
    }
    return this.listed.rows;
  }

  private publicEntry(row: ListedRow): PublicServerEntry {
    const details = this.details({ ...row, listIcon: null });
    return {
      name: row.name,
      software: row.software,
      version: row.version,
      state: details.state,
      players: details.players,
      motd: row.listMotd,
      icon: row.iconVersion ? `/v1/servers/list/${row.name}/icon?v=${row.iconVersion.slice(0, 12)}` : null,
      address: `${details.host}:${details.port}`,
      joinAddress: details.joinByName ? details.joinAddress : null,
      createdAt: details.createdAt,
    };
  }

  /** The public server list: searched by name, filtered, sorted (players: running and busiest first), a page of it. */
  async publicList(query: PublicServerListQuery): Promise<PublicServerList> {
    const q = query.q?.toLowerCase();
    const rows = await this.listedRows();
    const versions = query.software
      ? newestVersionFirst(rows.filter((row) => row.software === query.software).map((row) => row.version))
      : [];
    const entries = rows
      .filter(
        (row) =>
          (!q || row.name.includes(q)) &&
          (!query.software || row.software === query.software) &&
          (!query.version || row.version === query.version),
      )
      .map((row) => this.publicEntry(row))
      .sort((a, b) =>
        query.sort === 'newest'
          ? b.createdAt.localeCompare(a.createdAt) || a.name.localeCompare(b.name)
          : (stateOrder[a.state] ?? 2) - (stateOrder[b.state] ?? 2) || b.players.online - a.players.online || a.name.localeCompare(b.name),
      );
    const from = (query.page - 1) * PUBLIC_SERVER_LIST_PAGE;
    return {
      servers: entries.slice(from, from + PUBLIC_SERVER_LIST_PAGE),
      total: entries.length,
      page: query.page,
      pageSize: PUBLIC_SERVER_LIST_PAGE,
      versions,
    };
  }

  /** A listed server's entry by id (null when it is not listed), for the public list's live counts. */
  async publicEntryById(serverId: string): Promise<PublicServerEntry | null> {
    const row = (await this.listedRows()).find((r) => r.id === serverId);
    return row ? this.publicEntry(row) : null;
  }

  /** One listed server, for its public page. */
  async publicServer(name: string): Promise<PublicServerEntry> {
    const row = (await this.listedRows()).find((r) => r.name === name.toLowerCase());
    if (!row) throw new ApiError('NOT_FOUND');
    return this.publicEntry(row);
  }

  /** A listed server's icon as PNG bytes, or null. */
  async publicIcon(name: string): Promise<Buffer | null> {
    const [row] = await this.db
      .select({ icon: servers.listIcon })
      .from(servers)
      .where(and(eq(servers.name, name.toLowerCase()), eq(servers.publicListing, true)))
      .limit(1);
    const data = row?.icon?.replace(/^data:image\/png;base64,/, '');
    return data ? Buffer.from(data, 'base64') : null;
  }

  /**
   * Keeps a copy of a server's MOTD and icon (a data URL; null: the default) as the API last read or wrote
   * them, for the public list and the join proxies' answer while it is stopped, so neither reaches a node;
   * written only when it changed. A MOTD the Appearance page would refuse is kept as none.
   */
  async keepAppearance(serverId: string, look: { motd?: string; icon?: string | null }): Promise<void> {
    const set: { listMotd?: string; listIcon?: string | null } = {};
    if (look.motd !== undefined) set.listMotd = publicMotd(look.motd);
    if (look.icon !== undefined) set.listIcon = look.icon;
    if (Object.keys(set).length === 0) return;
    const changed = await this.db
      .update(servers)
      .set(set)
      .where(
        and(
          eq(servers.id, serverId),
          or(
            set.listMotd !== undefined ? ne(servers.listMotd, set.listMotd) : undefined,
            set.listIcon !== undefined ? sql`${servers.listIcon} is distinct from ${set.listIcon}` : undefined,
          ),
        ),
      )
      .returning({ id: servers.id, motd: servers.listMotd, icon: servers.listIcon });
    if (!changed[0]) return;
    this.listed = null;
    for (const listener of this.appearanceListeners) listener(serverId, { motd: changed[0].motd, icon: changed[0].icon });
  }

  /**
   * The one permission check of every server endpoint and socket event: the server named in a path with
   * the user's role on it, if that role holds `permission`. Someone who is neither its owner nor a member
   * gets NOT_FOUND, so ids of other people's servers reveal nothing; a member whose role lacks the key
   * gets NO_PERMISSION. Read from the database each time, so a removed member or a lowered role is
   * refused at the very next call.
   */
  async authorizeAccess(userId: string, serverId: string, permission: PermissionKey): Promise<AuthorizedServer> {
    const [found] = await this.db
      .select({ row: servers, role: serverMembers.role })
      .from(servers)
      .leftJoin(serverMembers, and(eq(serverMembers.serverId, servers.id), eq(serverMembers.userId, userId)))
      .where(eq(servers.id, serverId))
      .limit(1);
    if (!found) throw new ApiError('NOT_FOUND');
    const role: ServerRole | null = found.row.ownerId === userId ? 'owner' : found.role;
    if (!role) throw new ApiError('NOT_FOUND');
    const access = accessOf(role);
    if (!access.permissions.includes(permission)) throw new ApiError('NO_PERMISSION');
    return { row: found.row, access };
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
