import {
  DEFAULT_SOFTWARE,
  DEFAULT_VERSION,
  FREE_MEMORY_MB,
  findSoftware,
  isRestrictedName,
  javaMajorFor,
  ownedServerLimitMessage,
  serverLimitOf,
  type CreateServerRequest,
} from '@spawnpoint/contracts';
import { count, eq } from 'drizzle-orm';
import { newId } from '../auth/tokens.ts';
import type { Db } from '../db/index.ts';
import { nodeSettings, servers, users } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { Placement } from './placement.ts';
import { allocatePort } from './port-allocator.ts';
import { softwareOffer } from './software-offer.ts';
import type { ServerRow } from '../db/rows.ts';

export const FREE_MAX_PLAYERS = 10;

/**
 * serverCreator: checks the account, the name and the limit, places the server on a node with a free
 * game port, and records it, all in one transaction. The owner's row is locked first, so concurrent
 * creates by one user are counted one after another and cannot pass the limit together.
 */
export async function serverCreator(
  db: Db,
  nodes: NodeRegistry,
  placement: Placement,
  ownerId: string,
  request: CreateServerRequest,
): Promise<ServerRow> {
  const software = findSoftware(request.software ?? DEFAULT_SOFTWARE);
  if (!software) throw new ApiError('INVALID_INPUT', { software: 'The software is not valid' });
  // Java software: the releases its vendor publishes, as the connected nodes read them (software-offer.ts);
  // one no node has the Java for is refused by placement below, naming the Java it needs.
  const offer = software.runtime === 'java-jar' ? (await softwareOffer(nodes)).find((s) => s.id === software.id) : undefined;
  const offered = offer ? offer.published : (software.versions as readonly string[]);
  if (offered.length === 0)
    throw new ApiError('INVALID_INPUT', {
      software: `No node can install ${software.name} right now (its makers' version list could not be read). Choose another software or try again later.`,
    });
  const version = request.version ?? offer?.versions[0] ?? offered[0] ?? DEFAULT_VERSION;
  // A snapshot or pre-release only when asked for by name (the create page shows them behind a choice).
  if (!offered.includes(version) && !offer?.previews.includes(version)) {
    throw new ApiError('INVALID_INPUT', { version: `${software.name} does not offer version ${version}.` });
  }
  if (isRestrictedName(request.serverName)) throw new ApiError('CONTENT_RESTRICTED');

  return db.transaction(async (tx) => {
    const [owner] = await tx.select({ id: users.id }).from(users).where(eq(users.id, ownerId)).for('no key update');
    if (!owner) throw new ApiError('NOT_AUTHENTICATED');
    // A paid plan on any of its servers raises the account's limit (the plans' `servers`).
    const owned = await tx.select({ planId: servers.planId }).from(servers).where(eq(servers.ownerId, ownerId));
    const limit = serverLimitOf(owned.map((s) => s.planId));
    if (owned.length >= limit) throw new ApiError('SERVER_LIMIT_REACHED', undefined, ownedServerLimitMessage(limit));
    const [taken] = await tx.select({ id: servers.id }).from(servers).where(eq(servers.name, request.serverName)).limit(1);
    if (taken) throw new ApiError('SERVER_NAME_ALREADY_IN_USE');

    const perNode = await tx.select({ nodeId: servers.nodeId, n: count() }).from(servers).groupBy(servers.nodeId);
    const javaNeeded = software.runtime === 'java-jar' ? javaMajorFor(version) : null;
    const drained = await tx.select({ nodeId: nodeSettings.nodeId }).from(nodeSettings).where(eq(nodeSettings.draining, true));
    const nodeId = placement.forNewServer({
      placed: new Map(perNode.map((r) => [r.nodeId, Number(r.n)])),
      javaNeeded,
      draining: new Set(drained.map((r) => r.nodeId)),
    });
    const port = await allocatePort(tx, nodes, nodeId);

    const inserted = await tx
      .insert(servers)
      .values({
        id: newId(),
        ownerId,
        name: request.serverName,
        software: software.id,
        version,
        nodeId,
        port,
        memoryMb: FREE_MEMORY_MB,
        maxPlayers: FREE_MAX_PLAYERS,
      })
      .onConflictDoNothing()
      .returning();
    // Lost a race for the name with another account between the check and the insert.
    if (!inserted[0]) throw new ApiError('SERVER_NAME_ALREADY_IN_USE');
    return inserted[0];
  });
}
