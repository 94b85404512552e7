import { endpoints } from '@spawnpoint/contracts';
import { issueSocketToken } from '../auth/socket-tokens.ts';
import type { AppContext } from '../context.ts';
import type { Route } from '../http/route.ts';
import { presentUser } from './present.ts';

export function userRoutes(route: Route, ctx: AppContext): void {
  route(endpoints.me, async ({ session }) => presentUser(session.user, ctx.config.appSecret));

  route(endpoints.userServers, async ({ session }) => {
    const { directory } = ctx.game;
    return (await directory.listForUser(session.user.id)).map((row) => directory.summary(row));
  });

  route(endpoints.websocketToken, async ({ session }) => ({ token: issueSocketToken(ctx.config.appSecret, session.sessionId) }));
}
