import { timingSafeEqual } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { finished, Readable, Transform } from 'node:stream';
import {
  AGENT_NAMESPACE,
  AGENT_PROTOCOL_VERSION,
  GAME_PLANE_REFUSAL,
  agentConsoleEvent,
  agentHello,
  agentStateEvent,
  agentStatsEvent,
  agentBackupEvent,
  agentUploadEvent,
  agentEndpoints,
  DOWNLOAD_LINK_SECONDS,
  linkSigner,
  fillPath,
  type LinkSigner,
  type AgentEndpoint,
  type ApiToAgentEvents,
  type CallInput,
  type AgentBackupEvent,
  type AgentUploadEvent,
  type AgentServerSpec,
  type AgentToApiEvents,
  type PowerAction,
  type LiveNode,
  type ServerState,
  type ServerStats,
} from '@spawnpoint/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Namespace, Server, Socket } from 'socket.io';
import { z } from 'zod';
import type { AgentNodeConfig } from './config.ts';
import { ApiError } from './http/errors.ts';
import { REQUEST_ID_HEADER } from '@spawnpoint/logging';

/** What a call of an agent entry needs: exactly the parts its schemas declare. */
export type AgentInput<E extends AgentEndpoint> = CallInput<E>;
export type JsonAgentEndpoint = AgentEndpoint & { result: z.ZodType };

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

const agentAnswer = z.object({ status: z.string(), message: z.string().optional(), result: z.unknown().optional() });
type AgentAnswer = z.infer<typeof agentAnswer>;

/** JSON calls (power, files, properties) are answered within this; streamed ones may take as long as they need. */
const CALL_TIMEOUT_MS = 30_000;
export const UPLOAD_INCOMPLETE = 'The upload did not complete. Please try again.';

function sameToken(a: string, b: unknown): boolean {
  if (typeof b !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The agent closed the connection while a body was still being sent to it, and whatever it answered was
 * lost with the connection (it closes at once after refusing midway, and a write that meets the closed
 * connection ends the exchange before the answer is read). Answered as NODE_UNAVAILABLE unless the caller
 * can tell why (an upload asks whether the file could have fitted).
 */
export class AgentCutOff extends ApiError {
  constructor(readonly sentBytes: number) {
    super('NODE_UNAVAILABLE');
  }
}

/**
 * The node registry: which agents exist (configuration), which are connected (their socket to the
 * `/agent` namespace), and the HTTP calls the control plane makes to them. A node's token only ever
 * acts for that node.
 */
/** How often a call waiting for a node that returns after a takeover looks again. */
const RETURN_POLL_MS = 100;

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
      socket.emit('api:clock', { now: Date.now() });
      // Events name servers; the state layer drops any server that is not on this node.
      socket.on('agent:hello', (payload) => {
        const hello = agentHello.safeParse(payload);
        if (!hello.success) {
          const spoken = typeof payload === 'object' && payload !== null && 'protocol' in payload ? payload.protocol : undefined;
          this.log.error(
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
        entry.javaMajors = hello.data.javaMajors;
        entry.javaInstalled = hello.data.javaInstalled;
        entry.storage = hello.data.storage;
        this.share?.(this.liveOf(nodeId));
        events.hello(nodeId, new Map(hello.data.servers.map((s) => [s.serverId, s.state])), hello.data.backups);
        entry.greeted = true;
        this.onGreeted?.(nodeId);
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
      socket.on('disconnect', () => {
        if (entry.socket !== socket) return;
        entry.socket = null;
        this.log.warn({ nodeId }, 'agent disconnected');
        this.share?.(this.liveOf(nodeId));
        events.gone(nodeId);
      });
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
    return this.resultOf(nodeId, path, endpoint, await this.answerOf(nodeId, path, response));
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
    return this.resultOf(nodeId, path, endpoint, await this.answerOf(nodeId, path, response));
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
      const answer = await this.answerOf(nodeId, path, response);
      if (answer.status !== 'SUCCESS') this.refusal(nodeId, path, answer);
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
   * A short-lived link on the node that lets a browser download exactly one file or folder (`path`) or
   * one backup (`backupId`) of one server, saved as `name`: the caller has checked who may; the node checks
   * only the signature (key derived from the node token), expiry, purpose, server and path or backup.
   * Made only while the node is connected, as every other call (a node that is away → NODE_UNAVAILABLE).
   */
  async downloadLink(
    nodeId: string,
    grant:
      | { purpose: 'file-download'; serverId: string; path: string; name: string }
      | { purpose: 'backup-download'; serverId: string; backupId: string; name: string },
  ): Promise<string> {
    if (grant.purpose === 'file-download') this.refuseIfAway(agentEndpoints.signedFileDownload, grant);
    const { base, signer } = this.linkBase(nodeId);
    const { purpose, serverId, name } = grant;
    const expires = Math.floor(Date.now() / 1000) + DOWNLOAD_LINK_SECONDS;
    const subject = grant.purpose === 'file-download' ? grant.path : grant.backupId;
    const signature = await signer.sign({ purpose, serverId, subject, name, expires });
    const path =
      grant.purpose === 'file-download'
        ? fillPath(agentEndpoints.signedFileDownload.path, { serverId }, { path: grant.path, name, expires, signature })
        : fillPath(agentEndpoints.signedBackupDownload.path, { serverId, backupId: grant.backupId }, { name, expires, signature });
    return `${base}${path}`;
  }

  /**
   * A short-lived link on the node that takes one file of exactly `size` bytes for `path` of one server,
   * replacing a file there only if `overwrite`: the caller has checked who may and that it fits; the node
   * checks the signature, expiry, purpose, server, path, size and overwrite choice, and names `actorId`
   * and `ip` when it reports the finished upload.
   */
  async uploadLink(
    nodeId: string,
    grant: { serverId: string; path: string; size: number; overwrite: boolean; actorId: string; ip: string },
  ): Promise<{ url: string; expires: number }> {
    this.refuseIfAway(agentEndpoints.signedFileUpload, grant);
    const { base, signer } = this.linkBase(nodeId);
    const expires = Math.floor(Date.now() / 1000) + DOWNLOAD_LINK_SECONDS;
    const signature = await signer.sign({ purpose: 'file-upload', ...grant, expires });
    const query = {
      path: grant.path,
      size: grant.size,
      overwrite: String(grant.overwrite),
      actor: grant.actorId,
      ip: grant.ip,
      expires,
      signature,
    };
    return { url: `${base}${fillPath(agentEndpoints.signedFileUpload.path, { serverId: grant.serverId }, query)}`, expires };
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
  async collect(nodeId: string, body: Readable): Promise<Buffer> {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of body) chunks.push(chunk as Buffer);
    } catch (err) {
      this.log.error({ err, nodeId }, 'agent connection lost during its answer');
      throw new ApiError('NODE_UNAVAILABLE');
    }
    return Buffer.concat(chunks);
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

  private resultOf<E extends JsonAgentEndpoint>(nodeId: string, path: string, endpoint: E, answer: AgentAnswer): z.infer<E['result']> {
    if (answer.status !== 'SUCCESS') this.refusal(nodeId, path, answer);
    const result = endpoint.result.safeParse(answer.result);
    // The data came out of this entry's own result schema; TypeScript cannot follow it through the generic.
    if (result.success) return result.data as z.infer<E['result']>;
    this.log.error({ nodeId, path, issues: result.error.issues.slice(0, 5) }, 'malformed agent answer: unexpected result');
    throw new ApiError('INTERNAL_ERROR');
  }

  private refusal(nodeId: string, path: string, answer: AgentAnswer): never {
    const { status, message } = answer;
    if (status === 'INVALID_STATE' || status === 'INVALID_INPUT' || status === 'NOT_FOUND' || status === 'DISK_LIMIT') {
      throw new ApiError(status, undefined, message);
    }
    this.log.error({ nodeId, path, answer }, 'agent refused');
    throw new ApiError('INTERNAL_ERROR');
  }

  /**
   * One HTTP exchange with a node's agent, settled as soon as the agent's answer begins, even while `body`
   * is still being sent (an agent refuses an upload midway and closes the connection; its answer is what
   * counts). Who failed decides the code: the node is not connected, or the connection to it fails or
   * times out → NODE_UNAVAILABLE; `body` fails or ends early (the user's upload was cut off) → INVALID_INPUT,
   * and the agent's request is aborted so it keeps nothing; the agent closes the connection while the body
   * is being sent and its answer is lost with it → AgentCutOff.
   */
  private async exchange(
    nodeId: string,
    method: string,
    path: string,
    options: { body?: Buffer | Readable; contentType?: string; timeoutMs?: number } = {},
  ): Promise<IncomingMessage> {
    const node = this.nodes.get(nodeId);
    // A mirror calls a node the holder has a socket to directly: calls are HTTP, events come to the holder.
    if (!node || !(await this.reachable(nodeId))) throw new ApiError('NODE_UNAVAILABLE');
    const { body, contentType, timeoutMs } = options;
    const url = new URL(path, node.config.url);
    const headers: OutgoingHttpHeaders = { authorization: `Bearer ${node.config.token}` };
    // The agent logs the call under the id of the request that made it (none from timers).
    if (this.requestId) headers[REQUEST_ID_HEADER] = this.requestId;
    if (body !== undefined) headers['content-type'] = contentType ?? 'application/octet-stream';
    if (Buffer.isBuffer(body)) headers['content-length'] = body.length;
    return new Promise<IncomingMessage>((resolve, reject) => {
      let settled = false;
      let connected = false;
      let sentBytes = 0;
      let paced: Transform | null = null;
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
        method,
        headers,
        ...(timeoutMs ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
      });
      request.on('error', (err) => {
        // After the answer began, a reset (the agent closing after an early refusal) is no news.
        if (settled) return;
        settled = true;
        const code = (err as NodeJS.ErrnoException).code;
        if (connected && sentBytes > 0 && (code === 'EPIPE' || code === 'ECONNRESET')) {
          this.log.warn({ err, nodeId, path, sentBytes }, 'agent closed the connection while the body was being sent');
          return reject(new AgentCutOff(sentBytes));
        }
        this.log.error({ err, nodeId, path }, 'agent unreachable');
        reject(new ApiError('NODE_UNAVAILABLE'));
      });
      request.on('response', (response) => {
        if (settled) return void response.destroy();
        settled = true;
        if (body instanceof Readable && paced && !request.writableEnded) {
          // An early answer: the agent stopped reading, so stop sending; this connection is done.
          body.unpipe(paced);
          paced.unpipe(request);
          response.once('end', () => request.destroy());
        }
        resolve(response);
      });
      request.once('socket', (socket) => {
        if (socket.connecting) socket.once('connect', () => (connected = true));
        else connected = true;
      });
      if (!(body instanceof Readable)) {
        sentBytes = body?.length ?? 0;
        return void request.end(body);
      }
      finished(body, (err) => {
        if (!err || settled) return;
        settled = true;
        request.destroy();
        reject(new ApiError('INVALID_INPUT', undefined, UPLOAD_INCOMPLETE));
      });
      // Each piece goes out after the event loop has polled the connection, so an agent that has answered
      // (and is about to close) is heard before the next write runs into the closed connection.
      paced = new Transform({
        transform: (chunk: Buffer, _encoding, done) =>
          void setImmediate(() => {
            sentBytes += chunk.length;
            done(null, chunk);
          }),
      });
      body.pipe(paced).pipe(request);
    });
  }

  /**
   * The agent's JSON answer. The connection dropping while it is read → NODE_UNAVAILABLE (502); a complete
   * answer that is not the agent protocol (a bug or a version mismatch, never the user's doing) is logged
   * with what came and answered INTERNAL_ERROR (500).
   */
  private async answerOf(nodeId: string, path: string, response: IncomingMessage): Promise<AgentAnswer> {
    const text = (await this.collect(nodeId, response)).toString('utf8');
    let parsed: unknown = undefined;
    try {
      parsed = JSON.parse(text);
    } catch {
      // reported below with the text itself
    }
    const answer = agentAnswer.safeParse(parsed);
    if (answer.success) return answer.data;
    this.log.error({ nodeId, path, httpStatus: response.statusCode, body: text.slice(0, 500) }, 'malformed agent answer');
    throw new ApiError('INTERNAL_ERROR');
  }
}
