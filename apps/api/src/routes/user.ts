import type { FastifyInstance } from 'fastify';
import { issueSocketToken } from '../auth/socket-tokens.ts';
import { requireSession, type AppContext } from '../context.ts';
import { ok } from '../http/errors.ts';
import { presentUser } from './present.ts';

export function userRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/v1/user/me', async (request) => {
    const session = await requireSession(ctx, request);
    return ok(presentUser(session.user, ctx.config.appSecret));
  });

  app.get('/v1/user/servers', async (request) => {
    const session = await requireSession(ctx, request);
    const { directory } = ctx.game;
    return ok((await directory.listForUser(session.user.id)).map((row) => directory.summary(row)));
  });

  app.get('/v1/user/websocket', async (request) => {
    const session = await requireSession(ctx, request);
    return ok({ token: issueSocketToken(ctx.config.appSecret, session.sessionId) });
  });
}
