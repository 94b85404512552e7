import { retryConflicts } from './conflict-retry.ts';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { createPgliteFolder, nothingAt } from './create-pglite.ts';
import * as schema from './schema.ts';
import { apiRoot } from '../install-root.ts';

export type { Db } from './db-type.ts';
import type { Db } from './db-type.ts';

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const migrationsFolder = path.join(apiRoot, 'src', 'db', 'migrations');

export interface DatabaseOptions {
  /** PostgreSQL connection string; PGlite in `dataDir` when absent. */
  url?: string | undefined;
  dataDir?: string;
  /** A migrated PGlite data directory dump to start from (tests clone a template this way). */
  pgliteTemplate?: Blob;
  /** PGlite in memory (tests). */
  inMemory?: boolean;
  /** Told when an idle PostgreSQL connection is cut (database restart, failover); the pool reconnects on the next query. */
  onConnectionLost?: (error: Error) => void;
  /** Told when a transaction PostgreSQL ended for a deadlock or a serialization failure is run again (conflict-retry.ts). */
  onConflictRetry?: (error: unknown, attempt: number) => void;
}

/**
 * A statement sent on an idle connection the server had just ended (a restart or failover terminating every
 * session) fails without having run, before the pool has heard of the cut: it is sent once more, on a new
 * connection. Only for the server's own "your session was terminated" codes and a client that had already
 * failed; anything else (a statement cut midway, which may have run) is the caller's error as before.
 */
const SESSION_ENDED = new Set(['57P01', '57P02', '57P03']);
function cutBeforeRunning(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return (typeof code === 'string' && SESSION_ENDED.has(code)) || (typeof message === 'string' && message.includes('not queryable'));
}
function sendAgainOnCutConnection(pool: pg.Pool): void {
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => {
    // Callback calls (none of ours) go as they came.
    if (typeof args[args.length - 1] === 'function') return query(...args);
    return (query(...args) as Promise<unknown>).catch((err: unknown) => (cutBeforeRunning(err) ? query(...args) : Promise.reject(err)));
  }) as typeof pool.query;
}

/** The advisory lock key migrations run under (any constant the service uses for nothing else). */
const MIGRATION_LOCK = 5_307_001;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) {
    const pool = new pg.Pool({ connectionString: options.url, max: 10 });
    // Without a listener, an idle connection cut by the server would be an uncaught exception.
    pool.on('error', (error) => options.onConnectionLost?.(error));
    sendAgainOnCutConnection(pool);
    const db = retryConflicts(drizzlePg(pool, { schema }) as unknown as Db, (err, attempt) => options.onConflictRetry?.(err, attempt));
    // API processes starting together (a deploy, a cluster) would run the same migrations at once and one
    // would fail on a table the other just made: each waits for the others' migrations on a session lock.
    const session = await pool.connect();
    try {
      await session.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
      await migratePg(drizzlePg(session), { migrationsFolder });
    } finally {
      await session.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
      session.release();
    }
    return {
      db,
      kind: 'postgres',
      ping: async () => {
        await pool.query('select 1');
      },
      close: () => pool.end(),
    };
  }
  let client: PGlite;
  if (options.pgliteTemplate) {
    client = await PGlite.create({ loadDataDir: options.pgliteTemplate });
  } else if (options.inMemory || !options.dataDir) {
    client = await PGlite.create();
  } else {
    const dir = path.join(options.dataDir, 'db');
    mkdirSync(options.dataDir, { recursive: true });
    // A new database is made in a process of its own, which takes initdb's memory with it (create-pglite.ts).
    if (nothingAt(dir)) await createPgliteFolder(dir);
    else mkdirSync(dir, { recursive: true });
    // PGlite's file system does not follow a link: a `db` an operator pointed elsewhere is opened where it is.
    // 32 MB of shared buffers instead of PostgreSQL's 128: PGlite's memory is the API's, and its pages are
    // touched at start (≈ 110 MB less resident, 465 → 355 MB); the embedded database is small, and a page
    // not in the buffers comes from the file cache below them.
    client = await PGlite.create(realpathSync(dir), { startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'] });
  }
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  await migratePglite(drizzlePglite(client), { migrationsFolder });
  return {
    db,
    kind: 'pglite',
    ping: async () => {
      await client.query('select 1');
    },
    close: () => client.close(),
  };
}
