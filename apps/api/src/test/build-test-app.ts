import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isRestrictedName } from '@spawnpoint/contracts';
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { inject } from 'vitest';
import { buildApp, type App } from '../app.ts';
import { loadConfig, type Config } from '../config.ts';
import { openDatabase, type Database } from '../db/index.ts';
import { users } from '../db/schema.ts';
import { prepareAgent } from './agent-process.ts';
import { until } from '../../../../test-support/until.ts';

export interface TestApp extends App {
  config: Config;
  dataDir: string;
}

/** A real database for one test file: a clone of the migrated PGlite template, or a fresh PostgreSQL database. */
export async function createTestDatabase(): Promise<{ database: Database; drop: () => Promise<void> }> {
  if (process.env.TEST_DATABASE === 'postgres') {
    const url = process.env.DATABASE_URL;
    if (!url) throw new Error('TEST_DATABASE=postgres needs DATABASE_URL');
    const name = `sp_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const dbUrl = new URL(url);
    dbUrl.pathname = `/${name}`;
    const database = await openDatabase({ url: dbUrl.toString() });
    return {
      database,
      drop: async () => {
        await database.close();
        const cleanup = new pg.Client({ connectionString: url });
        await cleanup.connect();
        await cleanup.query(`drop database if exists ${name} with (force)`);
        await cleanup.end();
      },
    };
  }
  const template = inject('pgliteTemplate');
  const database = template
    ? await openDatabase({ pgliteTemplate: new Blob([readFileSync(template)]) })
    : await openDatabase({ inMemory: true });
  return { database, drop: () => database.close() };
}

/**
 * Builds the real app (real database, real file mailer) in a temporary DATA_DIR. With `shared`, it uses that
 * database (another API process of the same service), which its creator closes.
 */
export async function buildTestApp(
  env: Record<string, string> = {},
  shared?: Database,
): Promise<TestApp & { cleanup: () => Promise<void> }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-api-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    APP_SECRET: randomBytes(32).toString('hex'),
    PUBLIC_URL: 'http://localhost:3000',
    WEB_DIST: path.join(dataDir, 'no-web-build'),
    ...env,
  });
  const { database, drop } = shared ? { database: shared, drop: async () => undefined } : await createTestDatabase();
  const app = await buildApp({ config, database });
  await app.app.ready();
  return {
    ...app,
    config,
    dataDir,
    async cleanup() {
      await app.close();
      await drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

let counter = 0;
export function uniqueEmail(prefix = 'player'): string {
  return `${prefix}-${Date.now().toString(36)}-${++counter}@example.com`;
}

/** A distinct client address per test, so per-IP limits of one test never touch another. */
export function uniqueIp(): string {
  const n = ++counter;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

export { decodeQuotedPrintable, mailsTo } from './mails.ts';

export function linkIn(mail: string, pattern: RegExp): string {
  const match = mail.match(pattern);
  if (!match) throw new Error(`no link matching ${pattern} in mail`);
  return match[0];
}

export function cookieFrom(setCookie: string | string[] | undefined): string {
  const header = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  if (!header) throw new Error('no set-cookie header');
  return header.split(';')[0] as string;
}

export type Send = ReturnType<typeof requester>;

/** `send(method, url, cookie?, payload?, headers?)` through the real app, each from its own address (no shared per-IP limit). */
export function requester(app: App['app']) {
  return (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    cookie?: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) =>
    app.inject({
      method,
      url,
      headers: { ...(cookie ? { cookie } : {}), ...headers },
      ...(payload !== undefined ? { payload: payload as string } : {}),
      remoteAddress: uniqueIp(),
    });
}

/** Registers a new account through the API and answers its session cookie and id (the address not verified). */
export async function signedUp(t: TestApp, prefix = 'player'): Promise<{ cookie: string; userId: string }> {
  const res = await requester(t.app)('POST', '/v1/auth/register', undefined, {
    emailAddress: uniqueEmail(prefix),
    password: 'long enough password',
  });
  return { cookie: cookieFrom(res.headers['set-cookie']), userId: res.json().result.userId as string };
}

/** Registers an account with a verified address (as after the mailed link) and answers its session cookie. */
export async function verifiedOwner(t: TestApp, prefix: string): Promise<string> {
  const { cookie, userId } = await signedUp(t, prefix);
  await t.ctx.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
  t.ctx.sessions.forgetUser(userId);
  return cookie;
}

let serverCounter = 0;
/**
 * A server name no test has used, at most 16 characters. A random tail can spell a word names may not
 * contain (after undoing digit swaps: "5ex"), which the create form refuses: such a draw is drawn again.
 */
export function uniqueServerName(prefix: string): string {
  let name = '';
  do name = `${prefix.slice(0, 4)}${Date.now().toString(36).slice(-6)}${++serverCounter}`.slice(0, 16);
  while (isRestrictedName(name));
  return name;
}

/** A verified owner with one new server (the built-in runtime unless `create` says) whose folder the node has installed. */
export async function ownerWithServer(
  t: TestApp,
  prefix: string,
  create: Record<string, unknown> = {},
): Promise<{ cookie: string; id: string }> {
  const send = requester(t.app);
  const cookie = await verifiedOwner(t, prefix);
  const name = uniqueServerName(prefix);
  const created = (await send('POST', '/v1/server/create', cookie, { serverName: name, ...create })).json();
  if (created.status !== 'SUCCESS') throw new Error(`creating ${name} answered ${JSON.stringify(created)}`);
  const id = created.result.serverId as string;
  // The node installs the folder right after creation.
  await until(
    async () => (await send('GET', `/v1/server/${id}/files/list?path=/`, cookie)).json().status,
    (s) => s === 'SUCCESS',
  );
  return { cookie, id };
}

/**
 * The real app listening on a port with a real agent process (test-node) connected to it, as in production.
 * `cleanup` stops both.
 */
export async function buildTestAppWithAgent(env: Record<string, string> = {}, agentEnv: Record<string, string> = {}) {
  const agent = await prepareAgent(50, agentEnv);
  const t = await buildTestApp({ AGENTS: JSON.stringify([agent.nodeConfig]), ...env });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  agent.start(base);
  const send = requester(t.app);
  await until(
    async () => (await send('GET', '/healthz')).json().result.agents,
    (a: string[]) => a.includes('test-node'),
  );
  return {
    t,
    agent,
    base,
    async cleanup() {
      await t.cleanup();
      await agent.stop();
    },
  };
}

/** A multipart form with one file, as a browser's upload sends it (`head` alone starts the same form). */
export function multipart(name: string, content: Buffer) {
  const boundary = '----spawnpoint' + Math.random().toString(16).slice(2);
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const payload = Buffer.concat([head, content, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { head, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
