import type { FastifyBaseLogger } from 'fastify';
import type { SessionStore } from './auth/sessions.ts';
import type { Db } from './db/db-type.ts';
import { pruneActivity } from './servers/activity.ts';

// How soon a session ended elsewhere (another replica, the operator command) ends here too.
const SESSION_SWEEP_MS = 15_000;
const ACTIVITY_PRUNE_MS = 60 * 60_000;

/**
 * What every API process does on its own clock: sweeps ended sessions, and prunes server activity older than
 * SERVER_ACTIVITY_RETENTION_DAYS (at start and every hour). Returns what stops them.
 */
export function startChores(sessions: SessionStore, db: Db, log: FastifyBaseLogger): () => void {
  const sweeper = setInterval(
    () => void sessions.sweep().catch((err: unknown) => log.error({ err }, 'session sweep failed')),
    SESSION_SWEEP_MS,
  );
  sweeper.unref();
  const pruneActivityNow = () => void pruneActivity(db).catch((err: unknown) => log.error({ err }, 'activity pruning failed'));
  pruneActivityNow();
  const pruner = setInterval(pruneActivityNow, ACTIVITY_PRUNE_MS);
  pruner.unref();
  return () => {
    clearInterval(sweeper);
    clearInterval(pruner);
  };
}

/** Work started after answering (mails, activity entries): logged if it fails, awaited by `drain`. */
export function backgroundTasks(log: FastifyBaseLogger) {
  const pending = new Set<Promise<unknown>>();
  return {
    run(task: () => Promise<unknown>): void {
      const run = task().catch((err: unknown) => log.error({ err }, 'background task failed'));
      pending.add(run);
      void run.finally(() => pending.delete(run));
    },
    async drain(): Promise<void> {
      while (pending.size) await Promise.all([...pending]);
    },
  };
}
