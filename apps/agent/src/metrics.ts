/**
 * The node's Prometheus page (`GET /metrics`, bearer METRICS_TOKEN, never the node token): its HTTP traffic
 * and process figures (`@spawnpoint/logging`), its servers by state, each running game's memory and CPU
 * (as last sampled from its control group), and whether it is connected to the API. Read at each scrape.
 */
import { agentEndpoints, countByState } from '@spawnpoint/contracts';
import { METRICS_CONTENT_TYPE } from '@spawnpoint/logging';
import { Gauge, type Registry } from 'prom-client';
import type { AgentRoute } from './http/agent-route.ts';
import type { ManagedServer } from './server/managed-server.ts';

export function nodeGauges(registry: Registry, servers: Map<string, ManagedServer>, apiConnected: () => boolean): void {
  const registers = [registry];
  new Gauge({
    name: 'spawnpoint_agent_servers',
    help: 'Servers installed on this node, by state',
    labelNames: ['state'] as const,
    registers,
    collect() {
      for (const [state, count] of countByState([...servers.values()].map((s) => s.state))) this.set({ state }, count);
    },
  });
  // One series per running game; a server that stopped leaves the page (reset, then only running ones set).
  const perGame = (name: string, help: string, read: (stats: NonNullable<ReturnType<ManagedServer['latestStats']>>) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['server'] as const,
      registers,
      collect() {
        this.reset();
        for (const [id, server] of servers) {
          const stats = server.latestStats();
          if (stats && server.state !== 'offline') this.set({ server: id }, read(stats));
        }
      },
    });
  perGame('spawnpoint_game_memory_bytes', "A running game's memory (its control group's, without reclaimable cache)", (s) => s.memory);
  perGame('spawnpoint_game_cpu_percent', "A running game's CPU (100 = one core)", (s) => s.cpu);
  new Gauge({
    name: 'spawnpoint_agent_api_connected',
    help: 'Whether the node is connected to the API (1) or not (0)',
    registers,
    collect() {
      this.set(apiConnected() ? 1 : 0);
    },
  });
}

export function metricsRoute(route: AgentRoute, registry: Registry): void {
  route(agentEndpoints.metrics, async ({ reply }) => reply.type(METRICS_CONTENT_TYPE).send(await registry.metrics()));
}
