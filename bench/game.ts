/**
 * Game-server figures of ARCHITECTURE §11, against the product started as `npm start` starts it:
 * - create-online: from POST /v1/server/create (then start) to the state `online`, built-in runtime, median of 5;
 * - console: lines/s and latency from the game process to a browser socket (a compiled stand-in jar prints
 *   timestamped lines at 20,000 lines/s), with the memory of the API and agent before and after.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { io } from 'socket.io-client';
import { buildFakeJar } from '../apps/agent/test-support/fake-jar.ts';
import { startStack } from './stack.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-bench-game-'));
buildFakeJar(path.join(dataDir, 'software/paper/1.21.4.jar'));

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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

try {
  const createOnline: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const created = await call('POST', '/v1/server/create', { serverName: `bench-${i}-${Date.now().toString(36).slice(-4)}` });
    const id = created.result.serverId as string;
    await call('POST', `/v1/server/${id}/start`, {});
    await waitState(id, 'online');
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
      targetMs: 2000,
    }),
  );

  const created = await call('POST', '/v1/server/create', {
    serverName: `flood-${Date.now().toString(36).slice(-6)}`,
    software: 'paper',
    version: '1.21.4',
  });
  const id = created.result.serverId as string;
  await call('POST', `/v1/server/${id}/start`, {});
  await waitState(id, 'online');
  const socket = io(BASE, { transports: ['websocket'], extraHeaders: { cookie: stack.cookie() } });
  await new Promise<void>((resolve) => {
    socket.once('auth:success', () => resolve());
    // Socket tokens are single use: a fresh one on every (re)connect, as the web app does.
    socket.on('connect', () => {
      void call('GET', '/v1/user/websocket').then((answer) => socket.emit('auth', { token: answer.result.token as string }));
    });
  });
  const latencies: number[] = [];
  let received = 0;
  const skipped: string[] = [];
  let first = 0;
  let last = 0;
  let doneResolve: () => void = () => undefined;
  const done = new Promise<void>((r) => (doneResolve = r));
  socket.on('server:console', ({ lines }: { lines: string[] }) => {
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
  });
  socket.emit('server:subscribe', { serverId: id });
  await sleep(500);
  const rssBefore = stack.rssMb();
  const total = 60_000;
  await call('POST', `/v1/server/${id}/command`, { command: `flood ${total} 20000` });
  await Promise.race([done, sleep(30_000)]);
  const rssAfter = stack.rssMb();
  latencies.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      bench: 'console',
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
  socket.close();
} finally {
  stack.stop();
}
