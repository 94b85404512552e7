/**
 * `npm run cluster`: the whole product in production shape on this machine (apps/api/src/test/cluster-harness.ts):
 * PostgreSQL (DATABASE_URL, default the local server's `test` database; a database of its own is made in it)
 * and Redis (REDIS_URL, default the local one), two API processes behind a small load balancer, three nodes
 * each in a network namespace of its own (needs root and iproute2), the join proxy and an S3-compatible
 * server. Prints where everything is; Ctrl-C stops and removes all of it.
 */
import path from 'node:path';

process.env.TEST_DATABASE = 'postgres';
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// The harness's API processes get REDIS_URL from it, not from this shell.
delete process.env.REDIS_URL;

const { startProductionCluster } = await import('../apps/api/src/test/cluster-harness.ts');
const cluster = await startProductionCluster({
  redisUrl,
  // The site too, when it is built (`npm run build`); the API processes' log shows with DEBUG_API=1.
  env: { WEB_DIST: path.resolve(import.meta.dirname, '../apps/web/build/client') },
});
if ('refusal' in cluster) {
  console.error(`npm run cluster cannot run here: ${cluster.refusal}`);
  process.exit(1);
}
console.log(`Spawnpoint in production shape:
  site and API (load balancer)  ${cluster.url}
  API processes                 ${cluster.apis.map((api) => api.base).join(', ')}
  nodes                         ${cluster.agents.map((a, i) => `${a.nodeConfig.id} at ${cluster.machines[i]?.address}`).join(', ')}
  join proxy                    127.0.0.1:${cluster.proxy.port} (names under ${cluster.playDomain})
  operator token                ${cluster.operatorToken}
Ctrl-C stops everything.`);
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void cluster.stop().then(() => process.exit(0));
  });
