import type { PermissionKey, ServerDetails, ServerSummary } from '@spawnpoint/contracts';
import { eq } from 'drizzle-orm';
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import { servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { ServerHub } from '../server-hub.ts';
import type { ServerRow } from './server-creator.ts';

const CACHE_TTL_MS = 30_000;

/**
 * Server rows with an in-memory cache for the polled list (invalidated on create and delete), the
 * access policy, and the shapes the web app receives.
 */
export class ServerDirectory {
  private byOwner = new Map<string, { rows: ServerRow[]; at: number }>();

  constructor(
    private db: Db,
    private hub: ServerHub,
    private nodes: NodeRegistry,
    private config: Config,
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
    return `${row.name}.${this.config.PLAY_DOMAIN}`;
  }

  summary(row: ServerRow): ServerSummary {
    const stats = this.hub.statsOf(row.id);
    return {
      serverId: row.id,
      name: row.name,
      state: this.hub.stateOf(row.id),
      createdAt: row.createdAt.toISOString(),
      players: { online: stats?.players.online ?? 0, max: row.maxPlayers },
      joinAddress: this.joinAddress(row),
    };
  }

  details(row: ServerRow): ServerDetails {
    return {
      ...this.summary(row),
      software: row.software,
      version: row.version,
      host: this.nodes.config(row.nodeId)?.publicHost ?? 'localhost',
      port: row.port,
      stats: this.hub.statsOf(row.id),
      memoryLimit: row.memoryMb,
    };
  }
}
