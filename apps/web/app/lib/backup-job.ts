/**
 * The backup being made, as the backups page shows it. A page reloaded midway once kept "Backing up… 99 %"
 * and a disabled Create after the backup was listed, because it only knew of jobs it had started itself and
 * never heard that one ended. So the job is taken from every source there is: the API's list on load and
 * while a job runs (`pending`), the page's own Create, and `server:backup` events. It ends when the list
 * shows the backup complete (or no longer pending), or an event says it failed.
 */
export interface BackupJob {
  backupId: string;
  percent: number;
}

export interface BackupJobState {
  job: BackupJob | null;
  /** The last job that ended: a list or event that is older than its end must not bring it back. */
  ended: string | null;
}

export const noBackupJob: BackupJobState = { job: null, ended: null };

export interface BackupListState {
  backups: readonly { backupId: string }[];
  pending: BackupJob | null;
}

export type BackupJobInput =
  | { type: 'listed'; list: BackupListState }
  | { type: 'started'; backupId: string }
  | { type: 'event'; backupId: string; phase: 'running' | 'complete' | 'failed'; percent: number; message?: string | undefined };

export type BackupOutcome = { kind: 'complete' } | { kind: 'failed'; message?: string | undefined };

export interface BackupJobStep {
  state: BackupJobState;
  /** How the job just ended, for the page to say so once. */
  outcome?: BackupOutcome;
}

export function nextBackupJob(state: BackupJobState, input: BackupJobInput): BackupJobStep {
  const { job } = state;
  switch (input.type) {
    case 'listed': {
      const pending = input.list.pending?.backupId === state.ended ? null : input.list.pending;
      if (pending)
        return { state: { ...state, job: { backupId: pending.backupId, percent: furthest(job, pending.backupId, pending.percent) } } };
      if (!job) return { state };
      // Nothing pending any more: listed means it completed; gone means it failed and was removed.
      const listed = input.list.backups.some((b) => b.backupId === job.backupId);
      return end(job.backupId, listed ? { kind: 'complete' } : { kind: 'failed' });
    }
    case 'started':
      return { state: { ...state, job: { backupId: input.backupId, percent: furthest(job, input.backupId, 0) } } };
    case 'event': {
      if (input.backupId === state.ended) return { state };
      if (input.phase === 'failed') {
        // Another job's failure does not end this one.
        if (job && job.backupId !== input.backupId) return { state };
        return end(input.backupId, { kind: 'failed', message: input.message });
      }
      // Running, or complete but not listed yet: shown until the list has it (then `listed` ends it).
      return { state: { ...state, job: { backupId: input.backupId, percent: furthest(job, input.backupId, input.percent) } } };
    }
  }
}

function end(backupId: string, outcome: BackupOutcome): BackupJobStep {
  return { state: { job: null, ended: backupId }, outcome };
}

/** Progress never goes back for the same backup (the list's figure may be older than the last event). */
function furthest(job: BackupJob | null, backupId: string, percent: number): number {
  return job?.backupId === backupId ? Math.max(job.percent, percent) : percent;
}
