import { agentEndpoints, endpoints, type BackupRestoreEvent } from '@spawnpoint/contracts';
import { and, desc, eq } from 'drizzle-orm';
import type { Given } from '../context.ts';
import { backups } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { backupLimitOf, RESTORE_JOB } from '../servers/backup-jobs.ts';
import type { ServerRow } from '../db/rows.ts';
import { backupRestorer } from '../servers/backup-restorer.ts';
import type { Database } from '../db/index.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'database' | 'limit' | 'log', 'hub' | 'power' | 'mover' | 'nodes' | 'backups'>;

type BackupRow = typeof backups.$inferSelect;

const present = (row: BackupRow) => ({
  backupId: row.id,
  createdAt: row.createdAt.toISOString(),
  size: row.sizeBytes,
  sha256: row.sha256,
  locked: row.locked,
});

/**
 * How the activity log names a backup: by the time it was made, as the Backups page lists it (its id means
 * nothing to a reader). UTC, since the log is read by members in other zones.
 */
export const backupLabel = (createdAt: Date) => `backup of ${createdAt.toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** The backup named in the path, only if it belongs to the server in the path. */
async function backupOf(db: Database['db'], server: ServerRow, backupId: string): Promise<BackupRow> {
  const [row] = await db
    .select()
    .from(backups)
    .where(and(eq(backups.id, backupId), eq(backups.serverId, server.id), eq(backups.status, 'complete')))
    .limit(1);
  if (!row) throw new ApiError('NOT_FOUND');
  return row;
}

/** Backups of a server: one job at a time, rotation within the plan's count, restore with stop and start. */
export function backupRoutes(route: Route, ctx: Services): void {
  backupListRoutes(route, ctx);
  backupChangeRoutes(route, ctx);
  backupRestoreRoutes(route, ctx);
}

/** The list (with the running job), a new backup, and a download. */
function backupListRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;
  const { backups: backupJobs } = ctx.game;
  const { jobs, percents } = backupJobs;

  route(endpoints.backups, async ({ server }) => {
    // The job is read before the rows: a job that ends while they are read was recorded (and its rotation
    // done) before it ended, so its rows are seen; read after, a stale snapshot could show as finished.
    const job = jobs.get(server.id);
    const rows = await db.select().from(backups).where(eq(backups.serverId, server.id)).orderBy(desc(backups.createdAt));
    // The newest pending row is the job's; a row no job stands for is a leftover and shows nothing.
    const pending = job ? rows.find((row) => row.id === job && row.status === 'pending') : undefined;
    // A job whose backup is already recorded complete is over for the page (the job is cleared a moment later).
    const recorded = job ? rows.some((row) => row.id === job && row.status === 'complete') : false;
    return {
      backups: rows.filter((row) => row.status === 'complete').map(present),
      limit: backupLimitOf(server),
      running: job !== undefined && !recorded,
      pending: pending ? { backupId: pending.id, percent: percents.get(pending.id) ?? 0 } : null,
    };
  });

  route(
    endpoints.backupCreate,
    async ({ request, server, access }) => {
      // A refusal (a job running, a state that cannot back up) does not use the server's budget.
      backupJobs.check(server);
      await ctx.limit('backupsPerServer', request, server.id);
      // Only a role that may delete backups may make one that rotates the oldest out.
      const { backupId } = await backupJobs.create(server, null, access.permissions.includes('backups.delete'));
      return { backupId };
    },
    // Logged once the node took the job (whether it completes shows on the Backups page).
    { activity: () => ({ action: 'backup.create', target: backupLabel(new Date()) }) },
  );

  // Straight from the node: a redirect to a link that works for 60 s and for this backup only.
  route(endpoints.backupDownload, async ({ nodes, reply, server, params: { backupId } }) => {
    const row = await backupOf(db, server, backupId);
    const name = `${server.name}-${row.createdAt.toISOString().slice(0, 19).replace(/:/g, '-')}.tar.gz`;
    const link = await nodes.downloadLink(server.nodeId, { purpose: 'backup-download', serverId: server.id, backupId: row.id, name });
    return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(link, 302);
  });
}

/** Locking and deleting a backup. */
function backupChangeRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;

  route(
    endpoints.backupLock,
    async ({ server, params: { backupId }, body, recordActivity }) => {
      const row = await backupOf(db, server, backupId);
      await db.transaction(async (tx) => {
        await tx.update(backups).set({ locked: body.locked }).where(eq(backups.id, row.id));
        await recordActivity(tx, { action: body.locked ? 'backup.lock' : 'backup.unlock', target: backupLabel(row.createdAt) });
      });
      return present({ ...row, locked: body.locked });
    },
    { activity: ({ body }) => ({ action: body.locked ? 'backup.lock' : 'backup.unlock', target: 'backup' }) },
  );

  route(
    endpoints.backupDelete,
    async ({ nodes, server, params: { backupId }, recordActivity }) => {
      const row = await backupOf(db, server, backupId);
      await nodes.call(server.nodeId, agentEndpoints.backupDelete, { params: { serverId: server.id, backupId: row.id } });
      await db.transaction(async (tx) => {
        await tx.delete(backups).where(eq(backups.id, row.id));
        await recordActivity(tx, { action: 'backup.delete', target: backupLabel(row.createdAt) });
      });
      return null;
    },
    { activity: () => ({ action: 'backup.delete', target: 'backup' }) },
  );
}

/**
 * A restore: a job (backupRestorer, servers/backup-restorer.ts), answered at once; its steps and end reach the
 * server's pages as `server:restore`.
 */
function backupRestoreRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;
  const { hub } = ctx.game;
  const { jobs } = ctx.game.backups;

  route(
    endpoints.backupRestore,
    async ({ server, params: { backupId }, recordActivity }) => {
      const row = await backupOf(db, server, backupId);
      // Asleep in shared storage, its folder comes back onto a node first; on its way there or back, no.
      const inStorage = hub.inStorage(server.id) && hub.stateOf(server.id) === 'sleeping';
      const away = hub.folderAway(server.id);
      if (away && !inStorage) throw new ApiError('INVALID_STATE', undefined, away);
      if (jobs.has(server.id)) throw new ApiError('INVALID_STATE', undefined, 'A backup of this server is running. Wait for it to finish.');
      jobs.set(server.id, RESTORE_JOB);
      // Logged before the job starts; a log that cannot be written starts nothing.
      await recordActivity(db, { action: 'backup.restore', target: backupLabel(row.createdAt) }).catch((err: unknown) => {
        jobs.delete(server.id);
        throw err;
      });
      const tell = (event: Omit<BackupRestoreEvent, 'serverId' | 'backupId'>) =>
        hub.relay.restore({ serverId: server.id, backupId: row.id, ...event });
      void backupRestorer(ctx.game, server, row.id, (step) => tell({ phase: 'running', step }))
        .then(
          (started) => tell({ phase: 'complete', started }),
          (err: unknown) => {
            if (!(err instanceof ApiError)) ctx.log.error({ err, serverId: server.id }, 'a restore failed');
            tell({
              phase: 'failed',
              message: err instanceof ApiError ? err.message : 'The restore failed. Nothing of the backup was applied; try again.',
            });
          },
        )
        .finally(() => {
          if (jobs.get(server.id) === RESTORE_JOB) jobs.delete(server.id);
        });
      return { restoring: row.id };
    },
    { activity: () => ({ action: 'backup.restore', target: 'backup' }) },
  );
}
