/**
 * Wake on join: a player joins a stopped server by its name through the join proxy, and the
 * same connection is held until the server is online and then spawns in the world. Measured from the
 * client sending its login (mineflayer's createBot) to the bot's `spawn`, on the whole product started as
 * `npm start` starts it; the server is killed after each join so the next one starts it again. Target:
 * median ≤ 3 s.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mineflayer from 'mineflayer';
import { startStack } from './stack.ts';

const RUNS = Number(process.env.WAKE_RUNS ?? 7);
const PROXY_PORT = 25791;
const DOMAIN = 'play.spawnpoint.localhost';
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'spawnpoint-bench-wake-'));
const stack = await startStack({ port: 3905, dataDir, gamePorts: '25960-25990', proxyPort: PROXY_PORT });
const { call } = stack;

async function stateIs(id: string, wanted: string): Promise<void> {
  for (;;) {
    if ((await call('GET', `/v1/server/${id}`)).result.state === wanted) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function join(name: string, username: string): Promise<{ ms: number; end: () => void }> {
  const started = performance.now();
  const bot = mineflayer.createBot({
    host: '127.0.0.1',
    port: PROXY_PORT,
    fakeHost: `${name}.${DOMAIN}`,
    username,
    auth: 'offline',
    version: '1.21.4',
  });
  return new Promise((resolve, reject) => {
    bot.once('spawn', () => resolve({ ms: performance.now() - started, end: () => bot.end() }));
    bot.once('kicked', (reason: unknown) => reject(new Error(`kicked: ${JSON.stringify(reason)}`)));
    bot.once('error', reject);
  });
}

try {
  const name = `wake${Date.now().toString(36).slice(-8)}`;
  const id = (await call('POST', '/v1/server/create', { serverName: name })).result.serverId as string;
  // Joining by name needs the join proxy connected to the API (npm start starts it a moment after the API).
  while (!(await call('GET', `/v1/server/${id}`)).result.joinByName) await new Promise((r) => setTimeout(r, 100));
  // The first start of a world generates it; the figure is about waking one that exists.
  await call('POST', `/v1/server/${id}/start`, {});
  await stateIs(id, 'online');
  await call('POST', `/v1/server/${id}/stop`, {});
  await stateIs(id, 'offline');
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const { ms, end } = await join(name, `Waker${i}`);
    runs.push(Math.round(ms));
    end();
    await call('POST', `/v1/server/${id}/kill`, {});
    await stateIs(id, 'offline');
  }
  const sorted = [...runs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
  console.log(
    JSON.stringify({ bench: 'wake-on-join', runs: RUNS, medianMs: at(0.5), p95Ms: at(0.95), runsMs: runs, target: { medianMs: 3000 } }),
  );
} finally {
  stack.stop();
}
