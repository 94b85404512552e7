import { agentEndpoints, type ServerState } from '@spawnpoint/contracts';
import { and, eq, isNotNull } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/index.ts';
import { nodeSettings, servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { ServerHub } from '../server-hub.ts';
import type { Placement } from './placement.ts';
import { allocatePort } from './port-allocator.ts';
import { specOf } from './server-spec.ts';
import type { ServerRow } from '../db/rows.ts';

/** A folder going to storage or coming back may take this long (it grows with the world). */
const TRANSFER_TIMEOUT_MS = 30 * 60_000;

/**
 * Sleeping servers that move (many machines, item 2). Where nodes keep their backups in one shared
 * S3-compatible bucket, a server that falls asleep sends its folder there (`uploading`): the node packs
 * it, reads the stored archive back and checks its SHA-256, the archive and its digest are recorded, and
 * only then is the node's copy dropped. The server then holds no node: it wakes on any node naming the
 * same storage with room (its last one first), which fetches the archive (`downloading`), refuses it if
 * the digest differs, and starts it. So a node lost while its servers sleep loses none of them.
 *
 * Each step runs in the server's power line, so a start asked during an upload waits for it and then
 * fetches the folder back. A failed upload leaves the server asleep on its node, as without storage; a
 * failed fetch leaves it asleep in storage.
 */
export class ServerMover {
  constructor(
    private db: Db,
    private nodes: NodeRegistry,
    private hub: ServerHub,
    private placement: Placement,
    /** Told when a server's row changed (its node, port or storage): caches and the join proxies follow. */
    private onMoved: (server: ServerRow) => void,
    private log: FastifyBaseLogger,
  ) {}

  /** The row as the database has it now (a cached one may predate an upload). */
  private async current(serverId: string): Promise<ServerRow | undefined> {
    return (await this.db.select().from(servers).where(eq(servers.id, serverId)).limit(1))[0];
  }

  /** After the server fell asleep on its node: its folder goes to shared storage, if the node has one. */
  async store(server: ServerRow): Promise<void> {
    if (!this.nodes.storageOf(server.nodeId) || this.hub.stateOf(server.id) !== 'sleeping') return;
    await this.upload(server).catch((err: unknown) =>
      this.log.warn({ err, serverId: server.id }, 'a sleeping server could not go to storage; it sleeps on its node'),
    );
  }

  /**
   * Sends a stopped or sleeping server's folder to its node's shared storage (`uploading`, then the state
   * it had) and drops the node's copy once the archive is recorded. Throws, changing nothing, if it fails.
   */
  private async upload(server: ServerRow): Promise<ServerRow> {
    const storage = this.nodes.storageOf(server.nodeId);
    if (!storage) throw new ApiError('INVALID_STATE', undefined, `Node ${server.nodeId} keeps no shared storage (S3_URL).`);
    const before = this.hub.stateOf(server.id);
    this.hub.hold(server.id, 'uploading');
    let stored: ServerRow | undefined;
    try {
      const { sha256, bytes } = await this.nodes.call(
        server.nodeId,
        agentEndpoints.storageUpload,
        { params: { serverId: server.id } },
        TRANSFER_TIMEOUT_MS,
      );
      [stored] = await this.db
        .update(servers)
        .set({ storedIn: storage, storedSha256: sha256 })
        .where(eq(servers.id, server.id))
        .returning();
      if (!stored) throw new ApiError('NOT_FOUND');
      this.log.info({ serverId: server.id, nodeId: server.nodeId, bytes }, "a server's folder went to storage");
    } catch (err) {
      this.settle(server.id, before);
      throw err;
    }
    this.hub.markStored(server.id, true);
    this.onMoved(stored);
    this.settle(server.id, before);
    // Recorded: the node's copy is not needed any more. Should this fail, a stale copy stays on its disk;
    // a later fetch there replaces it with the archive.
    await this.nodes
      .call(server.nodeId, agentEndpoints.dropLocalCopy, { params: { serverId: server.id } })
      .catch((err: unknown) => this.log.warn({ err, serverId: server.id, nodeId: server.nodeId }, "could not drop the node's copy"));
    return stored;
  }

  /** Back to the state it had before a transfer: `sleeping` is held (its node knows it only as stopped). */
  private settle(serverId: string, state: ServerState): void {
    if (state === 'sleeping') this.hub.hold(serverId, 'sleeping');
    else this.hub.setState(serverId, state);
  }

  /** Records a server in storage as placed on `nodeId`, on a free port there (nothing is copied). */
  private async placeOn(row: ServerRow, nodeId: string): Promise<ServerRow> {
    if (nodeId === row.nodeId) return row;
    const moved = await this.db.transaction(async (tx) => {
      const port = await allocatePort(tx, this.nodes, nodeId);
      return (
        await tx
          .update(servers)
          .set({ nodeId, port })
          .where(and(eq(servers.id, row.id), isNotNull(servers.storedIn)))
          .returning()
      )[0];
    });
    // Fetched back meanwhile (by another API process): it stays where it is.
    if (!moved) return (await this.current(row.id)) ?? row;
    this.hub.place({ serverId: moved.id, ownerId: moved.ownerId, nodeId: moved.nodeId });
    this.onMoved(moved);
    this.log.info({ serverId: moved.id, from: row.nodeId, to: nodeId }, 'a server in storage was placed on another node');
    return moved;
  }

  /**
   * Deletes a server's files wherever they are (its folder, backups and stored archive): through its node,
   * or, while it sleeps in shared storage and its node is away, through any node naming that storage.
   * NODE_UNAVAILABLE (saying `whose`) when no node can, so nothing is left behind unseen.
   */
  async removeFiles(serverId: string, whose: 'this server' | 'one of your servers'): Promise<void> {
    const row = await this.current(serverId);
    if (!row) return;
    const through =
      this.nodes.isConnected(row.nodeId) || !row.storedIn
        ? row.nodeId
        : (this.nodes.connectedIds().find((id) => this.nodes.storageOf(id) === row.storedIn) ?? row.nodeId);
    if (!this.nodes.isConnected(through))
      throw new ApiError(
        'NODE_UNAVAILABLE',
        undefined,
        `The machine that runs ${whose} cannot be reached right now, so its files cannot be removed. Please try again in a minute.`,
      );
    await this.nodes.remove(through, serverId);
  }

  /**
   * The operator's move: a stopped or sleeping server's folder goes to another node through the shared
   * storage both name (uploaded from its node unless already in storage, then fetched there), in the
   * state it had. Refused, changing nothing, when the nodes do not share storage or one of them is away.
   */
  async move(serverId: string, nodeId: string): Promise<ServerRow> {
    let row = await this.current(serverId);
    if (!row) throw new ApiError('NOT_FOUND', undefined, `No server with the id ${serverId}.`);
    const state = this.hub.stateOf(serverId);
    if (state !== 'offline' && state !== 'sleeping')
      throw new ApiError('INVALID_STATE', undefined, `The server is ${state.replace('_', ' ')}; stop it before moving it.`);
    if (!this.nodes.config(nodeId)) throw new ApiError('NOT_FOUND', undefined, `No node with the id ${nodeId} (see AGENTS).`);
    if (row.nodeId === nodeId && !row.storedIn) return row;
    if (!this.nodes.isConnected(nodeId)) throw new ApiError('NODE_UNAVAILABLE', undefined, `Node ${nodeId} is not connected.`);
    if (!row.storedIn && !this.nodes.isConnected(row.nodeId))
      throw new ApiError('NODE_UNAVAILABLE', undefined, `The server's folder is on node ${row.nodeId}, which is not connected.`);
    const from = row.storedIn ?? this.nodes.storageOf(row.nodeId);
    if (!from || this.nodes.storageOf(nodeId) !== from)
      throw new ApiError(
        'INVALID_STATE',
        undefined,
        `Moving a server needs shared storage: S3_URL naming the same bucket on node ${row.nodeId} and node ${nodeId}.`,
      );
    if (!row.storedIn) row = await this.upload(row);
    row = await this.placeOn(row, nodeId);
    try {
      return await this.fetch(row);
    } finally {
      this.settle(serverId, state);
    }
  }

  /**
   * Before a start: the server as the database has it, and if its folder is in storage, moved to the node
   * it will wake on (a free port there). Nothing is copied yet; `fetch` does that when it really starts.
   */
  async prepareStart(server: ServerRow): Promise<ServerRow> {
    const row = await this.current(server.id);
    if (!row) throw new ApiError('NOT_FOUND');
    if (!row.storedIn) return row;
    const draining = new Set(
      (await this.db.select({ nodeId: nodeSettings.nodeId }).from(nodeSettings).where(eq(nodeSettings.draining, true))).map(
        (r) => r.nodeId,
      ),
    );
    const nodeId = this.placement.forWake(row, draining);
    if (!nodeId) throw new ApiError('NODE_UNAVAILABLE');
    return this.placeOn(row, nodeId);
  }

  /** Brings the folder of a server in storage onto its node (`downloading`); the server is then on that node. */
  async fetch(server: ServerRow): Promise<ServerRow> {
    if (!server.storedIn || !server.storedSha256) return server;
    this.hub.hold(server.id, 'downloading');
    try {
      await this.nodes.install(server.nodeId, specOf(server));
      await this.nodes.call(
        server.nodeId,
        agentEndpoints.storageDownload,
        { params: { serverId: server.id }, body: { sha256: server.storedSha256 } },
        TRANSFER_TIMEOUT_MS,
      );
    } catch (err) {
      this.hub.hold(server.id, 'sleeping');
      throw err;
    }
    const [back] = await this.db.update(servers).set({ storedIn: null, storedSha256: null }).where(eq(servers.id, server.id)).returning();
    this.hub.markStored(server.id, false);
    const row = back ?? { ...server, storedIn: null, storedSha256: null };
    this.onMoved(row);
    return row;
  }
}
