import { timingSafeEqual } from 'node:crypto';
import {
  PROXY_NAMESPACE,
  proxyWakeRequest,
  type ApiToProxyEvents,
  type ProxyRoute,
  type ProxyToApiEvents,
  type ProxyWakeResult,
  type ServerState,
} from '@spawnpoint/contracts';
import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Namespace, Server, Socket } from 'socket.io';
import type { Config } from './config.ts';
import type { Db } from './db/index.ts';
import { servers } from './db/schema.ts';
import { ApiError } from './http/errors.ts';
import type { NodeRegistry } from './nodes.ts';
import type { ServerHub } from './server-hub.ts';
import type { PowerDispatcher } from './servers/power.ts';
import type { ServerRow } from './servers/server-creator.ts';
import { readServerIcon } from './servers/server-icon.ts';

type RouteRow = Pick<ServerRow, 'id' | 'name' | 'nodeId' | 'port' | 'version' | 'maxPlayers'>;

/** States in which a wake has nothing to do: the server is on its way up or up. */
const UNDER_WAY: readonly ServerState[] = ['queued', 'installing', 'starting', 'waking', 'online'];
const WAKE_FAILED = 'The server could not be started. Try again in a moment.';
/** States in which the proxy answers status pings itself, with the icon it was sent. */
const ANSWERED_BY_PROXY: readonly ServerState[] = ['offline', 'sleeping'];
/** Icons read from nodes at once: a node that reports all its servers at connect gets a few reads at a time. */
const ICON_READS_AT_ONCE = 4;

function sameToken(a: string, b: unknown): boolean {
  if (typeof b !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The join proxies' side of the API (issue 12 #1): the `/proxy` Socket.IO namespace, authenticated with
 * the proxy token. Each proxy gets the whole routing table when it connects and every change after it
 * (created, deleted, moved, a new state), from memory: the names come from the database once at start and
 * with each create and delete, the states from the hub. A login's wake request starts the server through
 * the same PowerDispatcher as its owner's Start, so every rule of a start applies to it as well.
 */
export class ProxyGateway {
  private rows = new Map<string, RouteRow>();
  /** Each server's icon as last read from its node; absent until read (the route then has none). */
  private icons = new Map<string, string | null>();
  private iconQueue = new Set<string>();
  private iconReads = 0;
  private ns: Namespace<ProxyToApiEvents, ApiToProxyEvents> | null = null;

  constructor(
    private db: Db,
    private hub: ServerHub,
    private nodes: NodeRegistry,
    private power: PowerDispatcher,
    private config: Config,
    private log: FastifyBaseLogger,
  ) {}

  async load(): Promise<void> {
    const rows = await this.db
      .select({
        id: servers.id,
        name: servers.name,
        nodeId: servers.nodeId,
        port: servers.port,
        version: servers.version,
        maxPlayers: servers.maxPlayers,
      })
      .from(servers);
    for (const row of rows) this.rows.set(row.id, row);
  }

  attach(io: Server): void {
    const ns: Namespace<ProxyToApiEvents, ApiToProxyEvents> = io.of(PROXY_NAMESPACE);
    ns.use((socket, next) => {
      const { token } = (socket.handshake.auth ?? {}) as Record<string, unknown>;
      if (!sameToken(this.config.proxyToken, token)) return next(new Error('NOT_AUTHENTICATED'));
      next();
    });
    ns.on('connection', (socket: Socket<ProxyToApiEvents, ApiToProxyEvents>) => {
      this.log.info({ proxies: ns.sockets.size }, 'join proxy connected');
      socket.emit('proxy:routes', { playDomain: this.config.PLAY_DOMAIN, routes: this.table() });
      socket.on('proxy:wake', (payload: unknown, ack: unknown) => {
        if (typeof ack !== 'function') return;
        const request = proxyWakeRequest.safeParse(payload);
        if (!request.success) return ack({ result: 'refused', message: WAKE_FAILED } satisfies ProxyWakeResult);
        void this.wake(request.data.serverId).then((result) => ack(result));
      });
      socket.on('disconnect', () => this.log.warn({ proxies: ns.sockets.size }, 'join proxy disconnected'));
    });
    this.ns = ns;
  }

  /** Whether a join proxy is connected now (the dashboard then offers joining by name). */
  connected(): boolean {
    return (this.ns?.sockets.size ?? 0) > 0;
  }

  /** A server was created, or moved to another port. */
  upsert(row: RouteRow): void {
    const old = this.rows.get(row.id);
    this.rows.set(row.id, {
      id: row.id,
      name: row.name,
      nodeId: row.nodeId,
      port: row.port,
      version: row.version,
      maxPlayers: row.maxPlayers,
    });
    if (old && old.name !== row.name) this.ns?.emit('proxy:route', { name: old.name, route: null });
    this.changed(row.id);
  }

  remove(serverId: string): void {
    const row = this.rows.get(serverId);
    if (!row) return;
    this.rows.delete(serverId);
    this.icons.delete(serverId);
    this.iconQueue.delete(serverId);
    this.ns?.emit('proxy:route', { name: row.name, route: null });
  }

  /** Pushes a server's current route (its state changed). */
  changed(serverId: string): void {
    const row = this.rows.get(serverId);
    if (!row) return;
    // The server just stopped (or its node first reported it): the tenant may have replaced the icon
    // while it ran, and from now on the proxy shows it, so it is read again.
    if (ANSWERED_BY_PROXY.includes(this.hub.stateOf(serverId))) this.queueIconRead(serverId);
    this.ns?.emit('proxy:route', { name: row.name, route: this.routeOf(row) });
  }

  /** The icon as the API just read or wrote it (the Appearance page); pushed when it changed. */
  setIcon(serverId: string, icon: string | null): void {
    if (!this.rows.has(serverId) || this.icons.get(serverId) === icon) return;
    this.icons.set(serverId, icon);
    const row = this.rows.get(serverId);
    if (row) this.ns?.emit('proxy:route', { name: row.name, route: this.routeOf(row) });
  }

  private queueIconRead(serverId: string): void {
    this.iconQueue.add(serverId);
    this.readIcons();
  }

  private readIcons(): void {
    while (this.iconReads < ICON_READS_AT_ONCE && this.iconQueue.size) {
      const serverId = this.iconQueue.values().next().value as string;
      this.iconQueue.delete(serverId);
      const row = this.rows.get(serverId);
      if (!row) continue;
      this.iconReads++;
      readServerIcon(this.nodes, row)
        .then((icon) => this.setIcon(serverId, icon))
        .catch((err: unknown) => this.log.debug({ err, serverId }, 'could not read the server icon for the join proxy'))
        .finally(() => {
          this.iconReads--;
          this.readIcons();
        });
    }
  }

  /**
   * Starts a server for a player who joined it, exactly as its owner's Start: the same dispatcher with the
   * same checks (state, node, capacity, and whatever rules a start gains). A server already on its way up
   * needs nothing.
   */
  async wake(serverId: string): Promise<ProxyWakeResult> {
    try {
      const [row] = await this.db.select().from(servers).where(eq(servers.id, serverId)).limit(1);
      if (!row) return { result: 'refused', message: 'No server with this name' };
      if (UNDER_WAY.includes(this.hub.stateOf(row.id))) return { result: 'started' };
      await this.power.run(row, 'start');
      this.log.info({ serverId }, 'a player woke a server');
      return { result: 'started' };
    } catch (err) {
      if (err instanceof ApiError) return { result: 'refused', message: err.message };
      this.log.error({ err, serverId }, 'waking a server failed');
      return { result: 'refused', message: WAKE_FAILED };
    }
  }

  private table(): ProxyRoute[] {
    return [...this.rows.values()].map((row) => this.routeOf(row)).filter((route): route is ProxyRoute => route !== null);
  }

  private routeOf(row: RouteRow): ProxyRoute | null {
    const node = this.nodes.config(row.nodeId);
    if (!node) return null;
    return {
      name: row.name,
      serverId: row.id,
      host: node.publicHost,
      port: row.port,
      state: this.hub.stateOf(row.id),
      maxPlayers: this.hub.maxPlayersOf(row.id) ?? row.maxPlayers,
      version: row.version,
      icon: this.icons.get(row.id) ?? null,
    };
  }
}
