import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { ServerRow } from '../db/rows.ts';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

// Candidates asked of the node at once.
const BATCH = 32;

/**
 * The first game port of the node's range that no server of ours holds and the node can bind (another
 * program may listen on one: a second copy of the product, say). Run inside a transaction: an advisory
 * lock per node serialises allocations across API replicas. When the node cannot be asked, the first port
 * free in our records is taken and the node's own check at start says so if it is not free there.
 */
export async function allocatePort(tx: Tx, nodes: NodeRegistry, nodeId: string): Promise<number> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`ports:${nodeId}`}))`);
  const used = new Set((await tx.select({ port: servers.port }).from(servers).where(eq(servers.nodeId, nodeId))).map((r) => r.port));
  const [low, high] = (nodes.config(nodeId)?.portRange ?? '25600-25699').split('-').map(Number) as [number, number];
  const free: number[] = [];
  for (let p = low; p <= high; p++) if (!used.has(p)) free.push(p);
  for (let i = 0; i < free.length; i += BATCH) {
    const batch = free.slice(i, i + BATCH);
    const bindable = await nodes.bindablePorts(nodeId, batch).catch(() => null);
    if (bindable === null) return batch[0] as number;
    const first = batch.find((p) => bindable.includes(p));
    if (first) return first;
  }
  throw new ApiError('NO_SERVERS_AVAILABLE');
}

/**
 * Before a start: if another program took the server's port since it was allocated, move the server to
 * a free one (the dashboard shows the new address). Returns the row to start.
 */
export async function portReallocator(db: Db, nodes: NodeRegistry, server: ServerRow): Promise<ServerRow> {
  const bindable = await nodes.bindablePorts(server.nodeId, [server.port]);
  if (bindable.includes(server.port)) return server;
  return db.transaction(async (tx) => {
    const port = await allocatePort(tx, nodes, server.nodeId);
    const [updated] = await tx.update(servers).set({ port }).where(eq(servers.id, server.id)).returning();
    return updated ?? server;
  });
}
