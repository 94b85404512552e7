import { endpoints } from '@spawnpoint/contracts';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { sessions, users } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { drawGiveaway } from './public-site.ts';

/** Endpoints for the operator's command line, authenticated with the operator token (checked by the router). */
export function operatorRoutes(route: Route, ctx: AppContext): void {
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
