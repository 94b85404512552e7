/**
 * What the cage costs (targets: a caged start ≤ 1.1× an uncaged one; ≥ 25 idle built-in servers in
 * 4 GiB), measured on two real agents in this process, each in its own DATA_DIR:
 * - cage-start: from the start call until the game says it is ready (then checked by a ping), built-in runtime (flying-squid
 *   1.21.4, fresh world each time), caged (bubblewrap, cgroup limits, the game user) and uncaged
 *   (`withoutCage`, the same launcher and plan), taking turns, median of 11 each;
 * - cage-idle: 25 caged built-in servers on the free plan's memory started one after another, then left
 *   idle for 20 s; each server's memory as its control group counts it (every process in the group,
 *   without the reclaimable file cache: the figure the dashboard shows), and their total against 4 GiB.
 * Needs bubblewrap and writable cgroups, as the agent's own tests do.
 */
import { planById } from '@spawnpoint/contracts';
import { installBuiltin, startTestAgent, type TestAgent } from '../apps/agent/test-support/test-agent.ts';
import { median, untilPingAnswers } from './game-ping.ts';

const ROUNDS = 11;
const IDLE_SERVERS = 25;
const FOUR_GIB_MB = 4096;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function ok(t: TestAgent, method: string, url: string, body?: unknown): Promise<void> {
  const res = await t.call(method, url, body);
  if (res.body.status !== 'SUCCESS') throw new Error(`${method} ${url} answered ${JSON.stringify(res.body)}`);
}

/**
 * Milliseconds from the start call until the agent sees the game's ready line (its `online`), then checked
 * by a status ping (not timed). Watching the agent's state in this process costs nothing; pinging every
 * 10 ms would make this process compete for the 2 cores with the game it times.
 */
async function timedStart(t: TestAgent, serverId: string, port: number): Promise<number> {
  const started = performance.now();
  await ok(t, 'POST', `/v1/servers/${serverId}/power`, { action: 'start' });
  const deadline = Date.now() + 60_000;
  while (t.agent.servers.get(serverId)?.state !== 'online') {
    if (Date.now() > deadline) throw new Error(`${serverId} was not online within a minute`);
    await sleep(5);
  }
  const ms = Math.round(performance.now() - started);
  await untilPingAnswers(port);
  return ms;
}

async function kill(t: TestAgent, serverId: string): Promise<void> {
  await ok(t, 'POST', `/v1/servers/${serverId}/power`, { action: 'kill' });
  while (t.agent.servers.get(serverId)?.state !== 'offline') await sleep(20);
}

const caged = await startTestAgent('bench-caged');
const uncaged = await startTestAgent('bench-uncaged', { withoutCage: true });
try {
  if (caged.agent.cage.mode !== 'caged') throw new Error(`the cage is not available here: ${caged.agent.cage.summary}`);
  const memoryMb = planById('free')?.memoryMb ?? 1024;
  const cagedMs: number[] = [];
  const uncagedMs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const pair = [
      [caged, cagedMs],
      [uncaged, uncagedMs],
    ] as const;
    // Each goes first every other round, so neither always starts right after the other's kill.
    for (const [t, runs] of i % 2 ? [...pair].reverse() : pair) {
      const id = `start-${i}`;
      const port = await installBuiltin(t, id, { memoryMb });
      runs.push(await timedStart(t, id, port));
      await kill(t, id);
    }
  }
  console.log(
    JSON.stringify({
      bench: 'cage-start',
      runtime: 'flying-squid',
      cagedMedianMs: median(cagedMs),
      uncagedMedianMs: median(uncagedMs),
      ratio: Number((median(cagedMs) / median(uncagedMs)).toFixed(2)),
      cagedRunsMs: cagedMs,
      uncagedRunsMs: uncagedMs,
      target: { ratio: 1.1 },
    }),
  );

  const ids: string[] = [];
  for (let i = 0; i < IDLE_SERVERS; i++) {
    const id = `idle-${i}`;
    await timedStart(caged, id, await installBuiltin(caged, id, { memoryMb }));
    ids.push(id);
  }
  // Idle: no player, nothing typed; the first samples after a start still carry its garbage.
  await sleep(20_000);
  const perServerMb: number[] = [];
  for (const id of ids) {
    const stats = caged.agent.servers.get(id)?.latestStats();
    if (!stats) throw new Error(`${id} has no figures`);
    perServerMb.push(Math.round(stats.memory / 1024 / 1024));
  }
  const totalMb = perServerMb.reduce((a, b) => a + b, 0);
  console.log(
    JSON.stringify({
      bench: 'cage-idle',
      runtime: 'flying-squid',
      servers: ids.length,
      medianMb: median(perServerMb),
      maxMb: Math.max(...perServerMb),
      totalMb,
      fitIn4GiB: Math.floor(FOUR_GIB_MB / (totalMb / ids.length)),
      target: { fitIn4GiB: 25 },
    }),
  );
  for (const id of ids) await kill(caged, id);
} finally {
  await caged.close();
  await uncaged.close();
}
