/**
 * Load on two API processes of one service, as production runs them: PostgreSQL
 * (a fresh database), Redis, NODE_ENV=production, one agent that names both processes (the one holding the
 * game plane takes it: docs/deployment.md), and:
 * - 500 signed-in pollers (100 accounts, 5 sessions each) asking `GET /v1/user/servers` every 5 s, spread
 *   over both processes, for 60 s: requests, errors (anything but 200 SUCCESS), p50 and p99;
 * - 20 open consoles: 20 servers (the compiled stand-in jar, on the free plan), each printing 1,000
 *   timestamped lines/s for 60 s to a browser socket, half of them on each process (the mirror's lines come
 *   from the holder over Redis): lines sent and received, p99 from game process to socket;
 * - each API process's memory (RSS) every 10 s.
 * Needs DATABASE_URL (its server is used to make and drop a database) and REDIS_URL; says so and stops
 * without them. The load generator shares the 2 cores with everything else.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { io, type Socket } from 'socket.io-client';
import { buildFakeJar } from '../apps/agent/test-support/fake-jar.ts';
import { API_NODE_FLAGS } from '../apps/api/src/node-flags.ts';

const root = path.resolve(import.meta.dirname, '..');
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 60);
const ACCOUNTS = 100;
const SESSIONS_PER_ACCOUNT = 5;
const CONSOLES = 20;
const LINES_PER_SECOND = 1000;
const PASSWORD = 'bench password 123';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const databaseUrl = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL;
if (!databaseUrl || !redisUrl) {
  console.log(JSON.stringify({ bench: 'load', notRun: 'needs DATABASE_URL (PostgreSQL) and REDIS_URL' }));
  process.exit(0);
}

const dbName = `sp_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();
await admin.query(`create database ${dbName}`);
const dbUrl = new URL(databaseUrl);
dbUrl.pathname = `/${dbName}`;

const agentToken = randomBytes(24).toString('hex');
const agentDir = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-bench-load-agent-'));
buildFakeJar(path.join(agentDir, 'software/paper/1.20.4.jar'));
const ports = [3911, 3912];
const bases = ports.map((p) => `http://127.0.0.1:${p}`);
const apiDirs = ports.map(() => mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-bench-load-api-')));
const shared = {
  NODE_ENV: 'production',
  DATABASE_URL: dbUrl.toString(),
  REDIS_URL: redisUrl,
  APP_SECRET: randomBytes(32).toString('hex'),
  LOG_LEVEL: 'warn',
  RATE_LIMIT_FACTOR: '100000',
  AGENTS: JSON.stringify([
    { id: 'load', url: 'http://127.0.0.1:3913', token: agentToken, publicHost: 'localhost', capacity: 50, portRange: '25800-25899' },
  ]),
};
const children: ChildProcess[] = [];
function start(entry: string, env: Record<string, string>, nodeFlags: readonly string[] = []): ChildProcess {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', entry], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}
const apis = ports.map((port, i) =>
  start(
    'apps/api/src/main.ts',
    {
      ...shared,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: bases[i] as string,
      DATA_DIR: apiDirs[i] as string,
    },
    API_NODE_FLAGS,
  ),
);

type Answer = { status: string; result?: unknown; message?: string };
async function call(base: string, method: string, url: string, cookie = '', body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...(cookie ? { cookie } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const setCookie = res.headers.get('set-cookie');
  return { http: res.status, answer: (await res.json()) as Answer, cookie: setCookie ? (setCookie.split(';')[0] ?? '') : cookie };
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read().catch(() => undefined as T);
    if (value !== undefined && ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms / 1000} s`);
    await sleep(200);
  }
}

function rssMb(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Math.round(Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0) / 1024);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? null;

try {
  await until(
    () => call(bases[0] as string, 'GET', '/healthz'),
    (r) => r.http === 200,
    'the first API',
  );
  await until(
    () => call(bases[1] as string, 'GET', '/healthz'),
    (r) => r.http === 200,
    'the second API',
  );
  start('apps/agent/src/main.ts', {
    NODE_ENV: 'production',
    AGENT_NODE_ID: 'load',
    AGENT_TOKEN: agentToken,
    AGENT_HOST: '127.0.0.1',
    AGENT_PORT: '3913',
    // Every API process: the one holding the game plane takes the node.
    API_URL: bases.join(','),
    DATA_DIR: agentDir,
    GAME_PORT_RANGE: '25800-25899',
    LOG_LEVEL: 'warn',
  });
  await until(
    () => call(bases[0] as string, 'GET', '/healthz'),
    (r) => ((r.answer.result as { agents: string[] }).agents ?? []).includes('load'),
    'the agent',
  );

  // Accounts and their sessions (sign-ups on the first process, sign-ins spread over both).
  const sessions: { base: string; cookie: string }[] = [];
  const owners: string[] = [];
  const ownerEmails: string[] = [];
  for (let a = 0; a < ACCOUNTS; a++) {
    const emailAddress = `load-${a}-${randomBytes(3).toString('hex')}@example.com`;
    const made = await call(bases[0] as string, 'POST', '/v1/auth/register', '', { emailAddress, password: PASSWORD });
    if (made.answer.status !== 'SUCCESS') throw new Error(`register: ${JSON.stringify(made.answer)}`);
    sessions.push({ base: bases[a % 2] as string, cookie: made.cookie });
    if (a < CONSOLES) {
      owners.push(made.cookie);
      ownerEmails.push(emailAddress);
    }
    for (let s = 1; s < SESSIONS_PER_ACCOUNT; s++) {
      const base = bases[(a + s) % 2] as string;
      const signed = await call(base, 'POST', '/v1/auth/login', '', { emailAddress, password: PASSWORD });
      sessions.push({ base, cookie: signed.cookie });
    }
  }
  // The console owners verify their address (the mailed link), make a server, accept the EULA and start it.
  await sleep(500);
  // Each mail file: its address and the verification link in it.
  const tokenFor = new Map<string, string>();
  for (const file of readdirSync(path.join(apiDirs[0] as string, 'mail'))) {
    const text = readFileSync(path.join(apiDirs[0] as string, 'mail', file), 'utf8')
      .replace(/=\r?\n/g, '')
      .replace(/=3D/g, '=');
    const to = /^To: (?:.*<)?([^<>\s]+@[^<>\s]+?)>?$/m.exec(text)?.[1];
    const token = /verify_token=([A-Za-z0-9_-]+)/.exec(text)?.[1];
    if (to && token) tokenFor.set(to, token);
  }
  const serverIds: string[] = [];
  for (const [i, cookie] of owners.entries()) {
    const verified = await call(bases[0] as string, 'POST', '/v1/auth/verify', cookie, { token: tokenFor.get(ownerEmails[i] as string) });
    if (verified.answer.status !== 'SUCCESS') throw new Error(`verify: ${JSON.stringify(verified.answer)}`);
    const created = await call(bases[0] as string, 'POST', '/v1/server/create', cookie, {
      serverName: `load${i}x${randomBytes(2).toString('hex')}`,
      software: 'paper',
      version: '1.20.4',
    });
    if (created.answer.status !== 'SUCCESS') throw new Error(`create: ${JSON.stringify(created.answer)}`);
    const id = (created.answer.result as { serverId: string }).serverId;
    await call(bases[0] as string, 'POST', `/v1/server/${id}/eula`, cookie, { accept: true });
    const started = await call(bases[0] as string, 'POST', `/v1/server/${id}/start`, cookie, {});
    if (started.answer.status !== 'SUCCESS') throw new Error(`start: ${JSON.stringify(started.answer)}`);
    serverIds.push(id);
  }
  for (const [i, id] of serverIds.entries())
    await until(
      () => call(bases[0] as string, 'GET', `/v1/server/${id}`, owners[i]),
      (r) => (r.answer.result as { state?: string })?.state === 'online',
      `server ${i} online`,
    );

  // One browser socket per console, every other one on the process that mirrors the game plane (its lines
  // come from the holder over Redis).
  const consoles = await Promise.all(
    serverIds.map(async (id, i) => {
      const cookie = owners[i] as string;
      const socket: Socket = io(bases[i % 2] as string, { transports: ['websocket'], extraHeaders: { cookie } });
      await new Promise<void>((resolve) => {
        socket.once('auth:success', () => resolve());
        socket.on('connect', () => {
          void call(bases[0] as string, 'GET', '/v1/user/websocket', cookie).then((r) =>
            socket.emit('auth', { token: (r.answer.result as { token: string }).token }),
          );
        });
      });
      const seen = { received: 0, latencies: [] as number[] };
      socket.on('server:console', ({ lines }: { lines: string[] }) => {
        const now = Date.now();
        for (const line of lines) {
          const match = / t=(\d+)/.exec(line);
          if (!match) continue;
          seen.received++;
          seen.latencies.push(now - Number(match[1]));
        }
      });
      socket.emit('server:subscribe', { serverId: id });
      return { socket, seen };
    }),
  );
  await sleep(1000);

  const memory = apis.map((api) => [rssMb(api)]);
  const sampler = setInterval(() => apis.forEach((api, i) => memory[i]?.push(rssMb(api))), 10_000);
  const total = LINES_PER_SECOND * SECONDS;
  for (const [i, id] of serverIds.entries())
    await call(bases[0] as string, 'POST', `/v1/server/${id}/command`, owners[i], { command: `flood ${total} ${LINES_PER_SECOND}` });

  // Pollers: each session every 5 s, staggered over the 5 s.
  const pollLatencies: number[] = [];
  let polls = 0;
  let pollErrors = 0;
  const end = Date.now() + SECONDS * 1000;
  await Promise.all(
    sessions.map(async ({ base, cookie }, i) => {
      await sleep((i * 5000) / sessions.length);
      while (Date.now() < end) {
        const began = performance.now();
        const res = await call(base, 'GET', '/v1/user/servers', cookie).catch(() => null);
        pollLatencies.push(performance.now() - began);
        polls++;
        if (!res || res.http !== 200 || res.answer.status !== 'SUCCESS') pollErrors++;
        await sleep(Math.max(0, 5000 - (performance.now() - began)));
      }
    }),
  );
  // The last lines still on their way.
  await sleep(3000);
  clearInterval(sampler);
  apis.forEach((api, i) => memory[i]?.push(rssMb(api)));
  pollLatencies.sort((a, b) => a - b);
  const lineLatencies = consoles.flatMap((c) => c.seen.latencies).sort((a, b) => a - b);
  const received = consoles.reduce((n, c) => n + c.seen.received, 0);
  console.log(
    JSON.stringify({
      bench: 'load',
      apiProcesses: 2,
      seconds: SECONDS,
      pollers: {
        sessions: sessions.length,
        requests: polls,
        errors: pollErrors,
        p50Ms: Number(percentile(pollLatencies, 0.5)?.toFixed(1)),
        p99Ms: Number(percentile(pollLatencies, 0.99)?.toFixed(1)),
      },
      consoles: {
        sockets: consoles.length,
        linesSent: total * consoles.length,
        linesReceived: received,
        p50Ms: percentile(lineLatencies, 0.5),
        p99Ms: percentile(lineLatencies, 0.99),
      },
      apiRssMb: memory,
      target: { errors: 0, memory: 'flat' },
    }),
  );
  for (const c of consoles) c.socket.close();
} finally {
  for (const child of children) child.kill('SIGINT');
  await sleep(3000);
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await admin.query(`drop database if exists ${dbName} with (force)`).catch(() => undefined);
  await admin.end();
}
