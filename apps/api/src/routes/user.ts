import { endpoints } from '@spawnpoint/contracts';
import { issueSocketToken } from '../auth/socket-tokens.ts';
import { optionalSession, type Given } from '../context.ts';
import type { Route } from '../http/route.ts';
import { presentUser } from './present.ts';
import type { UserLists } from '../servers/user-lists.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'config' | 'sessions', 'directory'>;

export function userRoutes(route: Route, ctx: Services): void {
  route(endpoints.me, ({ session }) => presentUser(session.user, ctx.config.appSecret));
  route(endpoints.sessionUser, async ({ request }) => {
    const session = await optionalSession(ctx, request);
    // A locked account is signed out for every page (requireSession refuses it too).
    return { user: session && !session.user.lockedAt ? presentUser(session.user, ctx.config.appSecret) : null };
  });

  // Made once, not per request: under tsx every named closure made in a handler also costs a defineProperty.
  const { directory } = ctx.game;
  const summaries = ({ owned, memberOf }: UserLists) => [
    ...owned.map((row) => directory.summary(row)),
    ...memberOf.map(({ row, role }) => directory.summary(row, role)),
  ];
  route(endpoints.userServers, ({ session }) => {
    // Polled by every signed-in tab: answered without a promise when the lists are in memory.
    const lists = directory.lists.listsOf(session.user.id);
    return lists instanceof Promise ? lists.then(summaries) : summaries(lists);
  });

  route(endpoints.websocketToken, async ({ session }) => ({ token: issueSocketToken(ctx.config.appSecret, session.sessionId) }));
}
