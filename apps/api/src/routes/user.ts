import { SOCKET_TOKEN_TTL_MS } from '@spawnpoint/contracts';
import type { FastifyInstance } from 'fastify';
import { signPurposeToken } from '../auth/tokens.ts';
import { requireSession, type AppContext } from '../context.ts';
import { ok } from '../http/errors.ts';
import { presentUser } from './present.ts';

export const SOCKET_TOKEN_PURPOSE = 'socket';

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
    return ok({ token: signPurposeToken(ctx.config.appSecret, SOCKET_TOKEN_PURPOSE, session.sessionId, SOCKET_TOKEN_TTL_MS) });
  });
}
