import { agentEndpoints, publicMotd } from '@spawnpoint/contracts';
import { and, eq, ne, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db-type.ts';
import { servers } from '../db/schema.ts';
import type { NodeRegistry } from '../nodes.ts';
import { readServerIcon } from './server-icon.ts';

// Folder reads of MOTDs and icons at once (many servers may stop together, or a node reports all at connect).
const READS_AT_ONCE = 4;

/** A server's MOTD (as saved, `§` codes; '' for none) and icon (a PNG data URL) as last read from its folder. */
export interface KeptAppearance {
  motd: string;
  icon: string | null;
}

/**
 * Each server's MOTD and icon as the API last read or wrote them, kept in its row, so the public list and the
 * join proxies' answer for a stopped server never reach a node. Read again from the folder when a server stops
 * (the file manager or game code may have changed them), a few servers at a time.
 */
export class KeptAppearances {
  private queue = new Set<string>();
  private reads = 0;
  private listeners = new Set<(serverId: string, look: KeptAppearance) => void>();

  constructor(
    private readonly db: Db,
    private readonly nodes: NodeRegistry,
    /** What was shown with the old ones is dropped (the public list's cache). */
    private readonly changed: () => void,
    private readonly log?: FastifyBaseLogger,
  ) {}

  /** Reads a server's MOTD and icon from its folder again (a few servers at a time). */
  queueRead(serverId: string): void {
    this.queue.add(serverId);
    while (this.reads < READS_AT_ONCE && this.queue.size) {
      const next = this.queue.values().next().value as string;
      this.queue.delete(next);
      this.reads++;
      void this.read(next)
        .catch((err: unknown) => this.log?.debug({ err, serverId: next }, 'could not read the MOTD and icon'))
        .finally(() => {
          this.reads--;
          const waiting = this.queue.values().next().value;
          if (waiting) this.queueRead(waiting);
        });
    }
  }

  private async read(serverId: string): Promise<void> {
    const [row] = await this.db.select({ id: servers.id, nodeId: servers.nodeId }).from(servers).where(eq(servers.id, serverId)).limit(1);
    if (!row) return;
    const [properties, icon] = await Promise.all([
      this.nodes.call(row.nodeId, agentEndpoints.propertiesRead, { params: { serverId } }),
      readServerIcon(this.nodes, row),
    ]);
    await this.keep(serverId, { motd: properties.motd ?? '', icon });
  }

  /** Called with a server's kept MOTD and icon whenever they change (the join proxies show them). */
  onChange(listener: (serverId: string, look: KeptAppearance) => void): void {
    this.listeners.add(listener);
  }

  /** Every server's kept MOTD and icon, for the join proxies' table at start. */
  async all(): Promise<Map<string, KeptAppearance>> {
    const rows = await this.db.select({ id: servers.id, motd: servers.listMotd, icon: servers.listIcon }).from(servers);
    return new Map(rows.map((r) => [r.id, { motd: r.motd, icon: r.icon }]));
  }

  /**
   * Keeps a copy of a server's MOTD and icon (a data URL; null: the default) as the API last read or wrote
   * them, for the public list and the join proxies' answer while it is stopped, so neither reaches a node;
   * written only when it changed. A MOTD the Appearance page would refuse is kept as none.
   */
  async keep(serverId: string, look: { motd?: string; icon?: string | null }): Promise<void> {
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
    this.changed();
    for (const listener of this.listeners) listener(serverId, { motd: changed[0].motd, icon: changed[0].icon });
  }
}
