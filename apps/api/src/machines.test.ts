import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Bot } from 'mineflayer';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/until.ts';
import { servers } from './db/schema.ts';
import { prepareAgent, type AgentProcess } from './test/agent-process.ts';
import { buildTestApp, ownerWithServer, requester } from './test/build-test-app.ts';
import { createMachines } from './test/network-machines.ts';
import { prepareProxy, type ProxyProcess } from './test/proxy-process.ts';
import { joinThroughProxy } from './test/server-watch.ts';

/**
 * Many machines (docs/guide.md, Several nodes): three nodes, each an agent in a network namespace of its
 * own with its own address, as separate machines are; the API and the join proxy on this host. New servers
 * spread over the nodes, and a player joining by name through the proxy reaches each one at its node's
 * address. Where namespaces cannot be made (no root, no iproute2), the suite says why and does not run.
 */
const DOMAIN = 'play.example.test';
const made = createMachines(3);
const refusal = 'refusal' in made ? made.refusal : null;
if (refusal) console.warn(`machines.test.ts is not run: ${refusal}`);

let t: Awaited<ReturnType<typeof buildTestApp>>;
const agents: AgentProcess[] = [];
let proxy: ProxyProcess;
const bots: Bot[] = [];

beforeAll(async () => {
  if (!('machines' in made)) return;
  const token = randomBytes(32).toString('hex');
  for (const [i, machine] of made.machines.entries()) agents.push(await prepareAgent(50, {}, `machine-${i}`, machine));
  proxy = await prepareProxy(token);
  t = await buildTestApp({
    AGENTS: JSON.stringify(agents.map((a) => a.nodeConfig)),
    PLAY_DOMAIN: DOMAIN,
    PROXY_TOKEN: token,
    PROXY_PORT: String(proxy.port),
  });
  // Every address of this host: each machine reaches the API over its own link.
  await t.app.listen({ port: 0, host: '0.0.0.0' });
  const port = (t.app.server.address() as AddressInfo).port;
  made.machines.forEach((machine, i) => agents[i]?.start(`http://${machine.hostAddress}:${port}`));
  proxy.start(`http://127.0.0.1:${port}`);
  await until(
    async () => (await requester(t.app)('GET', '/healthz')).json().result.agents as string[],
    (ids) => ids.length === 3,
    60_000,
  );
  await until(
    () => t.ctx.game.proxies.connected(),
    (connected) => connected,
  );
}, 120_000);
afterAll(async () => {
  for (const bot of bots) bot.end();
  await proxy?.stop();
  await t?.cleanup();
  for (const agent of agents) await agent.stop();
  if ('remove' in made) made.remove();
});

const joinByName = (name: string, username: string) => joinThroughProxy(proxy.port, `${name}.${DOMAIN}`, username, bots);

describe.runIf(!refusal)('three nodes, each a machine of its own', { timeout: 180_000 }, () => {
  it('spreads new servers over the nodes, and players reach each one by name through the join proxy', async () => {
    const send = requester(t.app);
    const made3 = [];
    for (const prefix of ['east', 'west', 'north']) made3.push(await ownerWithServer(t, prefix));
    const rows = await Promise.all(
      made3.map(async ({ id }) => (await t.ctx.database.db.select().from(servers).where(eq(servers.id, id)))[0]!),
    );
    expect(new Set(rows.map((r) => r.nodeId)).size).toBe(3);

    for (const [i, { cookie, id }] of made3.entries()) {
      const server = (await send('GET', `/v1/server/${id}`, cookie)).json().result as { name: string };
      // Asleep as far as the player knows: joining by name starts it on its own machine and lets them in.
      const bot = await joinByName(server.name, `Walker${i}`);
      expect(bot.entity).toBeDefined();
      const node = agents.find((a) => a.nodeConfig.id === rows[i]?.nodeId);
      // It runs where the control plane placed it, at that machine's address.
      expect(node?.nodeConfig.publicHost).toMatch(/^10\./);
      expect(t.ctx.game.hub.nodeOf(id)).toBe(rows[i]?.nodeId);
      bot.end();
      await send('POST', `/v1/server/${id}/kill`, cookie, {});
    }
  });
});
