import { backupSlotsFullMessage, type BackupRestoreEvent, type PermissionKey } from '@spawnpoint/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useParams } from 'react-router';
import { Button, buttonClass } from '../components/button.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { nextBackupJob, noBackupJob, type BackupJob, type BackupJobInput, type BackupJobState } from '../lib/backup-job.ts';
import { openDialog } from '../lib/dialogs.ts';
import { showsErrorDetails } from '../lib/environment.ts';
import { backupDownloadUrl, createBackup, deleteBackup, listBackups, lockBackup, restoreBackup } from '../lib/files.ts';
import { pageMeta } from '../lib/meta.ts';
import { formatBytes } from '../lib/servers.ts';
import { subscribeServer } from '../lib/socket.ts';
import { notify } from '../lib/toasts.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-backups', 'Back up and restore your Minecraft server.');

type Backups = Awaited<ReturnType<typeof listBackups>>;

/** What the page says of each step of a restore. */
const restoreStepText: Record<NonNullable<BackupRestoreEvent['step']>, string> = {
  fetching: 'Bringing the server back from storage…',
  stopping: 'Stopping the server…',
  restoring: 'Replacing the files with the backup…',
  starting: 'Starting the server again…',
};

/** How often the list is read again while a job runs, in case a socket event is missed (reconnecting). */
const POLL_MS = 1000;

export default function ServerBackups() {
  const { id = '' } = useParams();
  // A fresh page per server: nothing of one server's job may carry over to another's.
  return <BackupsPage key={id} id={id} />;
}

/**
 * The backups of a server and the job running on it, from every source of news: the list (read again while
 * anything runs), the server's backup and restore events, and this page's own start of a backup.
 */
function useBackups(id: string, ready: boolean) {
  const [data, setData] = useState<Backups | null>(null);
  const [job, setJob] = useState<BackupJob | null>(null);
  // The restore this page started (a job: its steps and end arrive as events), until it is over.
  const [restoring, setRestoring] = useState<{ backupId: string; step: BackupRestoreEvent['step'] } | null>(null);
  const jobState = useRef<BackupJobState>(noBackupJob);

  // Every source of news about the job goes through one reducer (lib/backup-job.ts); the page says how a
  // job ended once, whichever source saw the end.
  const apply = useCallback((input: BackupJobInput) => {
    const step = nextBackupJob(jobState.current, input);
    jobState.current = step.state;
    setJob(step.state.job);
    if (step.outcome?.kind === 'complete') notify('success', 'Backup complete');
    else if (step.outcome) {
      const why = step.outcome.message && showsErrorDetails() ? `\n${step.outcome.message}` : '';
      notify('danger', 'Whoopsie!', `The backup failed. Check the free disk space and try again.${why}`);
    }
  }, []);

  // Lists are applied in the order they were asked for, and none asked for before this page started a
  // job (it could not know the job yet and would end it).
  const asked = useRef(0);
  const applied = useRef(0);
  const refresh = useCallback(
    async (options: { background?: boolean } = {}) => {
      const seq = ++asked.current;
      const list = await listBackups(id, options).catch(() => null);
      if (!list || seq <= applied.current) return;
      applied.current = seq;
      setData(list);
      // No job runs: a restore whose end was not heard (the socket was away) is over too.
      if (!list.running) setRestoring(null);
      apply({ type: 'listed', list });
    },
    [id, apply],
  );

  useEffect(() => {
    if (ready) void refresh();
  }, [ready, refresh]);

  useEffect(
    () =>
      subscribeServer(id, {
        onBackup: (event) => {
          apply({ type: 'event', ...event });
          // The end is confirmed by the list, which then has the backup (or no longer the pending one).
          if (event.phase !== 'running') void refresh({ background: true });
        },
        onRestore: (event) => {
          if (event.phase === 'running') {
            setRestoring({ backupId: event.backupId, step: event.step });
            return;
          }
          setRestoring(null);
          if (event.phase === 'complete')
            notify('success', 'Backup restored', event.started ? 'The server is running again.' : 'Start the server when you are ready.');
          else notify('danger', 'The restore failed', event.message ?? 'Nothing of the backup was applied. Try again.');
          void refresh({ background: true });
        },
      }),
    [id, apply, refresh],
  );

  // Also read while anything runs (a restore too), so the page never waits on an event it missed.
  const running = job !== null || restoring !== null || (data?.running ?? false);
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => void refresh({ background: true }), POLL_MS);
    return () => clearInterval(timer);
  }, [running, refresh]);

  // Started here: lists asked for before it could not know the job and would end it.
  const started = (backupId: string) => {
    applied.current = asked.current;
    apply({ type: 'started', backupId });
  };
  return { data, job, restoring, setRestoring, running, refresh, started };
}

function BackupsPage({ id }: { id: string }) {
  const load = useServer(id);
  const { data, job, restoring, setRestoring, running, refresh, started } = useBackups(id, load.status === 'ready');

  // Moderators make backups; restoring, deleting and (un)locking are an administrator's (the API checks too).
  const can = (key: PermissionKey) => load.status === 'ready' && load.server.permissions.includes(key);
  // A new backup with every slot taken deletes the oldest unlocked one: only a role that may delete may.
  const slotsFull = data !== null && data.backups.length >= data.limit && load.status === 'ready' && !can('backups.delete');

  return (
    <ServerShell serverId={id} load={load}>
      <div className="space-y-4">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <p className="text-sm text-slate-600">
            {data
              ? slotsFull
                ? backupSlotsFullMessage(data.limit)
                : `${data.backups.length} of ${data.limit} backups. When full, the oldest unlocked one makes room; locked ones are kept.`
              : ''}
          </p>
          <Button
            disabled={running || slotsFull}
            onClick={async () => {
              const { backupId } = await createBackup(id);
              started(backupId);
            }}
          >
            Create backup
          </Button>
        </div>
        <JobStatus job={job} running={running} restoring={restoring} />
        {!data ? (
          <p role="status">Loading…</p>
        ) : data.backups.length === 0 ? (
          <p className="rounded-xl border-2 border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">
            No backups yet. Make one before you try something risky.
          </p>
        ) : (
          <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200 bg-white" data-testid="backup-list">
            {data.backups.map((backup) => (
              <BackupRow
                key={backup.backupId}
                serverId={id}
                backup={backup}
                can={can}
                onChanged={refresh}
                onRestoring={() => setRestoring((now) => now ?? { backupId: backup.backupId, step: undefined })}
              />
            ))}
          </ul>
        )}
      </div>
    </ServerShell>
  );
}

/** A backup: when, locked or not, size and digest; Download, and Lock, Restore and Delete where the role may. */
function BackupRow({
  serverId,
  backup,
  can,
  onChanged,
  onRestoring,
}: {
  serverId: string;
  backup: Backups['backups'][number];
  can: (key: PermissionKey) => boolean;
  onChanged: (options?: { background?: boolean }) => Promise<void>;
  onRestoring: () => void;
}) {
  return (
    <li className="flex flex-wrap items-center justify-between gap-3 p-4" data-testid="backup-row">
      <div>
        <p className="font-medium">
          {new Date(backup.createdAt).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'medium' })}
          {backup.locked ? <span className="ml-2 rounded-full bg-slate-100 px-2 py-0.5 text-xs font-semibold">Locked</span> : null}
        </p>
        <p className="text-sm text-slate-500">
          {formatBytes(backup.size)} · <span title={backup.sha256}>SHA-256 {backup.sha256.slice(0, 12)}…</span>
        </p>
      </div>
      <div className="flex flex-wrap gap-1">
        <a className={buttonClass('ghost')} href={backupDownloadUrl(serverId, backup.backupId)} download>
          Download
        </a>
        {can('backups.delete') ? (
          <Button
            variant="ghost"
            onClick={async () => {
              await lockBackup(serverId, backup.backupId, !backup.locked);
              await onChanged();
            }}
          >
            {backup.locked ? 'Unlock' : 'Lock'}
          </Button>
        ) : null}
        {can('backups.restore') ? (
          <Button
            variant="ghost"
            onClick={() =>
              openDialog('confirm', {
                title: 'Restore this backup?',
                message:
                  'The server is stopped, every file is replaced with the backup, and the server starts again if it was running. Changes since the backup are lost.',
                confirmLabel: 'Restore',
                danger: true,
                onConfirm: async () => {
                  // A job: its steps and its end arrive as events (the list says one runs meanwhile).
                  await restoreBackup(serverId, backup.backupId);
                  onRestoring();
                  void onChanged({ background: true });
                },
              })
            }
          >
            Restore
          </Button>
        ) : null}
        {can('backups.delete') ? (
          <Button
            variant="ghost"
            onClick={() =>
              openDialog('confirm', {
                title: backup.locked ? 'Delete this locked backup?' : 'Delete this backup?',
                // A lock says "keep this one": deleting it anyway is said plainly and typed.
                message: backup.locked
                  ? 'You locked this backup so that it is never rotated out. Deleting it removes the file for good.'
                  : 'The backup file is removed for good.',
                confirmLabel: backup.locked ? 'Delete locked backup' : 'Delete',
                typeToConfirm: backup.locked ? 'delete' : undefined,
                danger: true,
                onConfirm: async () => {
                  await deleteBackup(serverId, backup.backupId);
                  await onChanged();
                },
              })
            }
          >
            Delete
          </Button>
        ) : null}
      </div>
    </li>
  );
}

/** A backup being made (with its percent), or a restore running (with its step). */
function JobStatus({
  job,
  running,
  restoring,
}: {
  job: BackupJob | null;
  running: boolean;
  restoring: { backupId: string; step: BackupRestoreEvent['step'] } | null;
}) {
  return job ? (
    <div role="status" aria-live="polite" className="rounded-lg border border-slate-200 bg-white p-4">
      <p className="text-sm">Backing up… {job.percent} %</p>
      <progress className="mt-2 h-2 w-full accent-brand-600" max={100} value={job.percent} aria-label="Backup progress" />
    </div>
  ) : running ? (
    <p role="status" aria-live="polite" className="text-sm text-slate-600">
      {restoring?.step ? `${restoreStepText[restoring.step]} ` : ''}A restore is running. Backups can be made again when it is done.
    </p>
  ) : null;
}
