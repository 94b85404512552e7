import { describeDevice, endpoints, type SessionInfoData } from '@spawnpoint/contracts';
import { and, desc, eq, gt } from 'drizzle-orm';
import { recordEvent } from '../auth/events.ts';
import type { Given } from '../context.ts';
import { sessions } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'database' | 'sessions'>;

/** The account's sessions: list them, end one (its socket is cut at once), end every other. */
export function sessionRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;

  route(endpoints.sessions, async ({ session }) => {
    const rows = await db
      .select()
      .from(sessions)
      .where(and(eq(sessions.userId, session.user.id), gt(sessions.expiresAt, new Date())))
      .orderBy(desc(sessions.lastSeenAt));
    const result: SessionInfoData[] = rows.map((row) => ({
      sessionId: row.id,
      device: describeDevice(row.userAgent),
      ip: row.ip,
      createdAt: row.createdAt.toISOString(),
      lastSeenAt: row.lastSeenAt.toISOString(),
      current: row.id === session.sessionId,
    }));
    return result;
  });

  route(endpoints.sessionEnd, async ({ request, session, params: { sessionId } }) => {
    const [row] = await db
      .select({ id: sessions.id })
      .from(sessions)
      .where(and(eq(sessions.id, sessionId), eq(sessions.userId, session.user.id)))
      .limit(1);
    if (!row) throw new ApiError('NOT_FOUND');
    await ctx.sessions.destroy(row.id);
    await recordEvent(db, session.user.id, 'session_revoked', request);
    return null;
  });

  route(endpoints.sessionsEndOthers, async ({ request, session }) => {
    await ctx.sessions.destroyAllForUser(session.user.id, session.sessionId);
    await recordEvent(db, session.user.id, 'session_revoked', request);
    return null;
  });
}
