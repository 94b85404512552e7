import { timingSafeEqual } from 'node:crypto';
import {
  agentEndpoints,
  GAME_PLANE_REFUSAL,
  joinMayStart,
  joinStartRefusal,
  PROXY_NAMESPACE,
  proxyWakeRequest,
  WAKE_COOLDOWN_MS,
  wakeCooldownMessage,
  type ApiToProxyEvents,
  type JoinStart,
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
import type { ServerRow } from './db/rows.ts';
import type { KeptAppearance } from './servers/kept-appearances.ts';

type RouteRow = Pick<ServerRow, 'id' | 'name' | 'nodeId' | 'port' | 'version' | 'maxPlayers' | 'proxyProtocol' | 'joinStart'>;

/** States in which a wake has nothing to do: the server is on its way up or up. */
const UNDER_WAY: readonly ServerState[] = ['queued', 'installing', 'starting', 'waking', 'online'];
/** A stopped server (or one on its way to sleep) that the owner's setting keeps stopped when a player joins. */
const keptStopped = (mode: JoinStart, state: ServerState) =>
  (state === 'offline' || state === 'sleeping' || state === 'uploading') && !joinMayStart(mode, state);

/** How long a wake waits for the server's bans and whitelist before deciding without them. */
const LISTS_WAIT_MS = 3000;

/** Whether a ban of `banned-players.json` holds at `now`: `forever`, or an end (`2026-12-01 10:00:00 +0000`) still ahead; one that cannot be read holds. */
export function banInForce(expires: string, now: number): boolean {
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) ([+-]\d{2})(\d{2})$/.exec(expires.trim());
  if (!match) return true;
  const end = Date.parse(`${match[1]}T${match[2]}${match[3]}:${match[4]}`);
  return Number.isNaN(end) || end > now;
}
const WAKE_FAILED = 'The server could not be started. Try again in a moment.';

function sameToken(a: string, b: unknown): boolean {
  if (typeof b !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The join proxies' side of the API (docs/design.md, The join proxy): the `/proxy` Socket.IO namespace,
 * authenticated with the proxy token. Each proxy gets the whole routing table when it connects and every
 * change after it (created, deleted, moved, a new state), from memory: the names come from the database
 * once at start and with each create and delete, the states from the hub. A login's wake request starts the
 * server through the same PowerDispatcher as its owner's Start, so every rule of a start applies to it as
 * well.
 */
export class ProxyGateway {
  private rows = new Map<string, RouteRow>();
  /** Each server's MOTD and icon as the directory keeps them (read from its folder when it stopped). */
  private looks = new Map<string, KeptAppearance>();
  private ns: Namespace<ProxyToApiEvents, ApiToProxyEvents> | null = null;
  /** Servers a join started, until they are online (their cooldown begins) or stopped again. */
  private wokenByJoin = new Set<string>();
  /**
   * When each server a join started came online with nobody playing since (WAKE_COOLDOWN_MS). Per server,
   * not per player name: names cost nothing, so a bot joining as bot1, bot2, … must not spend the server's
   * play time. A start that failed holds back no one, and the owner's Start is never held back.
   */
  private unplayedWakes = new Map<string, number>();

  constructor(
    private db: Db,
    private hub: ServerHub,
    private nodes: NodeRegistry,
    private power: PowerDispatcher,
    private config: Config,
    private log: FastifyBaseLogger,
    /** Every server's kept MOTD and icon, read once at start (the directory keeps them). */
    private appearances: () => Promise<Map<string, KeptAppearance>>,
  ) {
    hub.intake.onInGame((serverId, count) => {
      if (count <= 0) return;
      this.unplayedWakes.delete(serverId);
      this.wokenByJoin.delete(serverId);
    });
    hub.onStateChange((serverId, state) => {
      if (!this.wokenByJoin.has(serverId)) return;
      if (state === 'online') {
        // Cooldowns that ran out are dropped here, so the map holds only live ones.
        for (const [id, at] of this.unplayedWakes) if (Date.now() - at >= WAKE_COOLDOWN_MS) this.unplayedWakes.delete(id);
        this.unplayedWakes.set(serverId, Date.now());
        this.wokenByJoin.delete(serverId);
      } else if (state === 'offline' || state === 'sleeping') this.wokenByJoin.delete(serverId);
    });
  }

  async load(): Promise<void> {
    const rows = await this.db
      .select({
        id: servers.id,
        name: servers.name,
        nodeId: servers.nodeId,
        port: servers.port,
        version: servers.version,
        maxPlayers: servers.maxPlayers,
        proxyProtocol: servers.proxyProtocol,
        joinStart: servers.joinStart,
      })
      .from(servers);
    // Loaded again when this process takes the game plane over: servers deleted meanwhile go.
    this.rows.clear();
    for (const row of rows) this.rows.set(row.id, row);
    this.looks = await this.appearances();
  }

  /** Whether this process takes join proxies now (it holds the game plane: game-plane.ts). */
  accepting: () => boolean = () => true;
  /** Set by the app: tells the mirroring API processes whether a join proxy is connected. */
  share: ((connected: boolean) => void) | null = null;

  attach(io: Server): void {
    const ns: Namespace<ProxyToApiEvents, ApiToProxyEvents> = io.of(PROXY_NAMESPACE);
    ns.use((socket, next) => {
      const { token } = (socket.handshake.auth ?? {}) as Record<string, unknown>;
      if (!sameToken(this.config.proxyToken, token)) return next(new Error('NOT_AUTHENTICATED'));
      // Refused proxies try the next address of their API_URL list.
      if (!this.accepting()) return next(new Error(GAME_PLANE_REFUSAL));
      next();
    });
    ns.on('connection', (socket: Socket<ProxyToApiEvents, ApiToProxyEvents>) => {
      this.log.info({ proxies: ns.sockets.size }, 'join proxy connected');
      this.share?.(true);
      socket.emit('proxy:routes', { playDomain: this.config.PLAY_DOMAIN, routes: this.table() });
      socket.on('proxy:wake', (payload: unknown, ack: unknown) => {
        if (typeof ack !== 'function') return;
        const request = proxyWakeRequest.safeParse(payload);
        if (!request.success) return ack({ result: 'refused', message: WAKE_FAILED } satisfies ProxyWakeResult);
        void this.wake(request.data.serverId, request.data.player).then((result) => ack(result));
      });
      socket.on('disconnect', () => {
        this.log.warn({ proxies: ns.sockets.size }, 'join proxy disconnected');
        this.share?.(ns.sockets.size > 0);
      });
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
      proxyProtocol: row.proxyProtocol,
      joinStart: row.joinStart,
    });
    if (old && old.name !== row.name) this.ns?.emit('proxy:route', { name: old.name, route: null });
    this.changed(row.id);
  }

  remove(serverId: string): void {
    const row = this.rows.get(serverId);
    if (!row) return;
    this.rows.delete(serverId);
    this.looks.delete(serverId);
    this.ns?.emit('proxy:route', { name: row.name, route: null });
  }

  /** Pushes a server's current route (its state changed). */
  changed(serverId: string): void {
    const row = this.rows.get(serverId);
    if (row) this.ns?.emit('proxy:route', { name: row.name, route: this.routeOf(row) });
  }

  /** The MOTD and icon kept for a server changed (read from its folder, or saved on the Appearance page). */
  setAppearance(serverId: string, look: KeptAppearance): void {
    if (!this.rows.has(serverId)) return;
    this.looks.set(serverId, look);
    this.changed(serverId);
  }

  /**
   * Starts a server for a player who joined it, exactly as its owner's Start: the same dispatcher with the
   * same checks (state, node, capacity, and whatever rules a start gains). A server already on its way up
   * needs nothing.
   */
  async wake(serverId: string, player: string): Promise<ProxyWakeResult> {
    try {
      const [row] = await this.db.select().from(servers).where(eq(servers.id, serverId)).limit(1);
      if (!row) return { result: 'refused', message: 'No server with this name' };
      const state = this.hub.stateOf(row.id);
      if (UNDER_WAY.includes(state)) return { result: 'started' };
      // The owner's setting, checked here too: a proxy's route may be a moment older than the setting.
      if (keptStopped(row.joinStart, state)) return { result: 'refused', message: joinStartRefusal };
      const turnedAway = await this.turnedAway(row, player);
      if (turnedAway) return { result: 'refused', message: turnedAway };
      const woken = this.unplayedWakes.get(row.id);
      if (woken !== undefined) {
        if (Date.now() - woken < WAKE_COOLDOWN_MS)
          return { result: 'refused', message: wakeCooldownMessage(Math.ceil((woken + WAKE_COOLDOWN_MS - Date.now()) / 60_000)) };
        this.unplayedWakes.delete(row.id);
      }
      // Checked again when the start has its turn (it may wait behind an upload to storage or a restore),
      // with the setting and the state as they are then.
      await this.power.run(row, 'start', async () => {
        const [now] = await this.db.select({ joinStart: servers.joinStart }).from(servers).where(eq(servers.id, row.id)).limit(1);
        if (now && keptStopped(now.joinStart, this.hub.stateOf(row.id))) throw new ApiError('INVALID_STATE', undefined, joinStartRefusal);
      });
      // Marked before the start is awaited would be wrong (a start refused by the line holds back no one);
      // a state that reached online meanwhile is caught here.
      if (this.hub.stateOf(row.id) === 'online') this.unplayedWakes.set(row.id, Date.now());
      else this.wokenByJoin.add(row.id);
      this.log.info({ serverId }, 'a player woke a server');
      return { result: 'started' };
    } catch (err) {
      if (err instanceof ApiError) return { result: 'refused', message: err.message };
      this.log.error({ err, serverId }, 'waking a server failed');
      return { result: 'refused', message: WAKE_FAILED };
    }
  }

  /**
   * Why the game would refuse `player` at once (banned, or not on an enforced whitelist), read from the
   * server's own lists on its node, so a name it turns away does not start it and spend its owner's play
   * time. Unknown (the folder in storage, the node slow or away, the lists unreadable): null, and the game
   * decides as ever once it runs.
   */
  private async turnedAway(row: { id: string; nodeId: string }, player: string): Promise<string | null> {
    if (this.hub.inStorage(row.id) || !this.nodes.isConnected(row.nodeId)) return null;
    const lists = await this.nodes
      .call(row.nodeId, agentEndpoints.players, { params: { serverId: row.id } }, LISTS_WAIT_MS)
      .catch(() => null);
    if (!lists) return null;
    const named = (entry: { name: string }) => entry.name.toLowerCase() === player.toLowerCase();
    if (lists.bans.some((ban) => named(ban) && banInForce(ban.expires, Date.now()))) return 'You are banned from this server.';
    if (lists.whitelistEnabled && !lists.whitelist.some(named) && !lists.operators.some(named))
      return 'You are not white-listed on this server!';
    return null;
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
      icon: this.looks.get(row.id)?.icon ?? null,
      motd: this.looks.get(row.id)?.motd ?? '',
      proxyProtocol: row.proxyProtocol,
      joinStart: row.joinStart,
    };
  }
}
