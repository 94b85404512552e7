/*
 * What a connected agent says on its socket (`/agent` namespace), checked against the protocol and handed to
 * the node events: NodeRegistry (nodes.ts) accepts the socket and keeps what a hello says of the node.
 */
import {
  AGENT_PROTOCOL_VERSION,
  agentBackupEvent,
  agentConsoleEvent,
  agentHello,
  agentStateEvent,
  agentStatsEvent,
  agentUploadEvent,
  type AgentToApiEvents,
  type ApiToAgentEvents,
  type AgentBackupEvent,
  type AgentUploadEvent,
  type ServerState,
  type ServerStats,
} from '@spawnpoint/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Socket } from 'socket.io';
import type { z } from 'zod';

export type AgentHello = z.infer<typeof agentHello>;

export interface NodeEvents {
  /** `reason`: why the server went offline without being asked, in the node's words. */
  state(nodeId: string, serverId: string, state: ServerState, reason?: string): void;
  lines(nodeId: string, serverId: string, lines: string[]): void;
  stats(nodeId: string, serverId: string, stats: ServerStats): void;
  /** Players in the game by its own join/leave lines (sent with the stats by agents that count them). */
  inGame(nodeId: string, serverId: string, count: number): void;
  /** The node (re)connected and reported what it runs; servers it does not list are offline. */
  hello(nodeId: string, states: Map<string, ServerState>, backups: { serverId: string; backupId: string }[]): void;
  /** `recorded` is called once how a backup ended is recorded (the node forgets it then). */
  backup(nodeId: string, event: AgentBackupEvent, recorded?: () => void): void;
  /** A browser uploaded a file straight to the node through a signed link; `recorded` once it is logged. */
  upload(nodeId: string, event: AgentUploadEvent, recorded: () => void): void;
  gone(nodeId: string): void;
}

/**
 * Listens to one agent's socket: `greeted` runs with its hello once it fits the protocol (an agent that
 * does not speak it is disconnected), `gone` when the socket closes; the rest goes to `events`.
 */
export function listenToAgent(
  socket: Socket<AgentToApiEvents, ApiToAgentEvents>,
  nodeId: string,
  log: FastifyBaseLogger,
  events: NodeEvents,
  greeted: (hello: AgentHello) => void,
  gone: () => void,
): void {
  socket.emit('api:clock', { now: Date.now() });
  // Events name servers; the state layer drops any server that is not on this node.
  socket.on('agent:hello', (payload) => {
    const hello = agentHello.safeParse(payload);
    if (!hello.success) {
      const spoken = typeof payload === 'object' && payload !== null && 'protocol' in payload ? payload.protocol : undefined;
      log.error(
        { nodeId, protocol: spoken, expected: AGENT_PROTOCOL_VERSION },
        spoken === AGENT_PROTOCOL_VERSION
          ? 'an agent hello that does not fit the protocol: ignored'
          : 'an agent of another protocol version: upgrade the API and its agents together; its servers are not taken',
      );
      // Not left connected without a hello: what runs there is unknown, so starts would wait for it for ever.
      // Disconnected, its servers' actions answer NODE_UNAVAILABLE until an agent that speaks the protocol comes.
      socket.disconnect(true);
      return;
    }
    greeted(hello.data);
  });
  socket.on('agent:state', (payload) => {
    const event = agentStateEvent.safeParse(payload);
    if (event.success) events.state(nodeId, event.data.serverId, event.data.state, event.data.reason);
  });
  // Acknowledged, so the agent keeps a batch until it is known to have arrived.
  socket.on('agent:console', (payload: unknown, ack?: unknown) => {
    const event = agentConsoleEvent.safeParse(payload);
    if (event.success) events.lines(nodeId, event.data.serverId, event.data.lines);
    if (typeof ack === 'function') ack();
  });
  socket.on('agent:stats', (payload) => {
    const event = agentStatsEvent.safeParse(payload);
    if (!event.success) return;
    const { serverId, inGame, ...stats } = event.data;
    events.stats(nodeId, serverId, stats);
    if (inGame !== undefined) events.inGame(nodeId, serverId, inGame);
  });
  // How a backup ended is acknowledged once it is recorded: until then the node keeps it and sends it again.
  socket.on('agent:backup', (payload, ack?: unknown) => {
    const event = agentBackupEvent.safeParse(payload);
    if (event.success) events.backup(nodeId, event.data, typeof ack === 'function' ? () => void ack() : undefined);
  });
  // Acknowledged once logged (a report that does not fit the protocol at once: sending it again would not help).
  socket.on('agent:upload', (payload, ack?: unknown) => {
    const recorded = typeof ack === 'function' ? () => void ack() : () => undefined;
    const event = agentUploadEvent.safeParse(payload);
    if (event.success) events.upload(nodeId, event.data, recorded);
    else recorded();
  });
  socket.on('disconnect', gone);
}
