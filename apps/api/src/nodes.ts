import { timingSafeEqual } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  AGENT_NAMESPACE,
  agentConsoleEvent,
  agentHello,
  agentStateEvent,
  agentStatsEvent,
  agentBackupEvent,
  type AgentBackupEvent,
  type AgentServerSpec,
  type AgentToApiEvents,
  type PowerAction,
  type ServerState,
  type ServerStats,
} from '@spawnpoint/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Namespace, Server, Socket } from 'socket.io';
import { z } from 'zod';
import type { AgentNodeConfig } from './config.ts';
import { ApiError } from './http/errors.ts';

export interface NodeEvents {
  state(nodeId: string, serverId: string, state: ServerState): void;
  lines(nodeId: string, serverId: string, lines: string[]): void;
  stats(nodeId: string, serverId: string, stats: ServerStats): void;
  /** The node (re)connected and reported what it runs; servers it does not list are offline. */
  hello(nodeId: string, states: Map<string, ServerState>): void;
  backup(nodeId: string, event: AgentBackupEvent): void;
  gone(nodeId: string): void;
}

interface NodeEntry {
  config: AgentNodeConfig;
  socket: Socket | null;
}

const agentAnswer = z.object({ status: z.string(), message: z.string().optional(), result: z.unknown().optional() });

function sameToken(a: string, b: unknown): boolean {
  if (typeof b !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The node registry: which agents exist (configuration), which are connected (their socket to the
 * `/agent` namespace), and the HTTP calls the control plane makes to them. A node's token only ever
 * acts for that node.
 */
export class NodeRegistry {
  private nodes = new Map<string, NodeEntry>();

  constructor(
    configs: AgentNodeConfig[],
    private log: FastifyBaseLogger,
  ) {
    for (const config of configs) this.nodes.set(config.id, { config, socket: null });
  }

  attach(io: Server, events: NodeEvents): Namespace {
    const ns = io.of(AGENT_NAMESPACE);
    ns.use((socket, next) => {
      const { nodeId, token } = (socket.handshake.auth ?? {}) as Record<string, unknown>;
      const entry = typeof nodeId === 'string' ? this.nodes.get(nodeId) : undefined;
      if (!entry || !sameToken(entry.config.token, token)) return next(new Error('NOT_AUTHENTICATED'));
      socket.data.nodeId = entry.config.id;
      next();
    });
    ns.on('connection', (socket: Socket<AgentToApiEvents>) => {
      const nodeId = socket.data.nodeId as string;
      const entry = this.nodes.get(nodeId) as NodeEntry;
      entry.socket?.disconnect(true);
      entry.socket = socket;
      this.log.info({ nodeId }, 'agent connected');
      // Events name servers; the state layer drops any server that is not on this node.
      socket.on('agent:hello', (payload) => {
        const hello = agentHello.safeParse(payload);
        if (!hello.success) return;
        events.hello(nodeId, new Map(hello.data.servers.map((s) => [s.serverId, s.state])));
      });
      socket.on('agent:state', (payload) => {
        const event = agentStateEvent.safeParse(payload);
        if (event.success) events.state(nodeId, event.data.serverId, event.data.state);
      });
      socket.on('agent:console', (payload) => {
        const event = agentConsoleEvent.safeParse(payload);
        if (event.success) events.lines(nodeId, event.data.serverId, event.data.lines);
      });
      socket.on('agent:stats', (payload) => {
        const event = agentStatsEvent.safeParse(payload);
        if (!event.success) return;
        const { serverId, ...stats } = event.data;
        events.stats(nodeId, serverId, stats);
      });
      socket.on('agent:backup', (payload) => {
        const event = agentBackupEvent.safeParse(payload);
        if (event.success) events.backup(nodeId, event.data);
      });
      socket.on('disconnect', () => {
        if (entry.socket !== socket) return;
        entry.socket = null;
        this.log.warn({ nodeId }, 'agent disconnected');
        events.gone(nodeId);
      });
    });
    return ns;
  }

  connectedIds(): string[] {
    return [...this.nodes.values()].filter((n) => n.socket?.connected).map((n) => n.config.id);
  }

  isConnected(nodeId: string): boolean {
    return this.nodes.get(nodeId)?.socket?.connected ?? false;
  }

  config(nodeId: string): AgentNodeConfig | undefined {
    return this.nodes.get(nodeId)?.config;
  }

  configs(): AgentNodeConfig[] {
    return [...this.nodes.values()].map((n) => n.config);
  }

  /** Socket of the node a server lives on, for checking that events come from the right node. */
  socketOf(nodeId: string): Socket | null {
    return this.nodes.get(nodeId)?.socket ?? null;
  }

  /** A JSON call to the agent; its refusals become the matching catalogue codes. */
  json(nodeId: string, method: string, path: string, body?: unknown): Promise<unknown> {
    return this.call(nodeId, method, path, body);
  }

  /**
   * A download from the agent as a Node stream (no web-stream conversion on the hot path): the body is
   * passed on as it arrives, never buffered. Refusals become the matching catalogue codes.
   */
  async download(nodeId: string, path: string): Promise<{ headers: IncomingHttpHeaders; body: IncomingMessage }> {
    const node = this.nodes.get(nodeId);
    if (!node || !node.socket?.connected) throw new ApiError('NO_SERVERS_AVAILABLE');
    const url = new URL(path, node.config.url);
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
        method: 'GET',
        headers: { authorization: `Bearer ${node.config.token}` },
      });
      request.once('response', resolve);
      request.once('error', reject);
      request.end();
    }).catch((err: unknown) => {
      this.log.error({ err, nodeId }, 'agent unreachable');
      throw new ApiError('NO_SERVERS_AVAILABLE');
    });
    if ((response.headers['content-type'] ?? '').includes('application/json')) {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      const answer = agentAnswer.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'));
      if (!answer.success) throw new ApiError('INTERNAL_ERROR');
      this.refusal(nodeId, path, answer.data);
    }
    return { headers: response.headers, body: response };
  }

  /** A streaming call (uploads): the answer's body is passed on, never buffered. */
  async stream(nodeId: string, method: string, path: string, body?: ReadableStream<Uint8Array> | NodeJS.ReadableStream): Promise<Response> {
    const node = this.nodes.get(nodeId);
    if (!node || !node.socket?.connected) throw new ApiError('NO_SERVERS_AVAILABLE');
    let response: Response;
    try {
      response = await fetch(`${node.config.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${node.config.token}`, ...(body ? { 'content-type': 'application/octet-stream' } : {}) },
        ...(body ? { body: body as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
      } as RequestInit);
    } catch (err) {
      this.log.error({ err, nodeId }, 'agent unreachable');
      throw new ApiError('NO_SERVERS_AVAILABLE');
    }
    if ((response.headers.get('content-type') ?? '').includes('application/json')) {
      const answer = agentAnswer.safeParse(await response.json().catch(() => null));
      if (!answer.success) throw new ApiError('INTERNAL_ERROR');
      if (answer.data.status !== 'SUCCESS') this.refusal(nodeId, path, answer.data);
      return new Response(JSON.stringify(answer.data), { headers: { 'content-type': 'application/json' } });
    }
    return response;
  }

  private refusal(nodeId: string, path: string, answer: z.infer<typeof agentAnswer>): never {
    const { status, message } = answer;
    if (status === 'INVALID_STATE' || status === 'INVALID_INPUT' || status === 'NOT_FOUND' || status === 'DISK_LIMIT') {
      throw new ApiError(status, undefined, message);
    }
    this.log.error({ nodeId, path, answer }, 'agent refused');
    throw new ApiError('INTERNAL_ERROR');
  }

  async install(nodeId: string, spec: AgentServerSpec): Promise<void> {
    await this.call(nodeId, 'PUT', `/v1/servers/${spec.serverId}`, spec);
  }

  async power(nodeId: string, serverId: string, action: PowerAction): Promise<void> {
    await this.call(nodeId, 'POST', `/v1/servers/${serverId}/power`, { action });
  }

  async command(nodeId: string, serverId: string, command: string): Promise<void> {
    await this.call(nodeId, 'POST', `/v1/servers/${serverId}/command`, { command });
  }

  async consoleHistory(nodeId: string, serverId: string): Promise<string[]> {
    const result = await this.call(nodeId, 'GET', `/v1/servers/${serverId}/console`);
    const parsed = z.object({ lines: z.array(z.string()) }).safeParse(result);
    return parsed.success ? parsed.data.lines : [];
  }

  async remove(nodeId: string, serverId: string): Promise<void> {
    await this.call(nodeId, 'DELETE', `/v1/servers/${serverId}`);
  }

  private async call(nodeId: string, method: string, path: string, body?: unknown): Promise<unknown> {
    const node = this.nodes.get(nodeId);
    if (!node || !node.socket?.connected) throw new ApiError('NO_SERVERS_AVAILABLE');
    let response: Response;
    try {
      response = await fetch(`${node.config.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${node.config.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      this.log.error({ err, nodeId }, 'agent unreachable');
      throw new ApiError('NO_SERVERS_AVAILABLE');
    }
    const answer = agentAnswer.safeParse(await response.json().catch(() => null));
    if (!answer.success) throw new ApiError('INTERNAL_ERROR');
    if (answer.data.status === 'SUCCESS') return answer.data.result;
    this.refusal(nodeId, path, answer.data);
  }
}
