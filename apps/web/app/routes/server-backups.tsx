import { useCallback, useEffect, useState } from 'react';
import { useParams } from 'react-router';
import { Button, buttonClass } from '../components/button.tsx';
import { ServerShell } from '../components/server-shell.tsx';
import { openDialog } from '../lib/dialogs.ts';
import { backupDownloadUrl, createBackup, deleteBackup, listBackups, lockBackup, restoreBackup } from '../lib/files.ts';
import { pageMeta } from '../lib/meta.ts';
import { formatBytes } from '../lib/servers.ts';
import { subscribeServer } from '../lib/socket.ts';
import { notify } from '../lib/toasts.ts';
import { useServer } from '../lib/use-server.ts';

export const meta = () => pageMeta('servers-id-backups', 'Back up and restore your Minecraft server.');

type Backups = Awaited<ReturnType<typeof listBackups>>;

export default function ServerBackups() {
  const { id = '' } = useParams();
  const load = useServer(id);
  const [data, setData] = useState<Backups | null>(null);
  const [progress, setProgress] = useState<number | null>(null);

  const refresh = useCallback(() => listBackups(id).then(setData, () => undefined), [id]);
  useEffect(() => {
    if (load.status === 'ready') void refresh();
  }, [load.status, refresh]);

  // The job's end is read from the list (polled while it runs), so it is seen even when the socket
  // event arrives before this page knows the job, or not at all; the socket adds live percentages.
  const [active, setActive] = useState<string | null>(null);
  useEffect(() => {
    if (!active) return;
    let stopped = false;
    const tick = async () => {
      const next = await listBackups(id).catch(() => null);
      if (stopped || !next) return;
      setData(next);
      if (next.running) return;
      setActive(null);
      setProgress(null);
      if (next.backups.some((b) => b.backupId === active)) notify('success', 'Backup complete');
      else notify('danger', 'Whoopsie!', 'The backup failed. Check the free disk space and try again.');
    };
    const timer = setInterval(() => void tick(), 1000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [active, id]);

  useEffect(
    () =>
      subscribeServer(id, {
        onBackup: (event) => {
          if (event.phase === 'running') setProgress(event.percent);
        },
      }),
    [id],
  );

  const running = active !== null || progress !== null || (data?.running ?? false);
  return (
    <ServerShell serverId={id} load={load}>
      <div className="space-y-4">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <p className="text-sm text-slate-600">
            {data
              ? `${data.backups.length} of ${data.limit} backups. When full, the oldest unlocked one makes room; locked ones are kept.`
              : ''}
          </p>
          <Button
            busy={running}
            disabled={running}
            onClick={async () => {
              try {
                const { backupId } = await createBackup(id);
                setProgress((p) => p ?? 0);
                setActive(backupId);
              } catch {
                // shown by the §8 handling
              }
            }}
          >
            Create backup
          </Button>
        </div>
        {running ? (
          <div role="status" aria-live="polite" className="rounded-lg border border-slate-200 bg-white p-4">
            <p className="text-sm">Backing up… {progress ?? 0} %</p>
            <progress className="mt-2 h-2 w-full accent-brand-600" max={100} value={progress ?? 0} aria-label="Backup progress" />
          </div>
        ) : null}
        {!data ? (
          <p role="status">Loading…</p>
        ) : data.backups.length === 0 ? (
          <p className="rounded-xl border-2 border-dashed border-slate-300 bg-white p-8 text-center text-slate-600">
            No backups yet. Make one before you try something risky.
          </p>
        ) : (
          <ul className="divide-y divide-slate-100 rounded-xl border border-slate-200 bg-white" data-testid="backup-list">
            {data.backups.map((backup) => (
              <li key={backup.backupId} className="flex flex-wrap items-center justify-between gap-3 p-4" data-testid="backup-row">
                <div>
                  <p className="font-medium">
                    {new Date(backup.createdAt).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'medium' })}
                    {backup.locked ? (
                      <span className="ml-2 rounded-full bg-slate-100 px-2 py-0.5 text-xs font-semibold">Locked</span>
                    ) : null}
                  </p>
                  <p className="text-sm text-slate-500">
                    {formatBytes(backup.size)} · <span title={backup.sha256}>SHA-256 {backup.sha256.slice(0, 12)}…</span>
                  </p>
                </div>
                <div className="flex flex-wrap gap-1">
                  <a className={buttonClass('ghost')} href={backupDownloadUrl(id, backup.backupId)} download>
                    Download
                  </a>
                  <Button
                    variant="ghost"
                    onClick={async () => {
                      await lockBackup(id, backup.backupId, !backup.locked);
                      void refresh();
                    }}
                  >
                    {backup.locked ? 'Unlock' : 'Lock'}
                  </Button>
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
                          await restoreBackup(id, backup.backupId);
                          notify('success', 'Backup restored');
                        },
                      })
                    }
                  >
                    Restore
                  </Button>
                  <Button
                    variant="ghost"
                    onClick={() =>
                      openDialog('confirm', {
                        title: 'Delete this backup?',
                        message: 'The backup file is removed for good.',
                        confirmLabel: 'Delete',
                        danger: true,
                        onConfirm: async () => {
                          await deleteBackup(id, backup.backupId);
                          void refresh();
                        },
                      })
                    }
                  >
                    Delete
                  </Button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </div>
    </ServerShell>
  );
}
