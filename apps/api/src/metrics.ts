/**
 * The API's Prometheus page (`GET /metrics`, bearer METRICS_TOKEN): its HTTP traffic and process figures
 * (`@spawnpoint/logging`), and what it knows live: sockets by kind, servers by state, and each node's
 * connection, capacity, active servers and waiting starts. Gauges are read when the page is asked for,
 * so nothing is counted twice or left stale between scrapes.
 */
import { AGENT_NAMESPACE, countByState, endpoints, PROXY_NAMESPACE, PUBLIC_LIST_NAMESPACE } from '@spawnpoint/contracts';
import { METRICS_CONTENT_TYPE } from '@spawnpoint/logging';
import { Gauge, type Registry } from 'prom-client';
import type { Route } from './http/route.ts';
import type { Server } from 'socket.io';
import type { NodeRegistry } from './nodes.ts';
import type { ServerHub } from './server-hub.ts';
import type { PowerDispatcher } from './servers/power.ts';

/** Which socket namespace holds whom. */
const SOCKET_KINDS = { browser: '/', agent: AGENT_NAMESPACE, proxy: PROXY_NAMESPACE, publicList: PUBLIC_LIST_NAMESPACE } as const;

/** Adds the live gauges to the registry `httpMetrics` made (at the app's start, so every route is counted). */
export function liveGauges(registry: Registry, parts: { io: Server; nodes: NodeRegistry; hub: ServerHub; power: PowerDispatcher }): void {
  const { io, nodes, hub, power } = parts;
  const registers = [registry];
  new Gauge({
    name: 'spawnpoint_api_sockets',
    help: 'Open Socket.IO connections on this API process, by kind (browser, agent, proxy, publicList)',
    labelNames: ['kind'] as const,
    registers,
    collect() {
      for (const [kind, namespace] of Object.entries(SOCKET_KINDS)) this.set({ kind }, io.of(namespace).sockets.size);
    },
  });
  new Gauge({
    name: 'spawnpoint_servers',
    help: 'Servers placed on a node, by state',
    labelNames: ['state'] as const,
    registers,
    collect() {
      for (const [state, count] of countByState(hub.placedServers().map((id) => hub.stateOf(id)))) this.set({ state }, count);
    },
  });
  const perNode = (name: string, help: string, read: (nodeId: string) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['node'] as const,
      registers,
      collect() {
        for (const node of nodes.configs()) this.set({ node: node.id }, read(node.id));
      },
    });
  perNode('spawnpoint_node_up', 'Whether the node is connected to this API process (1) or not (0)', (id) =>
    nodes.isConnected(id) ? 1 : 0,
  );
  perNode('spawnpoint_node_capacity', 'Servers the node may run at once', (id) => nodes.config(id)?.capacity ?? 0);
  perNode('spawnpoint_node_active_servers', 'Servers holding a slot on the node (running, starting, stopping)', (id) =>
    hub.activeOn(id, (serverId) => power.queue.has(serverId)),
  );
  perNode('spawnpoint_node_queued_starts', "Starts waiting in the node's start queue", (id) => power.queue.length(id));
}

export function metricsRoutes(route: Route, registry: Registry): void {
  route(endpoints.metrics, async ({ reply }) => reply.type(METRICS_CONTENT_TYPE).send(await registry.metrics()));
}
