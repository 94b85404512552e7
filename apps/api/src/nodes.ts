import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import {
  AGENT_NAMESPACE,
  GAME_PLANE_REFUSAL,
  agentEndpoints,
  linkSigner,
  fillPath,
  type LinkSigner,
  type AgentEndpoint,
  type ApiToAgentEvents,
  type CallInput,
  type AgentServerSpec,
  type AgentToApiEvents,
  type PowerAction,
  type LiveNode,
} from '@spawnpoint/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Namespace, Server, Socket } from 'socket.io';
import type { z } from 'zod';
import { answerOf, collect, exchange, refusal, resultOf, type JsonAgentEndpoint } from './agent-exchange.ts';
import { listenToAgent, type AgentHello, type NodeEvents } from './agent-socket.ts';
import type { AgentNodeConfig } from './config.ts';
import { ApiError } from './http/errors.ts';
import { downloadLinkOf, uploadLinkOf, type DownloadGrant, type UploadGrant } from './node-links.ts';

export { AgentCutOff, UPLOAD_INCOMPLETE, type JsonAgentEndpoint } from './agent-exchange.ts';
export type { NodeEvents } from './agent-socket.ts';

/** What a call of an agent entry needs: exactly the parts its schemas declare. */
export type AgentInput<E extends AgentEndpoint> = CallInput<E>;

interface NodeEntry {
  config: AgentNodeConfig;
  socket: Socket | null;
  /** Java major versions installed on the node, from its hello (which Java software it can run). */
  javaMajors?: number[];
  /** Java major versions on the node now (the others in `javaMajors` it downloads at a start). */
  javaInstalled?: number[];
  /** The shared storage it keeps sleeping servers in (`s3://host/bucket`), from its hello; null: its own disk. */
  storage?: string | null;
  /** Its hello on the current socket arrived: what runs on it is known (false from connection until then). */
  greeted?: boolean;
}

/** JSON calls (power, files, properties) are answered within this; streamed ones may take as long as they need. */
const CALL_TIMEOUT_MS = 30_000;

function sameToken(a: string, b: unknown): boolean {
  if (typeof b !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** How often a call waiting for a node that returns after a takeover looks again. */
const RETURN_POLL_MS = 100;

/**
 * The node registry: which agents exist (configuration), which are connected (their socket to the
 * `/agent` namespace), and the HTTP calls the control plane makes to them. A node's token only ever
 * acts for that node.
 */
export class NodeRegistry {
  private nodes = new Map<string, NodeEntry>();
  private signers = new Map<string, LinkSigner>();
  /** Set on a request's view (`forRequest`): sent with every call, so the agent logs it under the same id. */
  private readonly requestId: string | undefined = undefined;

  constructor(
    configs: AgentNodeConfig[],
    private log: FastifyBaseLogger,
  ) {
    for (const config of configs) this.nodes.set(config.id, { config, socket: null });
  }

  /**
   * Whether this process takes agents now (it holds the game plane: game-plane.ts). Refused agents try the
   * next address of their API_URL list.
   */
  accepting: () => boolean = () => true;
  /** Set by the app: tells the mirroring API processes a node's presence (game-plane.ts). */
  share: ((node: LiveNode) => void) | null = null;
  /** Called once a node's hello has been applied (`isGreeted` is true): starts waiting for it may go. */
  onGreeted: ((nodeId: string) => void) | null = null;
  // On a mirroring process: the nodes as the game plane's holder last said (their sockets are there).
  private remote = new Map<string, LiveNode>();
  /** Nodes connected to the old holder when this process took the game plane over, and until when calls wait for them. */
  private returning = new Map<string, number>();

  /**
   * This process takes the game plane over: the nodes connected to the old holder connect here within
   * seconds. Until then (at most `withinMs`) a call to one waits for it instead of answering NODE_UNAVAILABLE.
   */
  expectReturning(withinMs: number): void {
    const until = Date.now() + withinMs;
    for (const [nodeId, node] of this.remote) if (node.connected) this.returning.set(nodeId, until);
  }

  /** Whether a node can be called now; one returning after a takeover is waited for (see `expectReturning`). */
  async reachable(nodeId: string): Promise<boolean> {
    for (;;) {
      const entry = this.nodes.get(nodeId);
      if (!entry) return false;
      if (this.present(entry)) return true;
      const until = this.returning.get(nodeId);
      if (until === undefined || Date.now() >= until) {
        this.returning.delete(nodeId);
        return false;
      }
      await new Promise((resolve) => setTimeout(resolve, RETURN_POLL_MS));
    }
  }

  /** What this process says of a node to the mirrors. */
  liveOf(nodeId: string): LiveNode {
    const entry = this.nodes.get(nodeId);
    return {
      nodeId,
      connected: entry?.socket?.connected ?? false,
      javaMajors: entry?.javaMajors ?? [],
      javaInstalled: entry?.javaInstalled ?? [],
      storage: entry?.storage ?? null,
    };
  }

  /** Every configured node as this process knows it (the holder's snapshot). */
  live(): LiveNode[] {
    return [...this.nodes.keys()].map((id) => this.liveOf(id));
  }

  /** A mirror learns a node's presence from the holder; `null` forgets every one (this process holds them now). */
  applyLive(node: LiveNode | null): void {
    if (!node) return this.remote.clear();
    if (this.nodes.has(node.nodeId)) this.remote.set(node.nodeId, node);
  }

  private present(entry: NodeEntry): boolean {
    return entry.socket?.connected === true || this.remote.get(entry.config.id)?.connected === true;
  }

  attach(io: Server, events: NodeEvents): Namespace {
    const ns = io.of(AGENT_NAMESPACE);
    ns.use((socket, next) => {
      const { nodeId, token } = (socket.handshake.auth ?? {}) as Record<string, unknown>;
      const entry = typeof nodeId === 'string' ? this.nodes.get(nodeId) : undefined;
      if (!entry || !sameToken(entry.config.token, token)) return next(new Error('NOT_AUTHENTICATED'));
      if (!this.accepting()) return next(new Error(GAME_PLANE_REFUSAL));
      socket.data.nodeId = entry.config.id;
      next();
    });
    ns.on('connection', (socket: Socket<AgentToApiEvents, ApiToAgentEvents>) => {
      const nodeId = socket.data.nodeId as string;
      const entry = this.nodes.get(nodeId) as NodeEntry;
      entry.socket?.disconnect(true);
      entry.socket = socket;
      entry.greeted = false;
      this.log.info({ nodeId }, 'agent connected');
      listenToAgent(
        socket,
        nodeId,
        this.log,
        events,
        (hello: AgentHello) => {
          entry.javaMajors = hello.javaMajors;
          entry.javaInstalled = hello.javaInstalled;
          entry.storage = hello.storage;
          this.share?.(this.liveOf(nodeId));
          events.hello(nodeId, new Map(hello.servers.map((s) => [s.serverId, s.state])), hello.backups);
          entry.greeted = true;
          this.onGreeted?.(nodeId);
        },
        () => {
          if (entry.socket !== socket) return;
          entry.socket = null;
          this.log.warn({ nodeId }, 'agent disconnected');
          this.share?.(this.liveOf(nodeId));
          events.gone(nodeId);
        },
      );
    });
    return ns;
  }

  /**
   * This registry as seen by one request: the same nodes, sockets and signers (shared through the
   * prototype), with the request's id on every call. Made per request that calls a node; costs one object.
   */
  forRequest(requestId: string, away?: (serverId: string) => string | null): NodeRegistry {
    return Object.create(this, { requestId: { value: requestId }, away: { value: away } }) as NodeRegistry;
  }

  /**
   * Set on a request's view: why a server's folder cannot be reached on a node now (it is in shared
   * storage, or on its way), so a file, backup or settings call is refused with that instead of reaching
   * a node that does not have it. Deleting the server and its backups still goes through.
   */
  private readonly away: ((serverId: string) => string | null) | undefined = undefined;

  private refuseIfAway(endpoint: AgentEndpoint, params: unknown): void {
    if (!this.away || endpoint === agentEndpoints.remove || endpoint === agentEndpoints.backupDelete) return;
    const serverId = (params as { serverId?: unknown } | undefined)?.serverId;
    const why = typeof serverId === 'string' ? this.away(serverId) : null;
    if (why) throw new ApiError('INVALID_STATE', undefined, why);
  }

  /** Connected nodes: to this process, or (on a mirror) to the game plane's holder. */
  connectedIds(): string[] {
    return [...this.nodes.values()].filter((n) => this.present(n)).map((n) => n.config.id);
  }

  isConnected(nodeId: string): boolean {
    const entry = this.nodes.get(nodeId);
    return entry ? this.present(entry) : false;
  }

  /**
   * Connected to this process and its hello has arrived, so the states of its servers are known. Counting
   * free slots needs that: between a node's connection and its hello (after this process took the game
   * plane over, its states start empty) a running server would count as stopped, and a waiting start would
   * take its slot.
   */
  isGreeted(nodeId: string): boolean {
    const entry = this.nodes.get(nodeId);
    return entry?.socket?.connected === true && entry.greeted === true;
  }

  /** The shared storage a node said it keeps sleeping servers in; null for its own disk (or before its hello). */
  storageOf(nodeId: string): string | null {
    return this.nodes.get(nodeId)?.storage ?? this.remote.get(nodeId)?.storage ?? null;
  }

  /** Java major versions a node reported in its hello; null until it did. */
  javaMajorsOf(nodeId: string): number[] | null {
    return this.nodes.get(nodeId)?.javaMajors ?? this.remote.get(nodeId)?.javaMajors ?? null;
  }

  /** Java major versions a node has now (a start needing another one that it can run downloads it first). */
  javaInstalledOf(nodeId: string): number[] {
    return this.nodes.get(nodeId)?.javaInstalled ?? this.remote.get(nodeId)?.javaInstalled ?? [];
  }

  /** Java major versions of the connected nodes (a Java server's version needs one at or above its own). */
  javaMajors(): number[] {
    return [...this.nodes.values()]
      .filter((n) => this.present(n))
      .flatMap((n) => n.javaMajors ?? this.remote.get(n.config.id)?.javaMajors ?? []);
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

  /**
   * Calls an entry of the agent protocol (`agentEndpoints` in contracts) with its JSON body; the answer
   * must have the entry's result shape. The agent's refusals become the matching catalogue codes; an
   * answer of another shape is the node's fault, never the user's: logged and answered INTERNAL_ERROR.
   */
  async call<E extends JsonAgentEndpoint>(
    nodeId: string,
    endpoint: E,
    input: AgentInput<E>,
    /** Longer than CALL_TIMEOUT_MS for work that grows with the folder (a sleeping server going to storage). */
    timeoutMs = CALL_TIMEOUT_MS,
  ): Promise<z.infer<E['result']>> {
    this.refuseIfAway(endpoint, input.params);
    const { body } = input as { body?: unknown };
    const path = fillPath(endpoint.path, input.params, input.query);
    const response = await this.exchange(nodeId, endpoint.method, path, {
      ...(body !== undefined ? { body: Buffer.from(JSON.stringify(body)), contentType: 'application/json' } : {}),
      timeoutMs,
    });
    return resultOf(this.log, nodeId, path, endpoint, await answerOf(this.log, nodeId, path, response));
  }

  /**
   * Calls a `streamed` entry, its body sent as it arrives (uploads, editor saves); the answer is JSON. An
   * agent that refuses midway (DISK_LIMIT) is heard while the body is still being sent; a body that fails
   * (the user's upload was cut off) answers INVALID_INPUT and the agent discards what it got.
   */
  async send<E extends JsonAgentEndpoint & { streamed: true }>(
    nodeId: string,
    endpoint: E,
    input: AgentInput<E>,
    body: Buffer | Readable,
  ): Promise<z.infer<E['result']>> {
    this.refuseIfAway(endpoint, input.params);
    const path = fillPath(endpoint.path, input.params, input.query);
    const response = await this.exchange(nodeId, endpoint.method, path, { body, contentType: 'application/octet-stream' });
    return resultOf(this.log, nodeId, path, endpoint, await answerOf(this.log, nodeId, path, response));
  }

  /**
   * Calls a `raw` entry (a download) and hands back its body as a Node stream (no web-stream conversion
   * on the hot path), never buffered. Refusals become the matching catalogue codes.
   */
  async download<E extends AgentEndpoint & { raw: true }>(
    nodeId: string,
    endpoint: E,
    input: AgentInput<E>,
  ): Promise<{ headers: IncomingHttpHeaders; body: IncomingMessage }> {
    this.refuseIfAway(endpoint, input.params);
    const path = fillPath(endpoint.path, input.params, input.query);
    const response = await this.exchange(nodeId, endpoint.method, path);
    if ((response.headers['content-type'] ?? '').includes('application/json')) {
      const answer = await answerOf(this.log, nodeId, path, response);
      if (answer.status !== 'SUCCESS') refusal(this.log, nodeId, path, answer);
      this.log.error({ nodeId, path }, 'malformed agent answer: JSON instead of a download');
      throw new ApiError('INTERNAL_ERROR');
    }
    if (response.statusCode !== 200) {
      response.destroy();
      this.log.error({ nodeId, path, httpStatus: response.statusCode }, 'malformed agent answer: a failed download without a refusal');
      throw new ApiError('INTERNAL_ERROR');
    }
    return { headers: response.headers, body: response };
  }

  /**
   * A short-lived link on the node that lets a browser download exactly one file or folder, or one backup,
   * of one server (node-links.ts). Made only while the node is connected (else NODE_UNAVAILABLE).
   */
  async downloadLink(nodeId: string, grant: DownloadGrant): Promise<string> {
    if (grant.purpose === 'file-download') this.refuseIfAway(agentEndpoints.signedFileDownload, grant);
    return downloadLinkOf(this.linkBase(nodeId), grant);
  }

  /** A short-lived link on the node that takes one file of exactly `size` bytes (node-links.ts). */
  async uploadLink(nodeId: string, grant: UploadGrant): Promise<{ url: string; expires: number }> {
    this.refuseIfAway(agentEndpoints.signedFileUpload, grant);
    return uploadLinkOf(this.linkBase(nodeId), grant);
  }

  /**
   * Where browsers reach a node (`downloadUrl`, else its URL) and the signer of its links. Links are made
   * only while the node is connected, as every other call (a node that is away → NODE_UNAVAILABLE).
   */
  private linkBase(nodeId: string): { base: string; signer: LinkSigner } {
    const node = this.nodes.get(nodeId);
    if (!node || !this.present(node)) throw new ApiError('NODE_UNAVAILABLE');
    let signer = this.signers.get(nodeId);
    if (!signer) this.signers.set(nodeId, (signer = linkSigner(node.config.token)));
    return { base: (node.config.downloadUrl ?? node.config.url).replace(/\/+$/, ''), signer };
  }

  /** Reads a body the agent is sending (a download being buffered); a connection lost midway → NODE_UNAVAILABLE. */
  collect(nodeId: string, body: Readable): Promise<Buffer> {
    return collect(this.log, nodeId, body);
  }

  /** Sends a server's spec; answers the player slots it runs with. */
  async install(nodeId: string, spec: AgentServerSpec): Promise<number> {
    return (await this.call(nodeId, agentEndpoints.install, { params: { serverId: spec.serverId }, body: spec })).maxPlayers;
  }

  /** Which of `ports` the node could listen on now (another program may hold some). */
  async bindablePorts(nodeId: string, ports: number[]): Promise<number[]> {
    return (await this.call(nodeId, agentEndpoints.portsBindable, { body: { ports } })).bindable;
  }

  async power(nodeId: string, serverId: string, action: PowerAction): Promise<void> {
    await this.call(nodeId, agentEndpoints.power, { params: { serverId }, body: { action } });
  }

  async command(nodeId: string, serverId: string, command: string): Promise<void> {
    await this.call(nodeId, agentEndpoints.command, { params: { serverId }, body: { command } });
  }

  async consoleHistory(nodeId: string, serverId: string): Promise<string[]> {
    return (await this.call(nodeId, agentEndpoints.consoleHistory, { params: { serverId } })).lines;
  }

  async remove(nodeId: string, serverId: string): Promise<void> {
    await this.call(nodeId, agentEndpoints.remove, { params: { serverId } });
  }

  /** One exchange with a node's agent (agent-exchange.ts), once the node can be called. */
  private async exchange(
    nodeId: string,
    method: string,
    path: string,
    options: { body?: Buffer | Readable; contentType?: string; timeoutMs?: number } = {},
  ): Promise<IncomingMessage> {
    const node = this.nodes.get(nodeId);
    // A mirror calls a node the holder has a socket to directly: calls are HTTP, events come to the holder.
    if (!node || !(await this.reachable(nodeId))) throw new ApiError('NODE_UNAVAILABLE');
    return exchange({ nodeId, node: node.config, requestId: this.requestId, method, path, log: this.log, ...options });
  }
}
