import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../../../test-support/free-port.ts';
import { until } from '../../../../test-support/until.ts';
import { API_NODE_FLAGS } from '../node-flags.ts';
import { serviceArgs } from '../../../../test-support/service-command.ts';
import { mailsTo } from './mails.ts';

const root = path.resolve(import.meta.dirname, '../../../..');

/** Where a process's log goes: a file of its own in API_LOG_DIR, the terminal with DEBUG_API, else nowhere. */
function logTo(port: number): 'inherit' | 'ignore' | number {
  const folder = process.env.API_LOG_DIR;
  if (folder) {
    mkdirSync(folder, { recursive: true });
    return openSync(path.join(folder, `api-${port}-${Date.now()}.log`), 'a');
  }
  return process.env.DEBUG_API ? 'inherit' : 'ignore';
}
const postgres = process.env.TEST_DATABASE === 'postgres' ? process.env.DATABASE_URL : undefined;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgres });
  await client.connect();
  await client.query(sql);
  await client.end();
}

/**
 * The API as production runs it: its own process (`main.ts`) on a port, on its embedded database (PGlite
 * in DATA_DIR) or, when the suite runs on PostgreSQL, a database of its own there. `kill` is SIGKILL, as a
 * crash; `start` again brings up a new process on the same data. For the suites that kill it midway.
 */
export async function prepareApiProcess(
  env: Record<string, string> = {},
  /** Another API process of the same service: this one shares its PostgreSQL database and APP_SECRET. */
  partner?: { shared: { secret: string; databaseName: string; databaseUrl: string | undefined; publicUrl: string } },
) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-api-process-'));
  // One service has one public address, whichever process answers (the browser's Origin is checked against it).
  const publicUrl = env.PUBLIC_URL ?? partner?.shared.publicUrl ?? base;
  const secret = partner?.shared.secret ?? randomBytes(32).toString('hex');
  const databaseName = partner?.shared.databaseName ?? `sp_process_${randomBytes(6).toString('hex')}`;
  let databaseUrl: string | undefined = partner?.shared.databaseUrl;
  if (postgres && !partner) {
    await admin(`create database ${databaseName}`);
    const url = new URL(postgres);
    url.pathname = `/${databaseName}`;
    databaseUrl = url.toString();
  }
  let child: ChildProcess | null = null;
  let cookie = '';

  const api = {
    port,
    base,
    dataDir,
    /** This process's database (PostgreSQL only): for suites that cut its connections. */
    databaseName: postgres ? databaseName : null,
    /** What a partner process shares (`prepareApiProcess(env, this)`). */
    shared: { secret, databaseName, databaseUrl, publicUrl },
    /** Starts a process and waits until it answers. */
    async start(): Promise<void> {
      const childEnv: NodeJS.ProcessEnv = {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        APP_SECRET: secret,
        PUBLIC_URL: publicUrl,
        // DEBUG_API=1 shows the processes' log while a suite runs; API_LOG_DIR=<folder> writes each process's
        // log to a file there instead (a terminal's slower writes can hide a race a run is being repeated for).
        LOG_LEVEL: process.env.API_LOG_DIR ? 'debug' : process.env.DEBUG_API ? 'info' : 'silent',
        WEB_DIST: path.join(dataDir, 'no-web-build'),
        ...env,
      };
      if (databaseUrl) childEnv.DATABASE_URL = databaseUrl;
      else delete childEnv.DATABASE_URL;
      const log = logTo(port);
      child = spawn(process.execPath, [...API_NODE_FLAGS, ...serviceArgs('api')], {
        cwd: root,
        stdio: ['ignore', log, 'inherit'],
        env: childEnv,
      });
      // The child has its own copy of the file's descriptor.
      if (typeof log === 'number') closeSync(log);
      await until(
        () =>
          fetch(`${base}/healthz`).then(
            (r) => r.status,
            () => 0,
          ),
        (status) => status === 200,
        60_000,
      );
    },
    /** SIGKILL: nothing is flushed or closed, as when the machine or the process dies. */
    async kill(): Promise<void> {
      const running = child;
      // Killed by a signal, a process has no exit code but a signal code: either means it is gone.
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    },
    /** A JSON call as the signed-in browser makes it (the cookie is kept), or as another one (`as`, its cookie). */
    async call(method: string, url: string, body?: unknown, as?: string) {
      const sent = as ?? cookie;
      const response = await fetch(`${base}${url}`, {
        method,
        headers: {
          origin: publicUrl,
          ...(sent ? { cookie: sent } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const setCookie = response.headers.get('set-cookie');
      if (setCookie && as === undefined) cookie = setCookie.split(';')[0] ?? cookie;
      // The envelope as the browser reads it, untyped as a test reads JSON (`status`, `message`, `result`).
      return Object.assign({ http: response.status }, JSON.parse(await response.text()));
    },
    cookie: () => cookie,
    /** The token of a link (`verify_token`, `invite_token`) in the newest mail to an address that has one. */
    async mailedToken(emailAddress: string, name: 'verify_token' | 'invite_token'): Promise<string> {
      // Only whole mails: the mailer writes `.eml.part` and renames it, so a half-written one is never read.
      const mail = await until(
        () =>
          mailsTo(dataDir, emailAddress)
            .filter((text) => text.includes(`${name}=`))
            .at(-1) ?? '',
        (text) => text !== '',
      );
      return new RegExp(`${name}=([A-Za-z0-9_-]+)`).exec(mail)?.[1] ?? '';
    },
    /** Signs up and follows the mailed verification link: a user who may make servers, signed in from now on. */
    async signUpVerified(): Promise<{ cookie: string; emailAddress: string }> {
      const emailAddress = `process-${randomBytes(4).toString('hex')}@example.com`;
      const made = await api.call('POST', '/v1/auth/register', { emailAddress, password: 'long enough password' });
      if (made.status !== 'SUCCESS') throw new Error(`register: ${JSON.stringify(made)}`);
      const verified = await api.call('POST', '/v1/auth/verify', { token: await api.mailedToken(emailAddress, 'verify_token') });
      if (verified.status !== 'SUCCESS') throw new Error(`verify: ${JSON.stringify(verified)}`);
      return { cookie, emailAddress };
    },
    async cleanup(): Promise<void> {
      await api.kill();
      if (postgres && !partner) await admin(`drop database if exists ${databaseName} with (force)`);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return api;
}
