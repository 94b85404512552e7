import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from './index.ts';

/**
 * Several API processes of one service start together on a database the new release has migrations for (a
 * deploy, `npm run cluster`): every one comes up, none fails on a table another just made. PostgreSQL suite
 * only (PGlite is one process's database).
 */
const name = `sp_migrate_${randomBytes(5).toString('hex')}`;
const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
let url = '';

beforeAll(async () => {
  await admin.connect();
  await admin.query(`create database ${name}`);
  const u = new URL(process.env.DATABASE_URL as string);
  u.pathname = `/${name}`;
  url = u.toString();
});
afterAll(async () => {
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
});

describe('migrations', () => {
  it('let API processes starting at once on a fresh database all come up, the schema made once', async () => {
    const opened = await Promise.all([1, 2, 3].map(() => openDatabase({ url })));
    for (const database of opened) await database.ping();
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    const { rows } = await check.query<{ n: string }>(`select count(*) as n from information_schema.tables where table_name = 'users'`);
    await check.end();
    expect(rows[0]?.n).toBe('1');
    for (const database of opened) await database.close();
  });
});
