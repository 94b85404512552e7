import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from './index.ts';
import { users } from './schema.ts';

/**
 * The embedded database of `npm start` (PGlite in DATA_DIR/db). PGlite suite only: PostgreSQL databases are
 * made by their operator.
 */
const work = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-create-pglite-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Each test makes a database from nothing (initdb and every migration, in a child process): 10 to 20 s of
// CPU, more than the project's 30 s on a machine busy with the other suites.
describe('a new embedded database', { timeout: 90_000 }, () => {
  it('is made in a process of its own, so the API does not keep initdb’s memory; it keeps what is written', async () => {
    const dataDir = path.join(work, 'first');
    // What a creation cut short by a stopped machine leaves behind (its process, past any pid, is gone):
    // never opened, cleared on the next start.
    const leftover = path.join(dataDir, `db.creating-${2 ** 22 + 1}`);
    mkdirSync(leftover, { recursive: true });
    writeFileSync(path.join(leftover, 'PG_VERSION'), '18\n');
    const before = process.memoryUsage().external;
    const database = await openDatabase({ dataDir });
    // One PGlite instance's memory is ≈ 150–210 MB; creating in this process added initdb's as well (≈ 660 MB
    // in all, kept until the process ends).
    expect(process.memoryUsage().external - before).toBeLessThan(400 * 1024 * 1024);
    expect(readdirSync(dataDir)).toEqual(['db']);
    // The embedded database's buffers are sized for it (the API process holds them).
    const shown = (await database.db.execute(sql`show shared_buffers`)) as unknown as { rows: { shared_buffers: string }[] };
    const [setting] = shown.rows;
    expect(setting?.shared_buffers).toBe('32MB');
    await database.db.insert(users).values({ id: 'first', emailAddress: 'first@example.com', passwordHash: 'x' });
    await database.close();

    const again = await openDatabase({ dataDir });
    const found = await again.db.select({ emailAddress: users.emailAddress }).from(users).where(eq(users.id, 'first'));
    expect(found).toEqual([{ emailAddress: 'first@example.com' }]);
    await again.close();
  });

  it('is made in an empty folder an operator prepared, or one a link points to, which stay where they are', async () => {
    const dataDir = path.join(work, 'prepared');
    mkdirSync(path.join(dataDir, 'db'), { recursive: true });
    const database = await openDatabase({ dataDir });
    await database.ping();
    await database.close();
    expect(existsSync(path.join(dataDir, 'db', 'PG_VERSION'))).toBe(true);

    const linked = path.join(work, 'linked');
    mkdirSync(path.join(work, 'elsewhere'));
    mkdirSync(linked);
    symlinkSync(path.join(work, 'elsewhere'), path.join(linked, 'db'));
    const onLink = await openDatabase({ dataDir: linked });
    await onLink.ping();
    await onLink.close();
    expect(lstatSync(path.join(linked, 'db')).isSymbolicLink()).toBe(true);
    expect(existsSync(path.join(work, 'elsewhere', 'PG_VERSION'))).toBe(true);
  });

  it('is not made while another live process is making it, and says so', async () => {
    const dataDir = path.join(work, 'busy');
    // Process 1 always runs.
    mkdirSync(path.join(dataDir, 'db.creating-1'), { recursive: true });
    await expect(openDatabase({ dataDir })).rejects.toThrow('Another process (1) is creating the embedded database');
    expect(existsSync(path.join(dataDir, 'db.creating-1'))).toBe(true);
    expect(existsSync(path.join(dataDir, 'db'))).toBe(false);
  });
});
