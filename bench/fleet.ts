/**
 * A simulated fleet against one API process, as production runs it: PostgreSQL
 * (a fresh database), NODE_ENV=production, 100 simulated nodes × 100 servers (bench/fleet-agents.ts, in
 * its own process: each node a real Socket.IO connection with its node token and a small HTTP API that
 * accepts installs). Each server sends its stats every 2 s (5,000 events/s in all); 10 times a second a
 * server's state changes (online ↔ offline) and a signed-in browser socket of the servers' owner measures
 * when `server:state` arrives: p50 and p99 from the node's event to the browser. The API process's CPU
 * (user + system time over the window, in cores) and memory are read from /proc.
 * Needs DATABASE_URL; says so and stops without it. Everything shares the machine's 2 cores.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_SOFTWARE, findSoftware } from '@spawnpoint/contracts';
import pg from 'pg';
import { io } from 'socket.io-client';
import { API_NODE_FLAGS } from '../apps/api/src/node-flags.ts';

const root = path.resolve(import.meta.dirname, '..');
const NODES = 100;
const SERVERS = 100;
const SECONDS = Number(process.env.BENCH_FLEET_SECONDS ?? 30);
const CHANGES_PER_SECOND = 10;
const PORT = 3921;
const base = `http://127.0.0.1:${PORT}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.log(JSON.stringify({ bench: 'fleet', notRun: 'needs DATABASE_URL (PostgreSQL)' }));
  process.exit(0);
}
const dbName = `sp_bench_fleet_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();
await admin.query(`create database ${dbName}`);
const dbUrl = new URL(databaseUrl);
dbUrl.pathname = `/${dbName}`;

const tokens = Array.from({ length: NODES }, () => randomBytes(24).toString('hex'));
const fleet: ChildProcess = fork(path.join(import.meta.dirname, 'fleet-agents.ts'), [], {
  execArgv: ['--import', 'tsx'],
  env: { ...process.env, FLEET_NODES: String(NODES), FLEET_SERVERS: String(SERVERS), FLEET_TOKENS: JSON.stringify(tokens) },
});
const fleetSays = <K extends string>(key: K, ok: (value: number) => boolean = () => true) =>
  new Promise<number>((resolve) => {
    const listener = (message: Record<string, number>) => {
      if (key in message && ok(message[key] as number)) {
        fleet.off('message', listener);
        resolve(message[key] as number);
      }
    };
    fleet.on('message', listener);
  });
const nodePorts = await new Promise<number[]>((resolve) => fleet.once('message', (m: { listening: number[] }) => resolve(m.listening)));

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-bench-fleet-'));
const env = {
  ...process.env,
  NODE_ENV: 'production',
  DATABASE_URL: dbUrl.toString(),
  APP_SECRET: randomBytes(32).toString('hex'),
  LOG_LEVEL: 'error',
  RATE_LIMIT_FACTOR: '100000',
  PORT: String(PORT),
  HOST: '127.0.0.1',
  PUBLIC_URL: base,
  DATA_DIR: dataDir,
  AGENTS: JSON.stringify(
    nodePorts.map((port, n) => ({
      id: `sim-${n}`,
      url: `http://127.0.0.1:${port}`,
      token: tokens[n],
      publicHost: 'localhost',
      capacity: SERVERS,
      portRange: '30000-30199',
    })),
  ),
};
let api: ChildProcess | null = null;
const startApi = () =>
  (api = spawn(process.execPath, [...API_NODE_FLAGS, '--import', 'tsx', 'apps/api/src/main.ts'], { cwd: root, env, stdio: 'ignore' }));

async function call(method: string, url: string, cookie = '', body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...(cookie ? { cookie } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const setCookie = res.headers.get('set-cookie');
  return {
    answer: (await res.json()) as { status: string; result?: unknown },
    cookie: setCookie ? (setCookie.split(';')[0] ?? '') : cookie,
  };
}
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 180_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read().catch(() => undefined as T);
    if (value !== undefined && ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms / 1000} s`);
    await sleep(250);
  }
}
const healthy = () =>
  until(
    () => call('GET', '/healthz'),
    (r) => r.answer.status === 'SUCCESS',
    'the API',
  );
async function stopApi() {
  const child = api as ChildProcess;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGINT');
  await exited;
}
/** User + system CPU time of a process, in seconds. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
const rssMb = (pid: number) => Math.round(Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? null;

try {
  // The owner of the whole fleet: signed up and verified through the API, which also lays out the schema.
  startApi();
  await healthy();
  const emailAddress = `fleet-${randomBytes(3).toString('hex')}@example.com`;
  const { cookie } = await call('POST', '/v1/auth/register', '', { emailAddress, password: 'bench password 123' });
  const mailText = await until(
    async () =>
      readdirSync(path.join(dataDir, 'mail'))
        .map((f) => readFileSync(path.join(dataDir, 'mail', f), 'utf8'))
        .join('\n')
        .replace(/=\r?\n/g, '')
        .replace(/=3D/g, '='),
    (text) => /verify_token=/.test(text),
    'the verification mail',
  );
  await call('POST', '/v1/auth/verify', cookie, { token: /verify_token=([A-Za-z0-9_-]+)/.exec(mailText)?.[1] });
  const ownerId = ((await call('GET', '/v1/user/me', cookie)).answer.result as { userId: string }).userId;
  await stopApi();

  // Its 10,000 servers, recorded as the control plane records them (made directly: creating them through
  // the API would take the plan's limit of 2 per account).
  const db = new pg.Client({ connectionString: dbUrl.toString() });
  await db.connect();
  const version = findSoftware(DEFAULT_SOFTWARE)?.versions[0] ?? '';
  await db.query(
    `insert into servers (id, owner_id, name, software, version, node_id, port, memory_mb, max_players)
     select 'fleet-' || (g / $2) || '-' || (g % $2), $1, 'fleet' || g, $3, $4, 'sim-' || (g / $2), 30000 + (g % $2), 1024, 10
     from generate_series(0, $5 - 1) as g`,
    [ownerId, SERVERS, DEFAULT_SOFTWARE, version, NODES * SERVERS],
  );
  await db.end();

  startApi();
  await healthy();
  const apiPid = (api as unknown as ChildProcess).pid as number;
  fleet.send({ connect: base });
  await fleetSays('connected', (n) => n === NODES);
  // Each node's hello has the control plane send it the specs of its servers: 10,000 installs first.
  await fleetSays('installs', (n) => n >= NODES * SERVERS);

  // The owner's browser: one socket, told every state change of the fleet's servers.
  const token = ((await call('GET', '/v1/user/websocket', cookie)).answer.result as { token: string }).token;
  const browser = io(base, { transports: ['websocket'], extraHeaders: { cookie } });
  await new Promise<void>((resolve) => {
    browser.once('auth:success', () => resolve());
    browser.on('connect', () => browser.emit('auth', { token }));
  });
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  browser.on('server:state', ({ serverId, state }: { serverId: string; state: string }) => {
    const at = sentAt.get(`${serverId}:${state}`);
    if (at === undefined) return;
    sentAt.delete(`${serverId}:${state}`);
    latencies.push(performance.now() - at);
  });
  await sleep(2000);

  fleet.send({ count: true });
  const statsBefore = await fleetSays('statsSent');
  const cpuBefore = cpuSeconds(apiPid);
  const rssBefore = rssMb(apiPid);
  const began = performance.now();
  const online = new Set<string>();
  let changes = 0;
  const changer = setInterval(() => {
    const n = Math.floor(Math.random() * NODES);
    const s = Math.floor(Math.random() * SERVERS);
    const id = `fleet-${n}-${s}`;
    const state = online.has(id) ? 'offline' : 'online';
    if (state === 'online') online.add(id);
    else online.delete(id);
    sentAt.set(`${id}:${state}`, performance.now());
    fleet.send({ state: [n, s, state] });
    changes++;
  }, 1000 / CHANGES_PER_SECOND);
  await sleep(SECONDS * 1000);
  clearInterval(changer);
  const seconds = (performance.now() - began) / 1000;
  const cpu = (cpuSeconds(apiPid) - cpuBefore) / seconds;
  const rssAfter = rssMb(apiPid);
  fleet.send({ count: true });
  const statsSent = (await fleetSays('statsSent')) - statsBefore;
  // The last state changes still on their way.
  await sleep(1500);
  fleet.send({ stop: true });
  browser.close();
  latencies.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      bench: 'fleet',
      nodes: NODES,
      servers: NODES * SERVERS,
      seconds: Math.round(seconds),
      statsEventsPerSecond: Math.round(statsSent / seconds),
      stateChanges: { sent: changes, received: latencies.length },
      stateToBrowserMs: { p50: Number(percentile(latencies, 0.5)?.toFixed(1)), p99: Number(percentile(latencies, 0.99)?.toFixed(1)) },
      apiCpuCores: Number(cpu.toFixed(2)),
      apiRssMb: [rssBefore, rssAfter],
      target: { p99Ms: 1000, apiCpuCores: 1 },
    }),
  );
} finally {
  if (api && (api as ChildProcess).exitCode === null) await stopApi().catch(() => undefined);
  if (fleet.exitCode === null) fleet.kill('SIGKILL');
  await admin.query(`drop database if exists ${dbName} with (force)`).catch(() => undefined);
  await admin.end();
}
