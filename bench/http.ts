/**
 * `npm run bench`: prints one JSON line per figure of docs/benchmarks.md.
 * user-servers: authenticated GET /v1/user/servers under 64 connections, against a bare Fastify server
 * started here that answers the same path with the same envelope and an empty list, measured in the same
 * run with the same connection count (target ≥ 60 % of its req/s, p99 ≤ 1.5 × its p99). The API
 * runs with NODE_ENV=production, as a host runs it (outside production every answer is also checked
 * against its contract, which a polled endpoint should not pay for in production).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { API_NODE_FLAGS } from '../apps/api/src/node-flags.ts';

const root = path.resolve(import.meta.dirname, '..');
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
// An odd number (an even one asked for is rounded up), so each median is one round's figure.
const asked = Math.max(1, Math.floor(Number(process.env.BENCH_ROUNDS ?? 7)) || 7);
const ROUNDS = asked % 2 ? asked : asked + 1;

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

function start(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore' });
}

/**
 * req/s and p99 of a run. The p99 comes from every answer's own time (autocannon's `response` event, in
 * fractions of a millisecond), not from autocannon's summary, which rounds to whole milliseconds: at
 * 1–2 ms that rounding alone moved the ratio between 1 and 2.
 */
async function load(url: string, headers: Record<string, string> = {}) {
  const times: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({ url, connections: 64, duration: DURATION, headers }, (err: unknown, done) =>
      err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(done),
    );
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, ms: number) => {
      if (statusCode === 200) times.push(ms);
    });
  });
  times.sort((a, b) => a - b);
  const p99Ms = times[Math.floor(times.length * 0.99)] ?? Number.NaN;
  return { reqPerSec: Math.round(result.requests.average), p99Ms: Number(p99Ms.toFixed(2)), errors: result.errors + result.non2xx };
}

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** User + system CPU seconds the process has used so far (fields 14 and 15 of /proc/<pid>/stat, in ticks). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * CPU time the server spends per request, in µs: unlike req/s it does not move with the load generator
 * sharing the cores, so it is the figure to compare between changes. The lowest of three batches: other
 * work on the machine only ever adds to it.
 */
async function cpuPerRequest(child: ChildProcess, url: string, headers: Record<string, string> = {}) {
  const amount = Number(process.env.BENCH_CPU_REQUESTS ?? 50_000);
  const batches: number[] = [];
  for (let i = 0; i < 3; i++) {
    const before = cpuSeconds(child.pid as number);
    await autocannon({ url, connections: 64, amount, headers });
    batches.push(((cpuSeconds(child.pid as number) - before) * 1e6) / amount);
  }
  return Number(Math.min(...batches).toFixed(1));
}

const bare = start(
  [
    '-e',
    "const f=require('fastify')();f.get('/v1/user/servers',async()=>({status:'SUCCESS',result:[]}));f.listen({port:3901,host:'127.0.0.1'})",
  ],
  {
    NODE_PATH: path.join(root, 'node_modules'),
  },
);
// Started as `npm start` starts it (node-flags.ts).
const api = start([...API_NODE_FLAGS, '--import', 'tsx', 'apps/api/src/main.ts'], {
  PORT: '3902',
  HOST: '127.0.0.1',
  NODE_ENV: 'production',
  PUBLIC_URL: 'http://127.0.0.1:3902',
  DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-bench-')),
  // The default level, as a host runs it: a request that succeeded writes no line.
  LOG_LEVEL: 'info',
  RATE_LIMIT_FACTOR: '100000',
});
try {
  await Promise.all([waitFor('http://127.0.0.1:3901/v1/user/servers'), waitFor('http://127.0.0.1:3902/healthz')]);
  const register = await fetch('http://127.0.0.1:3902/v1/auth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ emailAddress: `bench-${Date.now()}@example.com`, password: 'bench password 123' }),
  });
  const cookie = (register.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  // Both warmed alike first, so the figures compare code that V8 has compiled, not its first seconds.
  await autocannon({ url: 'http://127.0.0.1:3901/v1/user/servers', connections: 64, amount: 30_000 });
  await autocannon({ url: 'http://127.0.0.1:3902/v1/user/servers', connections: 64, amount: 30_000, headers: { cookie } });
  // Rounds of one load on each, the order swapped every round: the machine's speed drifts over minutes
  // (other tenants of the host), and a single pair measured bare in a fast moment and the API in a slow one
  // as often as the reverse. Each round is a pair measured a few seconds apart; each figure printed is the
  // median of that figure over the rounds (the p99 ratio the median of the rounds' p99 ratios, not the p99
  // ratio of whichever round had the median req/s ratio), and every round is printed too.
  type Load = Awaited<ReturnType<typeof load>>;
  const rounds: { baseline: Load; servers: Load; ratio: number; p99Ratio: number }[] = [];
  const measureBare = () => load('http://127.0.0.1:3901/v1/user/servers');
  const measureApi = () => load('http://127.0.0.1:3902/v1/user/servers', { cookie });
  for (let round = 0; round < ROUNDS; round++) {
    let baseline: Load;
    let servers: Load;
    if (round % 2 === 0) {
      baseline = await measureBare();
      servers = await measureApi();
    } else {
      servers = await measureApi();
      baseline = await measureBare();
    }
    rounds.push({
      baseline,
      servers,
      ratio: Number((servers.reqPerSec / baseline.reqPerSec).toFixed(3)),
      p99Ratio: Number((servers.p99Ms / baseline.p99Ms).toFixed(2)),
    });
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const medianLoad = (loads: Load[]): Load => ({
    reqPerSec: median(loads.map((one) => one.reqPerSec)),
    p99Ms: median(loads.map((one) => one.p99Ms)),
    errors: loads.reduce((sum, one) => sum + one.errors, 0),
  });
  const baselineCpuUs = await cpuPerRequest(bare, 'http://127.0.0.1:3901/v1/user/servers');
  const serversCpuUs = await cpuPerRequest(api, 'http://127.0.0.1:3902/v1/user/servers', { cookie });
  console.log(
    JSON.stringify({
      bench: 'user-servers',
      baseline: medianLoad(rounds.map((one) => one.baseline)),
      servers: medianLoad(rounds.map((one) => one.servers)),
      ratio: median(rounds.map((one) => one.ratio)),
      p99Ratio: median(rounds.map((one) => one.p99Ratio)),
      rounds: rounds.map((one) => ({ ratio: one.ratio, p99Ratio: one.p99Ratio })),
      cpuUsPerRequest: { baseline: baselineCpuUs, servers: serversCpuUs, ratio: Number((baselineCpuUs / serversCpuUs).toFixed(3)) },
      target: { ratio: 0.6, p99Ratio: 1.5 },
    }),
  );
} finally {
  bare.kill();
  api.kill();
}
