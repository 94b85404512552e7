import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareApiProcess } from './test/api-process.ts';

/**
 * PostgreSQL cuts every connection of a running API (a database restart or failover; the reliability
 * suite, many machines item 4). Runs in the PostgreSQL suite only: PGlite lives inside the API process and
 * has no connection to cut.
 */
let api: Awaited<ReturnType<typeof prepareApiProcess>>;

beforeAll(async () => {
  api = await prepareApiProcess();
  await api.start();
});
afterAll(async () => {
  await api.cleanup();
});

async function cutEveryConnection(database: string): Promise<number> {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  try {
    const { rowCount } = await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [database],
    );
    return rowCount ?? 0;
  } finally {
    await admin.end();
  }
}

describe('PostgreSQL connections cut under a running API', () => {
  it('answers the next requests on new connections, and has kept every acknowledged write', async () => {
    const password = 'long enough password';
    const before = `before-${Date.now().toString(36)}@example.com`;
    expect((await api.call('POST', '/v1/auth/register', { emailAddress: before, password })).status).toBe('SUCCESS');

    expect(await cutEveryConnection(api.databaseName as string)).toBeGreaterThan(0);

    // Each answered as usual (a new connection is opened), the account made before the cut still there.
    const signedIn = await api.call('POST', '/v1/auth/login', { emailAddress: before, password });
    expect(signedIn.http).toBe(200);
    expect(signedIn.status).toBe('SUCCESS');
    const after = `after-${Date.now().toString(36)}@example.com`;
    expect((await api.call('POST', '/v1/auth/register', { emailAddress: after, password })).status).toBe('SUCCESS');
    expect((await api.call('GET', '/healthz')).result.database).toBe('ok');
  });
});
