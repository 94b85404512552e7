/**
 * A takeover of the game plane, timed (docs/scaling.md): the product in production shape (two API processes
 * behind a balancer, PostgreSQL, Redis, nodes on machines of their own: apps/api/src/test/cluster-harness.ts)
 * with the default lease (GAME_PLANE_LEASE_SECONDS, 10 s). The process holding the game plane is killed with
 * SIGKILL, and a console command is sent to a running server through the balancer at once: the time from
 * the kill to that command's SUCCESS is the takeover as a user meets it. The killed process is started
 * again (it becomes the mirror, and is left a lease to settle) and the other is killed next, three rounds.
 * Needs DATABASE_URL and REDIS_URL (or TEST_REDIS_URL); says so and stops without them.
 */
import { until } from '../test-support/until.ts';

const redisUrl = process.env.REDIS_URL ?? process.env.TEST_REDIS_URL;
if (!process.env.DATABASE_URL || !redisUrl) {
  console.log(JSON.stringify({ bench: 'takeover', notRun: 'needs DATABASE_URL (PostgreSQL) and REDIS_URL' }));
  process.exit(0);
}
// Read by the harness's modules as they load: the API processes share one PostgreSQL database.
process.env.TEST_DATABASE = 'postgres';
const { startProductionCluster } = await import('../apps/api/src/test/cluster-harness.ts');
const { uniqueServerName } = await import('../apps/api/src/test/build-test-app.ts');
const ROUNDS = 3;
const LEASE_SECONDS = 10;

const started = await startProductionCluster({ redisUrl, nodes: 1, leaseSeconds: LEASE_SECONDS });
if ('refusal' in started) {
  console.log(JSON.stringify({ bench: 'takeover', notRun: started.refusal }));
  process.exit(0);
}
const cluster = started;
try {
  const first = cluster.apis[0] as (typeof cluster.apis)[number];
  const { emailAddress } = await first.signUpVerified();
  const signedIn = await cluster.call('POST', '/v1/auth/login', { emailAddress, password: 'long enough password' });
  if (!signedIn.setCookie) throw new Error(`login: ${JSON.stringify(signedIn)}`);
  const cookie = signedIn.setCookie.split(';')[0] as string;
  const created = await cluster.call('POST', '/v1/server/create', { serverName: uniqueServerName('takeover') }, cookie);
  const serverId = created.result.serverId as string;
  await cluster.call('POST', `/v1/server/${serverId}/start`, {}, cookie);
  const state = async () => (await cluster.call('GET', `/v1/server/${serverId}`, undefined, cookie)).result?.state as string | undefined;
  await until(state, (s) => s === 'online', 60_000);

  const runs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // The first process held the plane at first; a killed one comes back as the mirror, so they take turns.
    const holder = cluster.apis[round % 2] as (typeof cluster.apis)[number];
    const killedAt = performance.now();
    await holder.kill();
    const answer = await cluster.call('POST', `/v1/server/${serverId}/command`, { command: `say round ${round}` }, cookie);
    const ms = Math.round(performance.now() - killedAt);
    if (answer.status !== 'SUCCESS') throw new Error(`round ${round}: ${answer.status} ${answer.message}`);
    runs.push(ms);
    await holder.start();
    // A process just started waits a lease before it may take the plane (game-plane.ts): as in production,
    // the next round's mirror has been up for longer than that.
    await new Promise((resolve) => setTimeout(resolve, LEASE_SECONDS * 1000 + 1000));
  }
  const sorted = [...runs].sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      bench: 'takeover',
      leaseMs: LEASE_SECONDS * 1000,
      medianMs: sorted[Math.floor(sorted.length / 2)],
      maxMs: sorted.at(-1),
      runsMs: runs,
      target: { underLeaseMs: LEASE_SECONDS * 1000 },
    }),
  );
} finally {
  await cluster.stop();
}
