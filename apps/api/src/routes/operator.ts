import { timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { sessions, users } from '../db/schema.ts';
import { ApiError, ok, parse } from '../http/errors.ts';
import { drawGiveaway } from './public-site.ts';

const lockRequest = z.object({ emailAddress: z.string().trim().toLowerCase().max(254), locked: z.boolean() });

/** Endpoints for the operator's command line, authenticated with the operator token. */
export function operatorRoutes(app: FastifyInstance, ctx: AppContext, operatorToken: string): void {
  const { db } = ctx.database;
  const expected = Buffer.from(operatorToken);
  const authorize = (header: string | undefined) => {
    const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new ApiError('NO_PERMISSION');
  };

  app.post('/v1/operator/giveaways/draw', async (request) => {
    authorize(request.headers.authorization);
    const { slug, seed } = parse(z.object({ slug: z.string().min(1).max(64), seed: z.string().min(8).max(128).optional() }), request.body);
    return ok(await drawGiveaway(ctx, slug, seed));
  });

  app.post('/v1/operator/accounts/lock', async (request) => {
    authorize(request.headers.authorization);
    const body = parse(lockRequest, request.body);
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
    return ok({ sessionsEnded });
  });
}
