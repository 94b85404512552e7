import { endpoints } from '@spawnpoint/contracts';
import { issueSocketToken } from '../auth/socket-tokens.ts';
import type { AppContext } from '../context.ts';
import type { Route } from '../http/route.ts';
import { presentUser } from './present.ts';

export function userRoutes(route: Route, ctx: AppContext): void {
  route(endpoints.me, async ({ session }) => presentUser(session.user, ctx.config.appSecret));

  route(endpoints.userServers, async ({ session }) => {
    const { directory } = ctx.game;
    const [owned, memberOf] = await Promise.all([directory.listForUser(session.user.id), directory.membershipsOf(session.user.id)]);
    return [...owned.map((row) => directory.summary(row)), ...memberOf.map(({ row, role }) => directory.summary(row, role))];
  });

  route(endpoints.websocketToken, async ({ session }) => ({ token: issueSocketToken(ctx.config.appSecret, session.sessionId) }));
}
