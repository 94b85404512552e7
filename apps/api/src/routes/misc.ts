import { endpoints } from '@spawnpoint/contracts';
import type { FastifyInstance } from 'fastify';
import { newId } from '../auth/tokens.ts';
import { optionalSession, type Given } from '../context.ts';
import { feedback } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'config' | 'database' | 'sessions', 'nodes'>;

export function miscRoutes(app: FastifyInstance, route: Route, ctx: Services): void {
  route(endpoints.health, async () => {
    await ctx.database.ping().catch(() => {
      throw new ApiError('TEMPORARILY_DISABLED', undefined, 'The database is not reachable.');
    });
    return { database: 'ok' as const, agents: ctx.game.nodes.connectedIds() };
  });

  route(
    endpoints.feedback,
    async ({ request, body }) => {
      const session = await optionalSession(ctx, request);
      await ctx.database.db.insert(feedback).values({
        id: newId(),
        userId: session?.user.id ?? null,
        message: body.message,
        route: body.route,
        userAgent: request.headers['user-agent']?.slice(0, 512) ?? null,
      });
      return null;
    },
    { limit: 'feedbackPerIp' },
  );

  route(endpoints.localization, async () => ({ currency: ctx.config.CURRENCY }));

  route(endpoints.routeRules, async () => ctx.config.ROUTE_RULES);

  // Unknown /v1 paths: NOT_FOUND in the envelope, never the web app's HTML.
  app.all('/v1/*', async () => {
    throw new ApiError('NOT_FOUND');
  });
}
