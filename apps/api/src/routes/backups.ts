import { agentEndpoints, endpoints, type BackupRestoreEvent, type restoreSteps } from '@spawnpoint/contracts';
import { and, desc, eq } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { backups } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { backupLimitOf, RESTORE_JOB } from '../servers/backup-jobs.ts';
import type { ServerRow } from '../db/rows.ts';

type BackupRow = typeof backups.$inferSelect;

const STOP_WAIT_MS = 60_000;
const START_WAIT_MS = 60_000;
/** A restore unpacks the whole world on the node: the job waits for it this long (the HTTP answer never does). */
const RESTORE_WAIT_MS = 30 * 60_000;
type RestoreStep = (typeof restoreSteps)[number];

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

/** Backups of a server: one job at a time, rotation within the plan's count, restore with stop and start. */
export function backupRoutes(route: Route, ctx: AppContext): void {
  const { db } = ctx.database;
  const { hub, power, mover, nodes, backups: backupJobs } = ctx.game;
  const { log } = ctx;
  const { jobs, percents } = backupJobs;

  /** The backup named in the path, only if it belongs to the server in the path. */
  const backupOf = async (server: ServerRow, backupId: string) => {
    const [row] = await db
      .select()
      .from(backups)
      .where(and(eq(backups.id, backupId), eq(backups.serverId, server.id), eq(backups.status, 'complete')))
      .limit(1);
    if (!row) throw new ApiError('NOT_FOUND');
    return row;
  };

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
    const row = await backupOf(server, backupId);
    const name = `${server.name}-${row.createdAt.toISOString().slice(0, 19).replace(/:/g, '-')}.tar.gz`;
    const link = await nodes.downloadLink(server.nodeId, { purpose: 'backup-download', serverId: server.id, backupId: row.id, name });
    return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(link, 302);
  });

  route(
    endpoints.backupLock,
    async ({ server, params: { backupId }, body, recordActivity }) => {
      const row = await backupOf(server, backupId);
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
      const row = await backupOf(server, backupId);
      await nodes.call(server.nodeId, agentEndpoints.backupDelete, { params: { serverId: server.id, backupId: row.id } });
      await db.transaction(async (tx) => {
        await tx.delete(backups).where(eq(backups.id, row.id));
        await recordActivity(tx, { action: 'backup.delete', target: backupLabel(row.createdAt) });
      });
      return null;
    },
    { activity: () => ({ action: 'backup.delete', target: 'backup' }) },
  );

  // backupRestorer: stop, restore into staging and swap (on the node), start again if it was running —
  // all while holding the server's power line, so no start or stop slips in between the steps. It can take
  // longer than any HTTP wait (a large world), so it is a job: the answer comes at once, and its steps and
  // end reach the server's pages as `server:restore` (the backup list says a restore runs meanwhile).
  const restorer = async (server: ServerRow, backupId: string, step: (s: RestoreStep) => void): Promise<boolean> =>
    power.exclusive(server, async (act) => {
      let at = server;
      if (hub.inStorage(server.id)) {
        // Fetched onto the node it would wake on (`downloading`), where it stays asleep, restored.
        step('fetching');
        at = await mover.fetch(await mover.prepareStart(server));
        hub.hold(server.id, 'sleeping');
      }
      // A start or stop that went just before is let finish: the restore then goes on from where it ended.
      const settled = (s: string) => s === 'online' || s === 'offline' || s === 'sleeping';
      if (!settled(hub.stateOf(server.id))) await hub.waitForState(server.id, settled, START_WAIT_MS);
      const state = hub.stateOf(server.id);
      const wasRunning = state === 'online';
      // A sleeping server is restored as a stopped one and goes back to sleep after.
      if (state === 'sleeping') hub.sleepWhenStopped(server.id, true);
      if (state !== 'offline' && state !== 'sleeping' && !wasRunning)
        throw new ApiError('INVALID_STATE', undefined, `Cannot restore while the server is ${state.replace('_', ' ')}.`);
      if (wasRunning) {
        step('stopping');
        await act('stop');
        if (!(await hub.waitForState(server.id, (s) => s === 'offline', STOP_WAIT_MS)))
          throw new ApiError('INVALID_STATE', undefined, 'The server did not stop in time, so nothing was restored.');
      }
      step('restoring');
      await nodes.call(at.nodeId, agentEndpoints.backupRestore, { params: { serverId: server.id, backupId } }, RESTORE_WAIT_MS);
      if (!wasRunning) return false;
      step('starting');
      // Says whether the server really came back, not merely that it was asked to.
      return act('start').then(
        () => hub.waitForState(server.id, (s) => s === 'online', START_WAIT_MS),
        () => false,
      );
    });

  route(
    endpoints.backupRestore,
    async ({ server, params: { backupId }, recordActivity }) => {
      const row = await backupOf(server, backupId);
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
        hub.restore({ serverId: server.id, backupId: row.id, ...event });
      void restorer(server, row.id, (step) => tell({ phase: 'running', step }))
        .then(
          (started) => tell({ phase: 'complete', started }),
          (err: unknown) => {
            if (!(err instanceof ApiError)) log.error({ err, serverId: server.id }, 'a restore failed');
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
