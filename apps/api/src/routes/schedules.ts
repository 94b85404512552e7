import {
  endpoints,
  nextRuns,
  SCHEDULE_NEXT_RUNS,
  scheduleMessages,
  SCHEDULES_MAX,
  type ScheduleInput,
  type ServerSchedule,
} from '@spawnpoint/contracts';
import { and, asc, count, eq } from 'drizzle-orm';
import { newId } from '../auth/tokens.ts';
import type { Given } from '../context.ts';
import { serverSchedules, servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { nextRunAfter } from '../servers/schedule-runner.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'database'>;

type ScheduleRow = typeof serverSchedules.$inferSelect;

function present(row: ScheduleRow): ServerSchedule {
  // The first is the time the runner will act on (it can be past, if the API was down); then those after it.
  const first = row.enabled ? row.nextRunAt : null;
  const later = first ? nextRuns(row.cron, row.timeZone, SCHEDULE_NEXT_RUNS - 1, first) : [];
  return {
    scheduleId: row.id,
    name: row.name,
    cron: row.cron,
    timeZone: row.timeZone,
    // As stored (a limit lowered since it was saved does not hide the schedule).
    action: row.action,
    onlyWhenOnline: row.onlyWhenOnline,
    enabled: row.enabled,
    nextRuns: first ? [first, ...('error' in later ? [] : later)].map((d) => d.toISOString()) : [],
    lastRun: row.lastRunAt && row.lastResult ? { at: row.lastRunAt.toISOString(), result: row.lastResult, message: row.lastMessage } : null,
  };
}

/** Schedules of a server (docs/guide.md, Schedules); the runner (servers/schedule-runner.ts) runs them. */
export function scheduleRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;

  const fields = (input: ScheduleInput, lastRunAt: Date | null = null) => ({
    name: input.name,
    cron: input.cron,
    timeZone: input.timeZone,
    action: input.action,
    onlyWhenOnline: input.onlyWhenOnline,
    enabled: input.enabled,
    // Counted from now (a changed expression never runs for a time that passed while it was edited), and
    // after the time of its last run: a restart claimed and waiting out its warnings is not claimed again.
    nextRunAt: input.enabled ? nextRunAfter(input, new Date(Math.max(Date.now(), lastRunAt?.getTime() ?? 0))) : null,
  });

  const scheduleOf = async (serverId: string, scheduleId: string) => {
    const [row] = await db
      .select()
      .from(serverSchedules)
      .where(and(eq(serverSchedules.id, scheduleId), eq(serverSchedules.serverId, serverId)))
      .limit(1);
    if (!row) throw new ApiError('NOT_FOUND');
    return row;
  };

  route(endpoints.schedules, async ({ server }) => {
    const rows = await db
      .select()
      .from(serverSchedules)
      .where(eq(serverSchedules.serverId, server.id))
      .orderBy(asc(serverSchedules.createdAt));
    return { schedules: rows.map(present) };
  });

  route(
    endpoints.scheduleCreate,
    async ({ server, session, body, recordActivity }) => {
      const row = await db.transaction(async (tx) => {
        // Counted under the server's row lock, so two adds at once cannot pass the limit together.
        await tx.select({ id: servers.id }).from(servers).where(eq(servers.id, server.id)).for('no key update');
        const [{ n = 0 } = {}] = await tx.select({ n: count() }).from(serverSchedules).where(eq(serverSchedules.serverId, server.id));
        if (n >= SCHEDULES_MAX) throw new ApiError('INVALID_STATE', undefined, scheduleMessages.tooMany);
        const [created] = await tx
          .insert(serverSchedules)
          .values({ id: newId(), serverId: server.id, createdBy: session.user.id, ...fields(body) })
          .returning();
        await recordActivity(tx);
        return created as ScheduleRow;
      });
      return present(row);
    },
    { activity: ({ body }) => ({ action: 'schedule.create', target: body.name }) },
  );

  route(
    endpoints.scheduleUpdate,
    async ({ server, session, params, body, recordActivity }) => {
      const before = await scheduleOf(server.id, params.scheduleId);
      const row = await db.transaction(async (tx) => {
        // Whoever changes a schedule stands behind it from then on (it is paused if they lose the right).
        const [updated] = await tx
          .update(serverSchedules)
          .set({ ...fields(body, before.lastRunAt), createdBy: session.user.id })
          .where(and(eq(serverSchedules.id, params.scheduleId), eq(serverSchedules.serverId, server.id)))
          .returning();
        if (!updated) throw new ApiError('NOT_FOUND');
        await recordActivity(tx);
        return updated;
      });
      return present(row);
    },
    { activity: ({ body }) => ({ action: 'schedule.update', target: body.name }) },
  );

  route(endpoints.scheduleDelete, async ({ server, params, recordActivity }) => {
    const row = await scheduleOf(server.id, params.scheduleId);
    await db.transaction(async (tx) => {
      await tx.delete(serverSchedules).where(eq(serverSchedules.id, row.id));
      await recordActivity(tx, { action: 'schedule.delete', target: row.name });
    });
    return null;
  });
}
