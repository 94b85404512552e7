import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { freePort } from '../../../../test-support/free-port.ts';
import { until } from '../../../../test-support/until.ts';
import { prepareAgent, type AgentProcess } from './agent-process.ts';
import { prepareApiProcess } from './api-process.ts';
import { startLoadBalancer } from './load-balancer.ts';
import { createMachines, type Machine } from './network-machines.ts';
import { prepareProxy, type ProxyProcess } from './proxy-process.ts';

export type ApiProcess = Awaited<ReturnType<typeof prepareApiProcess>>;
/** An answer as a test reads it: the envelope's JSON, untyped, with the HTTP status and any cookie set. */
export type Envelope = ReturnType<typeof JSON.parse> & { http: number; setCookie: string | null };

export interface ProductionCluster {
  /** The load balancer: the service's one public address (PUBLIC_URL). */
  url: string;
  /** The two API processes behind it; the first started holds the game plane at first. */
  apis: ApiProcess[];
  /** One agent per machine (a network namespace with its own address). */
  agents: AgentProcess[];
  machines: Machine[];
  proxy: ProxyProcess;
  playDomain: string;
  operatorToken: string;
  /** Which API process a Socket.IO session (its engine id) was opened on. */
  backendOf(sid: string): string | undefined;
  /** A JSON call through the load balancer, as a browser makes it (`as`: its cookie) or the operator (`bearer`). */
  call(method: string, url: string, body?: unknown, as?: string | { bearer: string }): Promise<Envelope>;
  stop(): Promise<void>;
}

/**
 * The whole product in production shape on this machine (docs/guide.md, Several nodes): PostgreSQL (a
 * database of its own in the server DATABASE_URL names) and Redis (`redisUrl`, a key prefix of its own),
 * two API processes behind a small load balancer, `nodes` agents each on a machine of its own (a network
 * namespace with its own address, made with iproute2), the join proxy, and an S3-compatible server (s3rver)
 * that every node keeps sleeping servers in. Agents and the proxy name both API processes (API_URL); only
 * the holder of the game plane takes them. Returns why not where network namespaces cannot be made.
 */
export async function startProductionCluster(options: {
  redisUrl: string;
  nodes?: number;
  env?: Record<string, string>;
  /** How long the game plane's lease lasts (the time a takeover waits for a dead holder). */
  leaseSeconds?: number;
}): Promise<ProductionCluster | { refusal: string }> {
  if (process.env.TEST_DATABASE !== 'postgres' || !process.env.DATABASE_URL)
    return { refusal: 'the API processes share one PostgreSQL database: set DATABASE_URL (and TEST_DATABASE=postgres)' };
  const made = createMachines(options.nodes ?? 3);
  if ('refusal' in made) return made;
  const { machines } = made;
  const stops: (() => Promise<unknown>)[] = [async () => made.remove()];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    // Shared services are reached at one of this host's addresses from every machine (network-machines.ts).
    const shared = (machines[0] as Machine).hostAddress;
    const work = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-cluster-'));
    stops.push(() => rm(work, { recursive: true, force: true }));
    mkdirSync(path.join(work, 's3'));
    const s3 = new S3rver({ port: 0, address: '0.0.0.0', silent: true, directory: path.join(work, 's3') });
    const s3Port = ((await s3.run()) as AddressInfo).port;
    stops.push(() => s3.close());
    const bucket = 'spawnpoint-cluster';
    const client = new S3Client({
      endpoint: `http://127.0.0.1:${s3Port}`,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    client.destroy();
    const S3_URL = `s3://S3RVER:S3RVER@${shared}:${s3Port}/${bucket}?tls=false`;

    const agents: AgentProcess[] = [];
    for (const [i, machine] of machines.entries()) agents.push(await prepareAgent(50, { S3_URL }, `machine-${i}`, machine));
    stops.push(async () => {
      for (const agent of agents) await agent.stop();
    });
    const proxyToken = randomBytes(32).toString('hex');
    const proxy = await prepareProxy(proxyToken);
    stops.push(() => proxy.stop());
    const playDomain = 'play.cluster.test';
    const operatorToken = randomBytes(32).toString('hex');
    const balancerPort = await freePort();
    const url = `http://127.0.0.1:${balancerPort}`;
    const env = {
      REDIS_URL: options.redisUrl,
      REDIS_PREFIX: `cluster-${randomBytes(6).toString('hex')}:`,
      GAME_PLANE_LEASE_SECONDS: String(options.leaseSeconds ?? 10),
      AGENTS: JSON.stringify(agents.map((a) => a.nodeConfig)),
      PLAY_DOMAIN: playDomain,
      PROXY_TOKEN: proxyToken,
      PROXY_PORT: String(proxy.port),
      OPERATOR_TOKEN: operatorToken,
      PUBLIC_URL: url,
      // Every address of this host: each machine reaches the API processes over its own link.
      HOST: '0.0.0.0',
      ...options.env,
    };
    const first = await prepareApiProcess(env);
    stops.push(() => first.cleanup());
    await first.start();
    const second = await prepareApiProcess(env, first);
    stops.push(() => second.cleanup());
    await second.start();
    const apis = [first, second];
    const balancer = await startLoadBalancer(
      apis.map((api) => api.base),
      { port: balancerPort },
    );
    stops.push(() => balancer.close());
    for (const [i, machine] of machines.entries())
      agents[i]?.start(apis.map((api) => `http://${machine.hostAddress}:${api.port}`).join(','));
    proxy.start(apis.map((api) => api.base).join(','));

    const call: ProductionCluster['call'] = async (method, path_, body, as) => {
      const signed: Record<string, string> = typeof as === 'string' ? { cookie: as } : as ? { authorization: `Bearer ${as.bearer}` } : {};
      const response = await fetch(`${url}${path_}`, {
        method,
        headers: { origin: url, ...signed, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const text = await response.text();
      let envelope: Record<string, unknown> = { status: 'NOT_JSON', message: text.slice(0, 200) };
      try {
        envelope = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // kept as NOT_JSON: a test waiting for an answer reads it as one more that is not the one
      }
      return { http: response.status, setCookie: response.headers.get('set-cookie'), ...envelope };
    };
    await until(
      async () => ((await call('GET', '/healthz')).result?.agents as string[] | undefined) ?? [],
      (ids) => ids.length === machines.length,
      60_000,
    );
    return { url, apis, agents, machines, proxy, playDomain, operatorToken, backendOf: balancer.backendOf, call, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
