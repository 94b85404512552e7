import { and, eq, isNull } from 'drizzle-orm';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Db } from '../db/db-type.ts';
import { servers } from '../db/schema.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { ServerHub } from '../server-hub.ts';
import { specOf } from './server-spec.ts';

/**
 * Keeps what each node knows of its servers (their specs: port, memory, disk, slots) in step with the
 * database, which says what runs where.
 */
export class NodeSpecs {
  constructor(
    private db: Db,
    private nodes: NodeRegistry,
    private hub: ServerHub,
    private log: Logger,
  ) {}

  /**
   * A node (re)connected, running `running`: it learns the specs of its servers again, so files and
   * backups work before a start. A game the control plane has no record of on that node (its row is gone,
   * or places it elsewhere) is stopped; its folder stays for the operator.
   */
  async greeted(nodeId: string, running: string[]): Promise<void> {
    // A server whose folder is in shared storage is not on the node (it is fetched when it wakes).
    const rows = await this.db
      .select()
      .from(servers)
      .where(and(eq(servers.nodeId, nodeId), isNull(servers.storedIn)));
    const known = new Set(rows.map((row) => row.id));
    for (const serverId of running.filter((id) => !known.has(id))) {
      this.log.warn({ nodeId, serverId }, 'the node runs a game the control plane has no record of there: stopping it');
      await this.nodes
        .power(nodeId, serverId, 'stop')
        .catch((err: unknown) => this.log.error({ err, nodeId, serverId }, 'could not stop it'));
    }
    for (const row of rows)
      await this.nodes
        .install(nodeId, specOf(row))
        .then((max) => this.hub.recordMaxPlayers(row.id, max))
        .catch((err: unknown) => this.log.warn({ err, serverId: row.id }, 'reinstall failed'));
  }

  /** A server's limits changed (plan, shop): its node gets its new spec (disk, slots). */
  async limitsChanged(serverId: string): Promise<void> {
    const [row] = await this.db.select().from(servers).where(eq(servers.id, serverId));
    if (row && !row.storedIn) await this.nodes.install(row.nodeId, specOf(row)).then((max) => this.hub.recordMaxPlayers(row.id, max));
  }
}
