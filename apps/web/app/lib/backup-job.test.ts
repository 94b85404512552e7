import { describe, expect, it } from 'vitest';
import { nextBackupJob, noBackupJob, type BackupJobInput, type BackupJobState } from './backup-job.ts';

/** Feeds inputs in order and returns the last state with every outcome seen on the way. */
function run(inputs: BackupJobInput[], from: BackupJobState = noBackupJob) {
  let state = from;
  const outcomes: unknown[] = [];
  for (const input of inputs) {
    const step = nextBackupJob(state, input);
    state = step.state;
    if (step.outcome) outcomes.push(step.outcome);
  }
  return { state, outcomes };
}

const listed = (pending: { backupId: string; percent: number } | null, ...backupIds: string[]): BackupJobInput => ({
  type: 'listed',
  list: { pending, backups: backupIds.map((backupId) => ({ backupId })) },
});
const event = (phase: 'running' | 'complete' | 'failed', percent: number, backupId = 'b1', message?: string): BackupJobInput => ({
  type: 'event',
  backupId,
  phase,
  percent,
  message,
});

describe('the backup job of the backups page', () => {
  it('a page opened midway takes the job and its progress from the list, then follows the events', () => {
    const { state } = run([listed({ backupId: 'b1', percent: 20 }), event('running', 35)]);
    expect(state.job).toEqual({ backupId: 'b1', percent: 35 });
  });

  it('after a reload the job ends when the list shows the backup complete, not stuck at 99 %', () => {
    const { state, outcomes } = run([
      listed({ backupId: 'b1', percent: 20 }),
      event('running', 99),
      event('complete', 100),
      // The event can come before the list has recorded the backup: still shown until it has.
      listed({ backupId: 'b1', percent: 99 }),
      listed(null, 'b1'),
    ]);
    expect(state.job).toBeNull();
    expect(outcomes).toEqual([{ kind: 'complete' }]);
  });

  it('keeps the progress it saw when an older figure comes from the list', () => {
    expect(run([event('running', 60), listed({ backupId: 'b1', percent: 40 })]).state.job).toEqual({ backupId: 'b1', percent: 60 });
  });

  it('a backup no longer pending and not listed failed', () => {
    const { state, outcomes } = run([{ type: 'started', backupId: 'b1' }, listed({ backupId: 'b1', percent: 0 }), listed(null)]);
    expect(state.job).toBeNull();
    expect(outcomes).toEqual([{ kind: 'failed' }]);
  });

  it('a failure event ends the job at once with its reason, and a list still showing it pending does not bring it back', () => {
    const { state, outcomes } = run([
      listed({ backupId: 'b1', percent: 10 }),
      event('failed', 10, 'b1', 'No space left on the node.'),
      listed({ backupId: 'b1', percent: 10 }),
      listed(null),
    ]);
    expect(state.job).toBeNull();
    expect(outcomes).toEqual([{ kind: 'failed', message: 'No space left on the node.' }]);
  });

  it('a job started here shows from 0 % until its first progress', () => {
    expect(run([{ type: 'started', backupId: 'b2' }]).state.job).toEqual({ backupId: 'b2', percent: 0 });
  });

  it('nothing pending and nothing followed is no job and no outcome', () => {
    expect(run([listed(null, 'old')])).toEqual({ state: noBackupJob, outcomes: [] });
  });

  it("another job's failure does not end the one followed", () => {
    expect(run([listed({ backupId: 'b1', percent: 50 }), event('failed', 0, 'other')]).state.job).toEqual({ backupId: 'b1', percent: 50 });
  });
});
