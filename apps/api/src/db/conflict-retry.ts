import type { Db } from './db-type.ts';

/**
 * PostgreSQL ends one of two transactions that wait on each other (deadlock, 40P01) or that could not be
 * serialized (40001), and says to run it again. The API follows one lock order (docs/design.md, "Lock
 * order") so this should not happen; when it still does, the whole transaction is run again a few times,
 * with a short random pause, instead of answering the request with a 500. A transaction's callback must
 * therefore keep its effects in the database (calls to nodes and pushes to browsers come after it commits),
 * as every one in the API does.
 */
export const CONFLICT_RETRIES = 4;
const RETRYABLE = new Set(['40P01', '40001']);

/** Whether `err` (or what it wraps: drizzle puts the driver's error in `cause`) is a conflict to run again. */
export function isRetryableConflict(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && RETRYABLE.has(code)) return true;
  }
  return false;
}

/** Makes `db.transaction` run a callback again when PostgreSQL ended it for a deadlock or a serialization failure. */
export function retryConflicts(db: Db, onRetry: (err: unknown, attempt: number) => void = () => undefined): Db {
  const transaction = db.transaction.bind(db);
  const retrying: typeof db.transaction = async (callback, config) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await transaction(callback, config);
      } catch (err) {
        if (attempt > CONFLICT_RETRIES || !isRetryableConflict(err)) throw err;
        onRetry(err, attempt);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
      }
    }
  };
  db.transaction = retrying;
  return db;
}
