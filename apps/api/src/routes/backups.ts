import { FREE_BACKUP_LIMIT, agentEndpoints, endpoints, type AgentBackupEvent } from '@spawnpoint/contracts';
import { and, asc, desc, eq } from 'drizzle-orm';
import { newId } from '../auth/tokens.ts';
import type { AppContext } from '../context.ts';
import { backups, servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { backupPercent } from '../server-hub.ts';
import type { ServerRow } from '../servers/server-creator.ts';

type BackupRow = typeof backups.$inferSelect;

// Marks a restore in the jobs map (no backup row stands for it).
const RESTORE = 'restore';
const STOP_WAIT_MS = 60_000;
const START_WAIT_MS = 60_000;

const present = (row: BackupRow) => ({
  backupId: row.id,
  createdAt: row.createdAt.toISOString(),
  size: row.sizeBytes,
  sha256: row.sha256,
  locked: row.locked,
});

/** Backups of a server: one job at a time, rotation within the plan's count, restore with stop and start. */
export function backupRoutes(route: Route, ctx: AppContext): void {
  const { db } = ctx.database;
  const { nodes, hub, power } = ctx.game;
  // The backup being made of each server (one at a time), by server id.
  const jobs = new Map<string, string>();
  // Last progress of each backup being made, by backup id, so a page opened midway can show it.
  const percents = new Map<string, number>();

  // A crash can leave a pending row; it was never listed and its partial file is gone with the agent's.
  void db
    .delete(backups)
    .where(eq(backups.status, 'pending'))
    .catch((err: unknown) => ctx.log.error({ err }, 'pending backup cleanup failed'));

  hub.onBackup = (event: AgentBackupEvent) => {
    if (event.phase === 'running') {
      percents.set(event.backupId, backupPercent(event));
      return;
    }
    const row = and(eq(backups.id, event.backupId), eq(backups.serverId, event.serverId));
    const recorded =
      event.phase === 'complete'
        ? completeAndRotate(event)
        : db
            .delete(backups)
            .where(row)
            .then(() => undefined);
    // The job ends once the list says how it ended: a page that sees `running` false must find the backup
    // listed (or gone), never "not running" with the backup still pending.
    void recorded
      .catch((err: unknown) => ctx.log.error({ err }, `backup ${event.phase === 'complete' ? 'completion' : 'cleanup'} failed`))
      .finally(() => {
        if (jobs.get(event.serverId) === event.backupId) jobs.delete(event.serverId);
        percents.delete(event.backupId);
      });
  };

  /**
   * Rotation happens only once the new backup is complete: a backup that fails never costs the user an
   * older one. The oldest unlocked backups beyond the plan's count go, locked ones never.
   */
  const completeAndRotate = async (event: AgentBackupEvent) => {
    const rotated = await db.transaction(async (tx) => {
      await tx.select({ id: servers.id }).from(servers).where(eq(servers.id, event.serverId)).for('update');
      await tx
        .update(backups)
        .set({ status: 'complete', sizeBytes: event.size ?? 0, sha256: event.sha256 ?? '' })
        .where(and(eq(backups.id, event.backupId), eq(backups.serverId, event.serverId)));
      const complete = await tx
        .select()
        .from(backups)
        .where(and(eq(backups.serverId, event.serverId), eq(backups.status, 'complete')))
        .orderBy(asc(backups.createdAt));
      const out = complete.filter((b) => !b.locked && b.id !== event.backupId).slice(0, Math.max(0, complete.length - FREE_BACKUP_LIMIT));
      for (const old of out) await tx.delete(backups).where(eq(backups.id, old.id));
      return out;
    });
    const nodeId = hub.nodeOf(event.serverId);
    for (const old of rotated)
      if (nodeId)
        ctx.background(() => nodes.call(nodeId, agentEndpoints.backupDelete, { params: { serverId: event.serverId, backupId: old.id } }));
  };

  // A node that (re)connects lists the backups it is making; a job of ours it does not list ended while
  // we could not hear it (the agent restarted midway): it failed, and the server may back up again.
  hub.onBackupJobs = (nodeId, running) => {
    const still = new Set(running.map((b) => `${b.serverId}/${b.backupId}`));
    for (const serverId of hub.serversOn(nodeId)) {
      const backupId = jobs.get(serverId);
      if (!backupId || still.has(`${serverId}/${backupId}`)) continue;
      if (backupId === RESTORE) continue;
      hub.backup(nodeId, { serverId, backupId, phase: 'failed', bytes: 0, totalBytes: 0, error: 'The node restarted during the backup.' });
    }
  };

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
    const rows = await db.select().from(backups).where(eq(backups.serverId, server.id)).orderBy(desc(backups.createdAt));
    // The newest pending row is the job's; a row no job stands for is a leftover and shows nothing.
    const job = jobs.get(server.id);
    const pending = job ? rows.find((row) => row.id === job && row.status === 'pending') : undefined;
    return {
      backups: rows.filter((row) => row.status === 'complete').map(present),
      limit: FREE_BACKUP_LIMIT,
      running: jobs.has(server.id),
      pending: pending ? { backupId: pending.id, percent: percents.get(pending.id) ?? 0 } : null,
    };
  });

  route(
    endpoints.backupCreate,
    async ({ request, server }) => {
      if (jobs.has(server.id)) throw new ApiError('INVALID_STATE', undefined, 'A backup of this server is already running.');
      const state = hub.stateOf(server.id);
      // A sleeping server is a stopped one (free servers sleep most of the time): it backs up as offline.
      if (state !== 'offline' && state !== 'online' && state !== 'sleeping')
        throw new ApiError('INVALID_STATE', undefined, `Cannot back up the server while it is ${state.replace('_', ' ')}.`);
      await ctx.limit('backupsPerServer', request, server.id);
      // Its node shows the backup and then "offline"; the server goes back to sleep, not to offline.
      const asleep = state === 'sleeping';
      if (asleep) hub.sleepWhenStopped(server.id, true);
      const backupId = newId();
      jobs.set(server.id, backupId);
      try {
        // backupCreator: check and record in one transaction. Nothing is rotated here: only once the new
        // backup is complete (completeAndRotate), so a failed one costs nothing.
        await db.transaction(async (tx) => {
          await tx.select({ id: servers.id }).from(servers).where(eq(servers.id, server.id)).for('update');
          const complete = await tx
            .select()
            .from(backups)
            .where(and(eq(backups.serverId, server.id), eq(backups.status, 'complete')));
          if (complete.length >= FREE_BACKUP_LIMIT && complete.every((b) => b.locked))
            throw new ApiError('INVALID_STATE', undefined, `All ${FREE_BACKUP_LIMIT} backups are locked. Unlock or delete one first.`);
          await tx.insert(backups).values({ id: backupId, serverId: server.id, status: 'pending' });
        });
        await nodes.call(server.nodeId, agentEndpoints.backupCreate, { params: { serverId: server.id, backupId } });
        return { backupId };
      } catch (err) {
        if (asleep) hub.sleepWhenStopped(server.id, false);
        // The node never took the job: its pending row would stand for nothing.
        await db
          .delete(backups)
          .where(and(eq(backups.id, backupId), eq(backups.status, 'pending')))
          .catch(() => undefined);
        jobs.delete(server.id);
        throw err;
      }
      // Logged once the node took the job (whether it completes shows on the Backups page).
    },
    { activity: (_call, result) => ({ action: 'backup.create', target: result?.backupId ?? '' }) },
  );

  // Straight from the node: a redirect to a link that works for 60 s and for this backup only.
  route(endpoints.backupDownload, async ({ reply, server, params: { backupId } }) => {
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
        await recordActivity(tx);
      });
      return present({ ...row, locked: body.locked });
    },
    { activity: ({ params, body }) => ({ action: body.locked ? 'backup.lock' : 'backup.unlock', target: params.backupId }) },
  );

  route(
    endpoints.backupDelete,
    async ({ server, params: { backupId }, recordActivity }) => {
      const row = await backupOf(server, backupId);
      await nodes.call(server.nodeId, agentEndpoints.backupDelete, { params: { serverId: server.id, backupId: row.id } });
      await db.transaction(async (tx) => {
        await tx.delete(backups).where(eq(backups.id, row.id));
        await recordActivity(tx);
      });
      return null;
    },
    { activity: ({ params }) => ({ action: 'backup.delete', target: params.backupId }) },
  );

  // backupRestorer: stop, restore into staging and swap (on the node), start again if it was running —
  // all while holding the server's power line, so no start or stop slips in between the steps.
  route(
    endpoints.backupRestore,
    async ({ server, params: { backupId } }) => {
      const row = await backupOf(server, backupId);
      if (jobs.has(server.id)) throw new ApiError('INVALID_STATE', undefined, 'A backup of this server is running. Wait for it to finish.');
      jobs.set(server.id, RESTORE);
      try {
        const result = await power.exclusive(server, async (act) => {
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
            await act('stop');
            if (!(await hub.waitForState(server.id, (s) => s === 'offline', STOP_WAIT_MS)))
              throw new ApiError('INVALID_STATE', undefined, 'The server did not stop in time, so nothing was restored.');
          }
          await nodes.call(server.nodeId, agentEndpoints.backupRestore, { params: { serverId: server.id, backupId: row.id } });
          if (!wasRunning) return { restored: row.id, started: false };
          // Says whether the server really came back, not merely that it was asked to.
          const started = await act('start').then(
            () => hub.waitForState(server.id, (s) => s === 'online', START_WAIT_MS),
            () => false,
          );
          return { restored: row.id, started };
        });
        return result;
      } finally {
        if (jobs.get(server.id) === RESTORE) jobs.delete(server.id);
      }
    },
    { activity: ({ params }) => ({ action: 'backup.restore', target: params.backupId }) },
  );
}
