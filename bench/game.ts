/**
 * Game-server figures of docs/benchmarks.md, against the product started as `npm start` starts it:
 * - create-online: from POST /v1/server/create (then start) until the owner's browser socket says the server
 *   is online (ready for players) and it answers a status ping on its port, built-in runtime, median of 5; against a bare start in the same
 *   run: the same flying-squid version started by this bench directly (`createMCServer` with the launcher's
 *   options, a fresh world folder), from spawning the process until flying-squid says it is ready and it
 *   answers a status ping (target: ≤ 1.2× the bare start);
 * - console: lines/s and latency from the game process to a browser socket (a compiled stand-in jar prints
 *   timestamped lines at 20,000 lines/s), with the memory of the API and agent before and after.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { io } from 'socket.io-client';
import { buildFakeJar } from '../apps/agent/test-support/fake-jar.ts';
import { median, untilPingAnswers } from './game-ping.ts';
import { startStack } from './stack.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-bench-game-'));
// 1.20.4 runs on Java 17, the Java every development machine here has.
buildFakeJar(path.join(dataDir, 'software/paper/1.20.4.jar'));

const stack = await startStack({ port: 3903, dataDir, gamePorts: '25900-25950' });
const { call } = stack;
const BASE = stack.base;
// Colour codes out of a console line (String.fromCharCode keeps the control character out of the regex).
const ESC = String.fromCharCode(27);
const stripAnsi = (line: string) =>
  line
    .split(ESC)
    .map((part, i) => (i === 0 ? part : part.replace(/^\[[0-9;]*m/, '')))
    .join('');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitState(id: string, state: string) {
  for (;;) {
    const res = await call('GET', `/v1/server/${id}`);
    if (res.result.state === state) return;
    await sleep(10);
  }
}

/**
 * The bare start: flying-squid started directly with the options our launcher uses, in a fresh folder,
 * timed to the same point as ours: flying-squid's own `ready` (its plugins loaded, so a player may log
 * in; a status ping is answered as soon as the port listens, before that) and then a status ping.
 */
async function bareStart(port: number): Promise<number> {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-bench-bare-'));
  // The package as this repository installed it (the bare server runs in a folder outside the repository).
  const script = `require(${JSON.stringify(createRequire(import.meta.url).resolve('flying-squid'))}).createMCServer(${JSON.stringify({
    port,
    host: '127.0.0.1',
    version: '1.21.4',
    motd: 'bare',
    'max-players': 10,
    'online-mode': false,
    logging: false,
    worldFolder: path.join(folder, 'world'),
    generation: { name: 'diamond_square', options: { worldHeight: 80 } },
    kickTimeout: 10000,
    plugins: {},
    modpe: false,
    'view-distance': 10,
    'everybody-op': false,
    'max-entities': 100,
  })}).on('ready', () => console.log('ready'))`;
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', script], { cwd: folder, stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      child.once('exit', () => reject(new Error('the bare flying-squid exited before it was ready')));
    });
    await untilPingAnswers(port);
    return Math.round(performance.now() - started);
  } finally {
    child.kill('SIGKILL');
  }
}

/** The owner's browser socket: the dashboard learns a server's state from it, so the bench does too. */
const socket = io(BASE, { transports: ['websocket'], extraHeaders: { cookie: stack.cookie() } });
// A socket that never signs in fails the bench (within 20 s, with what it last heard) rather than hanging it.
await new Promise<void>((resolve, reject) => {
  let last = 'nothing';
  const timer = setTimeout(() => reject(new Error(`the owner's socket did not sign in within 20 s (last: ${last})`)), 20_000);
  socket.once('auth:success', () => {
    clearTimeout(timer);
    resolve();
  });
  socket.on('connect_error', (err: Error) => (last = `connect_error ${err.message}`));
  socket.on('auth:error', (error: unknown) => (last = `auth:error ${JSON.stringify(error)}`));
  // Socket tokens are single use: a fresh one on every (re)connect, as the web app does.
  socket.on('connect', () => {
    void call('GET', '/v1/user/websocket').then((answer) => socket.emit('auth', { token: answer.result.token as string }));
  });
});
/** Resolves when the owner's socket says the server is in `state` (listening before the action that leads there). */
const stateOnSocket = (id: string, state: string) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off('server:state', seen);
      reject(new Error(`${id} was not ${state} on the owner's socket within 60 s`));
    }, 60_000);
    const seen = (event: { serverId: string; state: string }) => {
      if (event.serverId !== id || event.state !== state) return;
      clearTimeout(timer);
      socket.off('server:state', seen);
      resolve();
    };
    socket.on('server:state', seen);
  });

try {
  const createOnline: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < 5; i++) {
    bare.push(await bareStart(25951 + i));
    const started = performance.now();
    const created = await call('POST', '/v1/server/create', { serverName: `bench-${i}-${Date.now().toString(36).slice(-4)}` });
    const id = created.result.serverId as string;
    const online = stateOnSocket(id, 'online');
    await call('POST', `/v1/server/${id}/start`, {});
    await online;
    const details = await call('GET', `/v1/server/${id}`);
    await untilPingAnswers(Number(details.result.port));
    createOnline.push(Math.round(performance.now() - started));
    await call('POST', `/v1/server/${id}/kill`, {});
    await waitState(id, 'offline');
    await call('DELETE', `/v1/server/${id}`);
  }
  console.log(
    JSON.stringify({
      bench: 'create-online',
      runtime: 'flying-squid',
      medianMs: median(createOnline),
      runsMs: createOnline,
      bareMedianMs: median(bare),
      bareRunsMs: bare,
      ratio: Number((median(createOnline) / median(bare)).toFixed(2)),
      target: { medianMs: 2000, ratio: 1.2 },
    }),
  );

  const created = await call('POST', '/v1/server/create', {
    serverName: `flood-${Date.now().toString(36).slice(-6)}`,
    software: 'paper',
    version: '1.20.4',
  });
  const id = created.result.serverId as string;
  await call('POST', `/v1/server/${id}/eula`, { accept: true });
  await call('POST', `/v1/server/${id}/start`, {});
  await waitState(id, 'online');
  /** One flood through the game's console to this socket: `flood` (ASCII) or `floodwide` (colour codes and CJK). */
  async function measureConsole(kind: 'flood' | 'floodwide', total: number) {
    const latencies: number[] = [];
    let received = 0;
    const skipped: string[] = [];
    let first = 0;
    let last = 0;
    let doneResolve: () => void = () => undefined;
    const done = new Promise<void>((r) => (doneResolve = r));
    const onLines = ({ lines }: { lines: string[] }) => {
      const now = Date.now();
      for (const line of lines) {
        const match = / t=(\d+)/.exec(line);
        if (match) {
          received++;
          if (!first) first = now;
          last = now;
          latencies.push(now - Number(match[1]));
        }
        if (line.includes('flood done')) doneResolve();
        if (line.includes('console lines were skipped')) skipped.push(stripAnsi(line));
      }
    };
    socket.on('server:console', onLines);
    const rssBefore = stack.rssMb();
    await call('POST', `/v1/server/${id}/command`, { command: `${kind} ${total} 20000` });
    await Promise.race([done, sleep(30_000)]);
    const rssAfter = stack.rssMb();
    socket.off('server:console', onLines);
    latencies.sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        bench: kind === 'flood' ? 'console' : 'console-non-ascii',
        sent: total,
        received,
        linesPerSec: Math.round(received / Math.max((last - first) / 1000, 0.001)),
        p50Ms: latencies[Math.floor(latencies.length * 0.5)] ?? null,
        p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? null,
        skipNotices: skipped,
        stackRssMbBefore: rssBefore,
        stackRssMbAfter: rssAfter,
        target: { linesPerSec: 20000, p99Ms: 50 },
      }),
    );
  }
  socket.emit('server:subscribe', { serverId: id });
  await sleep(500);
  await measureConsole('flood', 60_000);
  await measureConsole('floodwide', 60_000);
} finally {
  socket.close();
  stack.stop();
}
