import { FREE_BACKUP_LIMIT, agentEndpoints, backupSlotsFullMessage, planById, type AgentBackupEvent } from '@spawnpoint/contracts';

/** Backups a server keeps: its plan's number and the slots bought for it (Free's when the server is unknown). */
export const backupLimitOf = (row: { planId: string; extraBackups: number } | undefined) =>
  row ? (planById(row.planId)?.backups ?? FREE_BACKUP_LIMIT) + row.extraBackups : FREE_BACKUP_LIMIT;
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../auth/tokens.ts';
import type { Db } from '../db/index.ts';
import { backups, serverSchedules, servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { ServerHub } from '../server-hub.ts';
import { backupPercent } from '../server-relay.ts';
import type { ServerRow } from '../db/rows.ts';

// Marks a restore in the jobs map (no backup row stands for it).
export const RESTORE_JOB = 'restore';

/**
 * backupCreator: the one way a backup is made, by hand (the Backups page) or by a schedule. One job per
 * server at a time (a restore counts), the row recorded in a transaction, rotation only once the new
 * backup is complete so a failed backup never costs an older one.
 */
export class BackupJobs {
  /** The backup being made of each server (or RESTORE_JOB), by server id. */
  readonly jobs = new Map<string, string>();
  /** Last progress of each backup being made, by backup id, so a page opened midway can show it. */
  readonly percents = new Map<string, number>();
  private ended = new Map<string, (outcome: { ok: boolean; error?: string | undefined }) => void>();

  constructor(
    private db: Db,
    private hub: ServerHub,
    private nodes: NodeRegistry,
    private log: FastifyBaseLogger,
    private background: (task: () => Promise<unknown>) => void,
  ) {
    hub.intake.onBackup = (event, saved) => this.event(event, saved);
    // A node that (re)connects lists the backups it is making. Pending rows are settled only then, never
    // at this process's start: the API may have been killed while its node went on with a backup, whose
    // end the node sends when it is back (and a row deleted at start would lose it).
    hub.intake.onBackupJobs = (nodeId, running) => {
      const timer = this.goneTimers.get(nodeId);
      if (timer) clearTimeout(timer);
      this.goneTimers.delete(nodeId);
      void this.settle(nodeId, running).catch((err: unknown) => log.error({ err, nodeId }, 'settling backups failed'));
    };
    hub.intake.onGone = (nodeId) => this.nodeGone(nodeId);
  }

  /** How long a node may be away before the backups it was making are given up (tests shorten it). */
  nodeGoneMs = 10 * 60_000;
  private goneTimers = new Map<string, NodeJS.Timeout>();
  /** Backups copied from shared storage by whichever node could: not tied to the server's own node. */
  private viaStorage = new Set<string>();

  /**
   * A node stopped answering. If it is still away after `nodeGoneMs`, the backups it was making fail (their
   * servers may back up again, once they are somewhere that answers); one that ends later is not listed.
   * A node back in time settles them itself (its hello says what it is still making).
   */
  private nodeGone(nodeId: string): void {
    if (this.goneTimers.has(nodeId)) return;
    const timer = setTimeout(() => {
      this.goneTimers.delete(nodeId);
      if (this.nodes.isConnected(nodeId)) return;
      for (const serverId of this.hub.serversOn(nodeId)) {
        const backupId = this.jobs.get(serverId);
        if (!backupId || backupId === RESTORE_JOB || this.viaStorage.has(backupId)) continue;
        this.failUnheard(
          nodeId,
          serverId,
          backupId,
          'The node stopped answering during the backup, so it was given up. Back up again once the server is reachable.',
        );
      }
    }, this.nodeGoneMs);
    timer.unref();
    this.goneTimers.set(nodeId, timer);
  }

  // Backups whose end (complete or failed) is being recorded now: not to be settled as unheard.
  private recording = new Set<string>();

  /**
   * After a node's hello: a backup it lists is ours again (this process may have started since it
   * began), and a pending one of its servers that it neither lists nor is reporting the end of ended while
   * nobody could hear it (the agent restarted midway): it failed, and the server may back up again.
   */
  private async settle(nodeId: string, running: { serverId: string; backupId: string }[]): Promise<void> {
    const still = new Map(running.map((b) => [b.serverId, b.backupId]));
    for (const [serverId, backupId] of still) if (!this.jobs.has(serverId)) this.jobs.set(serverId, backupId);
    const serverIds = this.hub.serversOn(nodeId);
    const pending = serverIds.length
      ? await this.db
          .select({ id: backups.id, serverId: backups.serverId })
          .from(backups)
          .where(and(eq(backups.status, 'pending'), inArray(backups.serverId, serverIds)))
      : [];
    const unheard = new Map(pending.map((row) => [row.id, row.serverId]));
    for (const serverId of serverIds) {
      const backupId = this.jobs.get(serverId);
      if (backupId && backupId !== RESTORE_JOB) unheard.set(backupId, serverId);
    }
    for (const [backupId, serverId] of unheard) {
      if (still.get(serverId) === backupId || this.recording.has(backupId)) continue;
      // Its end may have been recorded since the rows above were read: the node sends how a backup ended
      // just before its hello, and on PostgreSQL that completion can commit between the read and here. Only a
      // backup still pending failed unheard (the delete waits for a completion being written, then finds the
      // row complete), so a complete backup is never reported failed nor removed.
      await this.db.delete(backups).where(and(eq(backups.id, backupId), eq(backups.status, 'pending')));
      const [now] = await this.db.select({ status: backups.status }).from(backups).where(eq(backups.id, backupId)).limit(1);
      if (now?.status === 'complete') continue;
      this.failUnheard(nodeId, serverId, backupId, 'The node restarted during the backup.');
    }
  }

  /** Ends a backup its node cannot report on as failed, through the same path as a node's own report. */
  private failUnheard(nodeId: string, serverId: string, backupId: string, error: string): void {
    this.hub.intake.backup(nodeId, { serverId, backupId, phase: 'failed', bytes: 0, totalBytes: 0, error });
  }

  /** INVALID_STATE when the server cannot be backed up now (a job running, or starting, stopping, …). */
  check(server: ServerRow): void {
    if (this.jobs.has(server.id)) throw new ApiError('INVALID_STATE', undefined, 'A backup of this server is already running.');
    const state = this.hub.stateOf(server.id);
    // Asleep in shared storage it backs up from its archive there; on its way there or back it cannot.
    const away = this.hub.folderAway(server.id);
    if (away && !(state === 'sleeping' && this.hub.inStorage(server.id))) throw new ApiError('INVALID_STATE', undefined, away);
    // A sleeping server is a stopped one (free servers sleep most of the time): it backs up as offline.
    if (state !== 'offline' && state !== 'online' && state !== 'sleeping')
      throw new ApiError('INVALID_STATE', undefined, `Cannot back up the server while it is ${state.replace('_', ' ')}.`);
  }

  /** Starts a backup; resolves once the node took the job. `finished` resolves when it completes or fails. */
  async create(
    server: ServerRow,
    scheduleId: string | null = null,
    /** Whether this backup may rotate the oldest unlocked one out (the caller holds `backups.delete`, or a schedule). */
    mayRotate = true,
  ): Promise<{ backupId: string; finished: Promise<{ ok: boolean; error?: string | undefined }> }> {
    this.check(server);
    const state = this.hub.stateOf(server.id);
    const stored = this.hub.inStorage(server.id);
    // Its node shows the backup and then "offline"; the server goes back to sleep, not to offline.
    const asleep = state === 'sleeping' && !stored;
    if (asleep) this.hub.sleepWhenStopped(server.id, true);
    const backupId = newId();
    this.jobs.set(server.id, backupId);
    const finished = new Promise<{ ok: boolean; error?: string | undefined }>((resolve) => this.ended.set(backupId, resolve));
    try {
      await this.db.transaction(async (tx) => {
        const [locked] = await tx
          .select({ planId: servers.planId, extraBackups: servers.extraBackups })
          .from(servers)
          .where(eq(servers.id, server.id))
          .for('update');
        const complete = await tx
          .select()
          .from(backups)
          .where(and(eq(backups.serverId, server.id), eq(backups.status, 'complete')));
        const limit = backupLimitOf(locked);
        if (complete.length >= limit && complete.every((b) => b.locked))
          throw new ApiError('INVALID_STATE', undefined, `All ${limit} backups are locked. Unlock or delete one first.`);
        if (complete.length >= limit && !mayRotate) throw new ApiError('NO_PERMISSION', undefined, backupSlotsFullMessage(limit));
        await tx.insert(backups).values({ id: backupId, serverId: server.id, status: 'pending', scheduleId });
      });
      if (stored) await this.fromStorage(server.id, backupId);
      else await this.nodes.call(server.nodeId, agentEndpoints.backupCreate, { params: { serverId: server.id, backupId } });
      return { backupId, finished };
    } catch (err) {
      if (asleep) this.hub.sleepWhenStopped(server.id, false);
      // The node never took the job: its pending row would stand for nothing.
      await this.db
        .delete(backups)
        .where(and(eq(backups.id, backupId), eq(backups.status, 'pending')))
        .catch(() => undefined);
      this.jobs.delete(server.id);
      this.ended.delete(backupId);
      throw err;
    }
  }

  /**
   * A backup of a server asleep in shared storage: a node naming that storage (its own first) copies the
   * stored archive, checked against its recorded SHA-256, as the backup. Its progress and end go through
   * the hub as a node's would. Resolves once a node took the job; NODE_UNAVAILABLE when none can.
   */
  private async fromStorage(serverId: string, backupId: string): Promise<void> {
    const [row] = await this.db.select().from(servers).where(eq(servers.id, serverId)).limit(1);
    if (!row?.storedIn || !row.storedSha256)
      throw new ApiError('INVALID_STATE', undefined, 'The server is not in storage any more. Try again.');
    const { storedIn, storedSha256 } = row;
    const able = (id: string) => this.nodes.isConnected(id) && this.nodes.storageOf(id) === storedIn;
    const through = able(row.nodeId) ? row.nodeId : this.nodes.connectedIds().find(able);
    if (!through) throw new ApiError('NODE_UNAVAILABLE');
    // Reported as its placed node's, which is where the hub expects a server's backups to come from.
    const report = (event: Omit<AgentBackupEvent, 'serverId' | 'backupId'>) =>
      this.hub.intake.backup(row.nodeId, { serverId, backupId, ...event });
    report({ phase: 'running', bytes: 0, totalBytes: 1 });
    this.viaStorage.add(backupId);
    this.background(async () => {
      try {
        const { size } = await this.nodes.call(
          through,
          agentEndpoints.backupFromStorage,
          { params: { serverId, backupId }, body: { sha256: storedSha256 } },
          30 * 60_000,
        );
        report({ phase: 'complete', bytes: size, totalBytes: size, size, sha256: storedSha256 });
      } catch (err) {
        report({ phase: 'failed', bytes: 0, totalBytes: 1, error: err instanceof Error ? err.message : String(err) });
      } finally {
        this.viaStorage.delete(backupId);
      }
    });
  }

  private event(event: AgentBackupEvent, onSaved?: () => void): void {
    if (event.phase === 'running') {
      this.percents.set(event.backupId, backupPercent(event));
      return;
    }
    const row = and(eq(backups.id, event.backupId), eq(backups.serverId, event.serverId));
    this.recording.add(event.backupId);
    const recorded =
      event.phase === 'complete'
        ? this.completeAndRotate(event)
        : // A failure removes the pending row only: a late or repeated failure report never takes a complete backup.
          this.db
            .delete(backups)
            .where(and(row, eq(backups.status, 'pending')))
            .then(() => undefined);
    // The job ends once the list says how it ended: a page that sees `running` false must find the backup
    // listed (or gone), never "not running" with the backup still pending.
    void recorded
      .then(
        () => true,
        (err: unknown) => {
          this.log.error({ err }, `backup ${event.phase === 'complete' ? 'completion' : 'cleanup'} failed`);
          return false;
        },
      )
      .then((saved) => {
        this.recording.delete(event.backupId);
        // An end that could not be saved keeps the job (the node sends it again): no other backup of the
        // server starts meanwhile, whose place in the node's list could get this one settled as failed.
        if (saved && this.jobs.get(event.serverId) === event.backupId) this.jobs.delete(event.serverId);
        this.percents.delete(event.backupId);
        const ok = event.phase === 'complete' && saved;
        this.ended.get(event.backupId)?.({ ok, error: ok ? undefined : (event.error ?? 'The backup could not be recorded.') });
        this.ended.delete(event.backupId);
        // The node forgets how it ended only once that is saved; otherwise it sends it again.
        if (saved) onSaved?.();
      });
  }

  /**
   * Rotation happens only once the new backup is complete. A schedule's backup first makes its own older
   * ones beyond the schedule's `keep` go; then the oldest unlocked backups beyond the plan's count go, locked ones never.
   */
  private async completeAndRotate(event: AgentBackupEvent): Promise<void> {
    const rotated = await this.db.transaction(async (tx) => {
      await tx.select({ id: servers.id }).from(servers).where(eq(servers.id, event.serverId)).for('no key update');
      const marked = await tx
        .update(backups)
        .set({ status: 'complete', sizeBytes: event.size ?? 0, sha256: event.sha256 ?? '' })
        .where(and(eq(backups.id, event.backupId), eq(backups.serverId, event.serverId)))
        .returning({ id: backups.id });
      // No row (deleted meanwhile): nothing to list and nothing to rotate for it.
      if (!marked.length) {
        this.log.warn({ serverId: event.serverId, backupId: event.backupId }, 'a backup completed whose row is gone: not listed');
        return [];
      }
      const complete = await tx
        .select()
        .from(backups)
        .where(and(eq(backups.serverId, event.serverId), eq(backups.status, 'complete')))
        .orderBy(asc(backups.createdAt));
      const fresh = complete.find((b) => b.id === event.backupId);
      const out = new Set<(typeof complete)[number]>();
      // The schedule's retention as it is now (a schedule deleted meanwhile keeps nothing of its own).
      const [schedule] = fresh?.scheduleId
        ? await tx.select({ action: serverSchedules.action }).from(serverSchedules).where(eq(serverSchedules.id, fresh.scheduleId)).limit(1)
        : [];
      const keep = schedule?.action.kind === 'backup' ? schedule.action.keep : undefined;
      if (keep !== undefined && fresh?.scheduleId) {
        const own = complete.filter((b) => b.scheduleId === fresh.scheduleId && !b.locked && b.id !== event.backupId);
        for (const old of own.slice(0, Math.max(0, own.length + 1 - keep))) out.add(old);
      }
      const left = complete.filter((b) => !out.has(b));
      const unlocked = left.filter((b) => !b.locked && b.id !== event.backupId);
      const [owner] = await tx
        .select({ planId: servers.planId, extraBackups: servers.extraBackups })
        .from(servers)
        .where(eq(servers.id, event.serverId))
        .limit(1);
      for (const old of unlocked.slice(0, Math.max(0, left.length - backupLimitOf(owner)))) out.add(old);
      for (const old of out) await tx.delete(backups).where(eq(backups.id, old.id));
      return [...out];
    });
    const nodeId = this.hub.nodeOf(event.serverId);
    for (const old of rotated)
      if (nodeId)
        this.background(() =>
          this.nodes.call(nodeId, agentEndpoints.backupDelete, { params: { serverId: event.serverId, backupId: old.id } }),
        );
  }
}
