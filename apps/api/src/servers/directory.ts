import {
  joinAddressOf,
  MINECRAFT_DEFAULT_PORT,
  PUBLIC_SERVER_LIST_MAX,
  type PermissionKey,
  type PublicServerEntry,
  type ServerDetails,
  type ServerSummary,
} from '@spawnpoint/contracts';
import { eq } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import { servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { ServerHub } from '../server-hub.ts';
import type { ServerRow } from './server-creator.ts';

const CACHE_TTL_MS = 30_000;
// The public list is read by every visitor of /server-list; its rows are re-read at most this often.
const PUBLIC_LIST_TTL_MS = 10_000;
const stateOrder: Record<string, number> = { online: 0, starting: 1 };

/**
 * Server rows with an in-memory cache for the polled list (invalidated on create and delete), the
 * access policy, and the shapes the web app receives.
 */
export class ServerDirectory {
  private byOwner = new Map<string, { rows: ServerRow[]; at: number }>();
  private listed: { rows: ServerRow[]; at: number } | null = null;

  constructor(
    private db: Db,
    private hub: ServerHub,
    private nodes: NodeRegistry,
    private config: Config,
    /** Whether a join proxy is connected now, so the join address leads somewhere. */
    private joinProxyConnected: () => boolean = () => false,
  ) {}

  /** Tells the hub where every server lives; called once at start. */
  async load(): Promise<void> {
    const rows = await this.db.select({ serverId: servers.id, ownerId: servers.ownerId, nodeId: servers.nodeId }).from(servers);
    for (const row of rows) this.hub.place(row);
  }

  async listForUser(userId: string): Promise<ServerRow[]> {
    const hit = this.byOwner.get(userId);
    if (hit && Date.now() - hit.at < CACHE_TTL_MS) return hit.rows;
    const rows = await this.db.select().from(servers).where(eq(servers.ownerId, userId)).orderBy(servers.createdAt);
    this.byOwner.set(userId, { rows, at: Date.now() });
    return rows;
  }

  invalidate(userId: string): void {
    this.byOwner.delete(userId);
    this.listed = null;
  }

  async setPublicListing(row: ServerRow, listed: boolean): Promise<ServerRow> {
    const [updated] = await this.db.update(servers).set({ publicListing: listed }).where(eq(servers.id, row.id)).returning();
    this.invalidate(row.ownerId);
    return updated ?? row;
  }

  /** The public server list: listed servers, running and busiest first, with live state and players. */
  async publicList(): Promise<PublicServerEntry[]> {
    if (!this.listed || Date.now() - this.listed.at > PUBLIC_LIST_TTL_MS) {
      const rows = await this.db.select().from(servers).where(eq(servers.publicListing, true));
      this.listed = { rows, at: Date.now() };
    }
    return this.listed.rows
      .map((row) => {
        const details = this.details(row);
        return {
          name: row.name,
          software: row.software,
          version: row.version,
          state: details.state,
          players: details.players,
          address: `${details.host}:${details.port}`,
          createdAt: details.createdAt,
        };
      })
      .sort(
        (a, b) =>
          (stateOrder[a.state] ?? 2) - (stateOrder[b.state] ?? 2) || b.players.online - a.players.online || a.name.localeCompare(b.name),
      )
      .slice(0, PUBLIC_SERVER_LIST_MAX);
  }

  /**
   * The server named in a path, if the user holds `permission` on it. Owners hold every key; anyone else
   * gets NOT_FOUND, so ids of other people's servers reveal nothing.
   */
  async authorize(userId: string, serverId: string, permission: PermissionKey): Promise<ServerRow> {
    const [row] = await this.db.select().from(servers).where(eq(servers.id, serverId)).limit(1);
    if (!row || row.ownerId !== userId) throw new ApiError('NOT_FOUND');
    void permission; // members and their roles arrive with their issue; the key is already named here
    return row;
  }

  joinAddress(row: ServerRow): string {
    return joinAddressOf(row.name, this.config.PLAY_DOMAIN, this.config.PROXY_PORT || MINECRAFT_DEFAULT_PORT);
  }

  summary(row: ServerRow): ServerSummary {
    const stats = this.hub.statsOf(row.id);
    return {
      serverId: row.id,
      name: row.name,
      state: this.hub.stateOf(row.id),
      createdAt: row.createdAt.toISOString(),
      // What the server runs with (its server.properties, capped by the plan), once its node has said.
      players: { online: stats?.players.online ?? 0, max: this.hub.maxPlayersOf(row.id) ?? row.maxPlayers },
      joinAddress: this.joinAddress(row),
    };
  }

  /** The plan's, the start queue's and the play time's figures of a server (the app sets this: servers/free-tier.ts). */
  extras: (row: ServerRow) => Pick<ServerDetails, 'sleepsAfterMinutes' | 'queuePosition' | 'playTime'> = () => ({
    sleepsAfterMinutes: null,
    queuePosition: null,
    playTime: null,
  });

  details(row: ServerRow): ServerDetails {
    return {
      ...this.summary(row),
      software: row.software,
      version: row.version,
      host: this.nodes.config(row.nodeId)?.publicHost ?? 'localhost',
      port: row.port,
      stats: this.hub.statsOf(row.id),
      memoryLimit: row.memoryMb,
      publicListing: row.publicListing,
      joinByName: this.joinProxyConnected(),
      ...this.extras(row),
    };
  }
}
