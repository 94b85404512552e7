import { feedbackRequest } from '@spawnpoint/contracts';
import type { FastifyInstance } from 'fastify';
import { newId } from '../auth/tokens.ts';
import { optionalSession, type AppContext } from '../context.ts';
import { feedback } from '../db/schema.ts';
import { ApiError, failureBody, ok, parse } from '../http/errors.ts';

export function miscRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/healthz', async (_request, reply) => {
    try {
      await ctx.database.ping();
    } catch {
      return reply.status(503).send(failureBody('TEMPORARILY_DISABLED', undefined, 'The database is not reachable.'));
    }
    return ok({ database: 'ok' as const, agents: ctx.game.nodes.connectedIds() });
  });

  app.post('/v1/feedback/submit', async (request) => {
    await ctx.limit('feedbackPerIp', request);
    const body = parse(feedbackRequest, request.body);
    const session = await optionalSession(ctx, request);
    await ctx.database.db.insert(feedback).values({
      id: newId(),
      userId: session?.user.id ?? null,
      message: body.message,
      route: body.route,
      userAgent: request.headers['user-agent']?.slice(0, 512) ?? null,
    });
    return ok(null);
  });

  app.get('/v1/localization', async () => ok({ currency: ctx.config.CURRENCY }));

  app.get('/v1/route-rules', async () => ok(ctx.config.ROUTE_RULES));

  // Unknown /v1 paths: NOT_FOUND in the envelope, never the web app's HTML.
  app.all('/v1/*', async () => {
    throw new ApiError('NOT_FOUND');
  });
}
