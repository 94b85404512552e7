import { endpoints, type OperatorNode, type OperatorServer } from '@spawnpoint/contracts';
import { and, count, eq, ilike, isNull, type SQL } from 'drizzle-orm';
import type { Given } from '../context.ts';
import { nodeSettings, servers, sessions, users } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { drawGiveaway } from './public-site.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'database' | 'sessions', 'nodes' | 'hub' | 'power' | 'mover'>;

/** Endpoints for the operator's command line, authenticated with the operator token (checked by the router). */
export function operatorRoutes(route: Route, ctx: Services): void {
  operatorNodeRoutes(route, ctx);
  operatorServerRoutes(route, ctx);
  operatorAccountRoutes(route, ctx);
}

/** The nodes: listed with their load, drained, and removed once empty. */
function operatorNodeRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;
  const { nodes, hub, power } = ctx.game;

  /** Each configured node with what this process knows live and what the database holds. */
  const nodeList = async (): Promise<OperatorNode[]> => {
    const drained = new Set(
      (await db.select({ nodeId: nodeSettings.nodeId }).from(nodeSettings).where(eq(nodeSettings.draining, true))).map((r) => r.nodeId),
    );
    const placed = new Map(
      (await db.select({ nodeId: servers.nodeId, n: count() }).from(servers).groupBy(servers.nodeId)).map((r) => [r.nodeId, Number(r.n)]),
    );
    return nodes.configs().map((node) => ({
      nodeId: node.id,
      connected: nodes.isConnected(node.id),
      draining: drained.has(node.id),
      capacity: node.capacity,
      activeServers: hub.activeOn(node.id, (serverId) => power.queue.has(serverId)),
      placedServers: placed.get(node.id) ?? 0,
      queuedStarts: power.queue.length(node.id),
    }));
  };

  route(endpoints.operatorNodes, async () => nodeList());

  const setDraining = (nodeId: string, draining: boolean) =>
    db
      .insert(nodeSettings)
      .values({ nodeId, draining })
      .onConflictDoUpdate({ target: nodeSettings.nodeId, set: { draining, updatedAt: new Date() } });

  route(endpoints.operatorNodeDrain, async ({ body }) => {
    if (!nodes.config(body.nodeId)) throw new ApiError('NOT_FOUND', undefined, `No node with the id ${body.nodeId} (see AGENTS).`);
    await setDraining(body.nodeId, body.draining);
    return (await nodeList()).find((n) => n.nodeId === body.nodeId) as OperatorNode;
  });

  // The node's list lives in AGENTS: this drains it and says whether anything still needs it there.
  route(endpoints.operatorNodeRemove, async ({ body }) => {
    if (!nodes.config(body.nodeId)) throw new ApiError('NOT_FOUND', undefined, `No node with the id ${body.nodeId} (see AGENTS).`);
    await setDraining(body.nodeId, true);
    const [held] = await db
      .select({ n: count() })
      .from(servers)
      .where(and(eq(servers.nodeId, body.nodeId), isNull(servers.storedIn)));
    const left = Number(held?.n ?? 0);
    if (left > 0)
      throw new ApiError(
        'INVALID_STATE',
        undefined,
        `Node ${body.nodeId} is drained but still holds the folders of ${left} server(s). Move them first (npm run operator -- servers move <server> <node>), then remove it.`,
      );
    return (await nodeList()).find((n) => n.nodeId === body.nodeId) as OperatorNode;
  });
}

/** Servers found by name, and moved to another node. */
function operatorServerRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;
  const { hub, power, mover } = ctx.game;

  /** Servers as the operator sees them (without the live state), at most 50, by name. */
  const serverRows = (where: SQL) =>
    db
      .select({
        serverId: servers.id,
        name: servers.name,
        ownerEmail: users.emailAddress,
        nodeId: servers.nodeId,
        storedIn: servers.storedIn,
      })
      .from(servers)
      .innerJoin(users, eq(users.id, servers.ownerId))
      .where(where)
      .orderBy(servers.name)
      .limit(50);

  route(endpoints.operatorServers, async ({ query }) => {
    // A part of the name: a `%`, `_` or backslash typed is taken literally.
    const pattern = `%${query.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await serverRows(ilike(servers.name, pattern));
    return rows.map((row) => ({ ...row, state: hub.stateOf(row.serverId) }));
  });

  // In the server's power line: no start or stop slips in while its folder travels.
  route(endpoints.operatorServerMove, async ({ body }) => {
    const [row] = await db.select().from(servers).where(eq(servers.id, body.serverId)).limit(1);
    if (!row) throw new ApiError('NOT_FOUND', undefined, `No server with the id ${body.serverId}.`);
    await power.exclusive(row, () => mover.move(row.id, body.nodeId));
    const [moved] = await serverRows(eq(servers.id, row.id));
    return { ...(moved as Omit<OperatorServer, 'state'>), state: hub.stateOf(row.id) };
  });
}

/** The giveaway's draw, and locking an account. */
function operatorAccountRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;

  route(endpoints.operatorGiveawayDraw, async ({ body }) => drawGiveaway(ctx, body.slug, body.seed));

  route(endpoints.operatorAccountLock, async ({ body }) => {
    const [user] = await db.select().from(users).where(eq(users.emailAddress, body.emailAddress)).limit(1);
    if (!user) throw new ApiError('NOT_FOUND', undefined, `No account with the address ${body.emailAddress}.`);
    await db
      .update(users)
      .set({ lockedAt: body.locked ? new Date() : null })
      .where(eq(users.id, user.id));
    ctx.sessions.forgetUser(user.id);
    let sessionsEnded = 0;
    if (body.locked) {
      sessionsEnded = (await db.select({ id: sessions.id }).from(sessions).where(eq(sessions.userId, user.id))).length;
      await ctx.sessions.destroyAllForUser(user.id);
    }
    return { sessionsEnded };
  });
}
