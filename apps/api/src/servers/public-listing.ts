import {
  newestVersionFirst,
  PUBLIC_SERVER_LIST_PAGE,
  type PublicServerEntry,
  type PublicServerList,
  type PublicServerListQuery,
  type ServerDetails,
} from '@spawnpoint/contracts';
import { and, eq, getTableColumns, sql } from 'drizzle-orm';
import type { Db } from '../db/db-type.ts';
import type { ServerRow } from '../db/rows.ts';
import { servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';

// The public list is read by every visitor of /server-list; its rows are re-read at most this often.
const PUBLIC_LIST_TTL_MS = 10_000;
const stateOrder: Record<string, number> = { online: 0, starting: 1 };

type ListedRow = Omit<ServerRow, 'listIcon'> & { iconVersion: string | null };

/**
 * The public server list: the servers their owners listed, searched, filtered and sorted for visitors, and
 * each one's public page and icon. Rows are read at most every 10 s (`forget` drops them at once when a
 * listing or an appearance changes); a server's live state and players come from `detailsOf`.
 */
export class PublicListing {
  private listed: { rows: ListedRow[]; at: number } | null = null;

  constructor(
    private db: Db,
    private detailsOf: (row: ServerRow) => ServerDetails,
  ) {}

  /** The next read goes to the database (a listing or an appearance changed). */
  forget(): void {
    this.listed = null;
  }

  /** Listed servers' rows (without the icon's bytes, with a digest of them), re-read at most every 10 s. */
  private async rows(): Promise<ListedRow[]> {
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

  private entry(row: ListedRow): PublicServerEntry {
    const details = this.detailsOf({ ...row, listIcon: null });
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
  async page(query: PublicServerListQuery): Promise<PublicServerList> {
    const q = query.q?.toLowerCase();
    const rows = await this.rows();
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
      .map((row) => this.entry(row))
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
  async entryById(serverId: string): Promise<PublicServerEntry | null> {
    const row = (await this.rows()).find((r) => r.id === serverId);
    return row ? this.entry(row) : null;
  }

  /** One listed server, for its public page. */
  async byName(name: string): Promise<PublicServerEntry> {
    const row = (await this.rows()).find((r) => r.name === name.toLowerCase());
    if (!row) throw new ApiError('NOT_FOUND');
    return this.entry(row);
  }

  /** A listed server's icon as PNG bytes, or null. */
  async icon(name: string): Promise<Buffer | null> {
    const [row] = await this.db
      .select({ icon: servers.listIcon })
      .from(servers)
      .where(and(eq(servers.name, name.toLowerCase()), eq(servers.publicListing, true)))
      .limit(1);
    const data = row?.icon?.replace(/^data:image\/png;base64,/, '');
    return data ? Buffer.from(data, 'base64') : null;
  }
}
