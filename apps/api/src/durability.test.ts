import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test-support/free-port.ts';
import { until } from '../../../test-support/until.ts';

// ARCHITECTURE §12: a killed API process loses no acknowledged write. The API runs as a real process
// (`main.ts`) on its embedded database (PGlite in DATA_DIR, or DATABASE_URL when the suite runs on
// PostgreSQL), is killed with SIGKILL right after answering, and a new process must still have the write.
const root = path.resolve(import.meta.dirname, '../../..');
const secret = randomBytes(32).toString('hex');
let dataDir = '';
let api: ChildProcess | null = null;
let databaseUrl: string | undefined;
const postgres = process.env.TEST_DATABASE === 'postgres' ? process.env.DATABASE_URL : undefined;
const databaseName = `sp_durability_${randomBytes(6).toString('hex')}`;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgres });
  await client.connect();
  await client.query(sql);
  await client.end();
}

function startApi(port: number): ChildProcess {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    APP_SECRET: secret,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'silent',
    WEB_DIST: path.join(dataDir, 'no-web-build'),
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  api = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/api/src/main.ts')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env,
  });
  return api;
}

async function post(port: number, url: string, body: unknown) {
  const response = await fetch(`http://127.0.0.1:${port}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: `http://127.0.0.1:${port}` },
    body: JSON.stringify(body),
  });
  return (await response.json()) as { status: string };
}

const up = (port: number) =>
  until(
    () =>
      fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status,
        () => 0,
      ),
    (status) => status === 200,
    60_000,
  );

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-durability-'));
  if (postgres) {
    await admin(`create database ${databaseName}`);
    const url = new URL(postgres);
    url.pathname = `/${databaseName}`;
    databaseUrl = url.toString();
  }
});
afterAll(async () => {
  if (api && api.exitCode === null) {
    const exited = new Promise((resolve) => api?.once('exit', resolve));
    api.kill('SIGKILL');
    await exited;
  }
  if (postgres) await admin(`drop database if exists ${databaseName} with (force)`);
  await rm(dataDir, { recursive: true, force: true });
});

describe('a killed API process', () => {
  it('keeps every write it acknowledged', async () => {
    const port = await freePort();
    const first = startApi(port);
    await up(port);
    const emails = Array.from({ length: 5 }, (_, i) => `kept-${i}-${Date.now().toString(36)}@example.com`);
    for (const emailAddress of emails) {
      expect((await post(port, '/v1/auth/register', { emailAddress, password: 'long enough password' })).status).toBe('SUCCESS');
    }
    const killed = new Promise((resolve) => first.once('exit', resolve));
    first.kill('SIGKILL');
    await killed;

    startApi(port);
    await up(port);
    for (const emailAddress of emails) {
      expect((await post(port, '/v1/auth/login', { emailAddress, password: 'long enough password' })).status, emailAddress).toBe('SUCCESS');
    }
  }, 120_000);
});
