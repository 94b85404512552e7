import { endpoints, type OperatorNode } from '@spawnpoint/contracts';
import { count, eq, ilike } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { nodeSettings, servers, sessions, users } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { drawGiveaway } from './public-site.ts';

/** Endpoints for the operator's command line, authenticated with the operator token (checked by the router). */
export function operatorRoutes(route: Route, ctx: AppContext): void {
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

  route(endpoints.operatorNodeDrain, async ({ body }) => {
    if (!nodes.config(body.nodeId)) throw new ApiError('NOT_FOUND', undefined, `No node with the id ${body.nodeId} (see AGENTS).`);
    await db
      .insert(nodeSettings)
      .values({ nodeId: body.nodeId, draining: body.draining })
      .onConflictDoUpdate({ target: nodeSettings.nodeId, set: { draining: body.draining, updatedAt: new Date() } });
    return (await nodeList()).find((n) => n.nodeId === body.nodeId) as OperatorNode;
  });

  route(endpoints.operatorServers, async ({ query }) => {
    // A part of the name: a `%`, `_` or backslash typed is taken literally.
    const pattern = `%${query.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await db
      .select({ serverId: servers.id, name: servers.name, ownerEmail: users.emailAddress, nodeId: servers.nodeId })
      .from(servers)
      .innerJoin(users, eq(users.id, servers.ownerId))
      .where(ilike(servers.name, pattern))
      .orderBy(servers.name)
      .limit(50);
    return rows.map((row) => ({ ...row, state: hub.stateOf(row.serverId) }));
  });

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
