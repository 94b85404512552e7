import {
  CONSOLE_HISTORY_LINES,
  CONSOLE_SUBSCRIBERS_PER_SERVER_MAX,
  type AgentBackupEvent,
  type AgentUploadEvent,
  type BackupRestoreEvent,
  type ErrorCode,
  type LiveEvent,
  type LiveServer,
  type ServerState,
  type ServerStats,
  type StatsSample,
} from '@spawnpoint/contracts';
import type { Socket } from 'socket.io';
import { ApiError } from './http/errors.ts';
import type { NodeEvents, NodeRegistry } from './nodes.ts';
import type { Realtime } from './realtime.ts';
import { memberRoom, userRoom } from './realtime.ts';
import { StatsRing } from './stats-history.ts';

export interface ServerPlacement {
  serverId: string;
  ownerId: string;
  nodeId: string;
}

interface Subscriber {
  socket: Socket;
  queue: string[];
  dropped: number;
  waiting: boolean;
  /** Holds its place under the per-server cap while the console history is fetched; nothing is sent yet. */
  pending: boolean;
}

// Per socket: beyond this many undelivered lines the oldest are dropped (a slow reader loses lines,
// the API never grows).
const SUBSCRIBER_QUEUE_MAX = 5000;
/** States of a server on its way up or up: why it last stopped no longer applies. */
const ON_ITS_WAY: readonly ServerState[] = ['queued', 'installing', 'starting', 'waking', 'online', 'downloading'];

/**
 * Live server state held in memory (docs/design.md, Database): state, latest stats, the last console lines, and
 * who is subscribed to each console. Fed by the agents' events; read by the polled endpoints.
 */
export class ServerHub implements NodeEvents {
  private placements = new Map<string, ServerPlacement>();
  private states = new Map<string, ServerState>();
  private latestStats = new Map<string, ServerStats>();
  /** The last 10 minutes of stats of each running server, for the charts of a page that opens later. */
  private statsHistory = new Map<string, StatsRing>();
  private history = new Map<string, string[]>();
  private subscribers = new Map<string, Map<string, Subscriber>>();

  constructor(
    private io: Realtime,
    private nodes: NodeRegistry,
  ) {}

  place(placement: ServerPlacement): void {
    this.placements.set(placement.serverId, placement);
    this.shareServer(placement.serverId);
  }

  /**
   * Set by the app: tells the API processes that mirror the game plane what changed here (game-plane.ts);
   * a no-op unless this process holds it.
   */
  share: ((event: LiveEvent) => void) | null = null;

  /** What a mirror keeps of one server. */
  liveOf(serverId: string): LiveServer | null {
    const placement = this.placements.get(serverId);
    if (!placement) return null;
    return {
      ...placement,
      state: this.stateOf(serverId),
      stoppedBecause: this.stoppedBecauseOf(serverId),
      stored: this.stored.has(serverId),
      maxPlayers: this.slots.get(serverId) ?? null,
    };
  }

  /** Every placed server as a mirror keeps it (the holder's snapshot). */
  live(): LiveServer[] {
    return [...this.placements.keys()].map((id) => this.liveOf(id) as LiveServer);
  }

  private shareServer(serverId: string): void {
    if (!this.share) return;
    const server = this.liveOf(serverId);
    if (server) this.share({ type: 'server', server });
  }

  /**
   * A mirroring process applies what the holder of the game plane told: the same figures, and console lines
   * for its own subscribers. Nothing here acts (no listener, no emit: the holder's emits reach every
   * process's sockets through the Socket.IO adapter already).
   */
  applyLive(event: LiveEvent): void {
    if (event.type === 'server') this.mirrorServer(event.server);
    else if (event.type === 'snapshot') {
      // The whole state: a server it does not name was deleted while a change was lost.
      const named = new Set(event.servers.map((server) => server.serverId));
      for (const id of [...this.placements.keys()]) if (!named.has(id)) this.forget(id);
      for (const server of event.servers) this.mirrorServer(server);
    } else if (event.type === 'forgotten') this.forget(event.serverId);
    else if (event.type === 'stats') {
      if (!this.placements.has(event.serverId)) return;
      this.latestStats.set(event.serverId, event.stats);
      let ring = this.statsHistory.get(event.serverId);
      if (!ring) this.statsHistory.set(event.serverId, (ring = new StatsRing()));
      ring.push(event.stats, event.at);
    } else if (event.type === 'lines') {
      if (this.placements.has(event.serverId)) this.deliver(event.serverId, event.lines);
    }
  }

  /**
   * This process takes over the game plane: what it mirrored is forgotten, as at a fresh start, but for each
   * server's last known state, which stands until its node's hello says otherwise (a running game is never
   * shown offline for the moment between the takeover and that hello; a node that does not come back is
   * `gone` after a while: see app.ts). Sleeping ones are held again from the database by the caller.
   */
  takeOver(): void {
    for (const map of [this.latestStats, this.statsHistory, this.held, this.playing]) map.clear();
    // Carried over, not heard here: the node's next word on each is told to every listener (sleeping, the
    // start queue, play time) even when it is the same state, as it would be at a fresh start.
    this.carried = new Set(this.states.keys());
    this.toSleep.clear();
    this.wakingUp.clear();
  }

  private mirrorServer(server: LiveServer): void {
    const { serverId, ownerId, nodeId, state, stored, maxPlayers, stoppedBecause } = server;
    this.placements.set(serverId, { serverId, ownerId, nodeId });
    this.states.set(serverId, state);
    if (stoppedBecause) this.stoppedBecause.set(serverId, stoppedBecause);
    else this.stoppedBecause.delete(serverId);
    if (state === 'offline' || state === 'sleeping') {
      this.latestStats.delete(serverId);
      this.statsHistory.delete(serverId);
    }
    if (stored) this.stored.add(serverId);
    else this.stored.delete(serverId);
    if (maxPlayers !== null) this.slots.set(serverId, maxPlayers);
  }

  forget(serverId: string): void {
    if (this.placements.has(serverId)) this.share?.({ type: 'forgotten', serverId });
    this.placements.delete(serverId);
    this.stored.delete(serverId);
    this.states.delete(serverId);
    this.stoppedBecause.delete(serverId);
    this.carried.delete(serverId);
    this.held.delete(serverId);
    this.toSleep.delete(serverId);
    this.wakingUp.delete(serverId);
    this.playing.delete(serverId);
    this.latestStats.delete(serverId);
    this.statsHistory.delete(serverId);
    this.history.delete(serverId);
    for (const sub of this.subscribers.get(serverId)?.values() ?? []) void sub.socket.leave(consoleRoom(serverId));
    this.subscribers.delete(serverId);
  }

  stateOf(serverId: string): ServerState {
    return this.states.get(serverId) ?? 'offline';
  }

  statsOf(serverId: string): ServerStats | null {
    return this.latestStats.get(serverId) ?? null;
  }

  /** The samples of the last STATS_HISTORY_MS, oldest first (none for a server that is not running). */
  statsHistoryOf(serverId: string, now = Date.now()): StatsSample[] {
    return this.statsHistory.get(serverId)?.read(now) ?? [];
  }

  /**
   * Servers on a node that hold a slot: anything but offline and sleeping, and not the ones waiting in the
   * start queue (`waiting`).
   */
  activeOn(nodeId: string, waiting: (serverId: string) => boolean = () => false): number {
    let n = 0;
    for (const p of this.placements.values()) if (p.nodeId === nodeId && this.holdsSlot(p.serverId) && !waiting(p.serverId)) n++;
    return n;
  }

  /** An account's active servers (anything but offline and sleeping; queued ones count), but `except`. */
  activeOf(ownerId: string, except?: string): string[] {
    return [...this.placements.values()]
      .filter((p) => p.ownerId === ownerId && p.serverId !== except && this.holdsSlot(p.serverId))
      .map((p) => p.serverId);
  }

  /** The servers of an account. */
  serversOf(ownerId: string): string[] {
    return [...this.placements.values()].filter((p) => p.ownerId === ownerId).map((p) => p.serverId);
  }

  /** Every server placed on a node. */
  placedServers(): string[] {
    return [...this.placements.keys()];
  }

  /** The nodes servers are placed on. */
  nodesOfPlaced(): string[] {
    return [...new Set([...this.placements.values()].map((p) => p.nodeId))];
  }

  /** Tells the players of a running server something (`say`). */
  async say(serverId: string, text: string): Promise<void> {
    const placement = this.placements.get(serverId);
    if (placement && this.stateOf(serverId) === 'online') await this.nodes.command(placement.nodeId, serverId, `say ${text}`);
  }

  ownerOf(serverId: string): string | undefined {
    return this.placements.get(serverId)?.ownerId;
  }

  private holdsSlot(serverId: string): boolean {
    const state = this.stateOf(serverId);
    return state !== 'offline' && state !== 'sleeping';
  }

  // States the API decides, which a node's "offline" does not end: `sleeping`, and `queued` while the
  // server waits in the start queue (the node knows neither: to it the server is simply not running).
  private held = new Map<string, ServerState>();
  // Servers being stopped because nobody plays: their "offline" is `sleeping`.
  private toSleep = new Set<string>();
  // Servers started from `sleeping`: their node's "starting" is `waking`.
  private wakingUp = new Set<string>();

  /**
   * Sets a state the API keeps until a start or a delete: `sleeping`, `queued` in the start queue, or the
   * folder on its way to or from shared storage (the node's own "offline" meanwhile does not end it).
   */
  hold(serverId: string, state: 'sleeping' | 'queued' | 'uploading' | 'downloading'): void {
    this.setState(serverId, state);
    if (this.placements.has(serverId)) this.held.set(serverId, state);
  }

  // Servers whose folder is in shared storage, on no node (they sleep).
  private stored = new Set<string>();

  /** The server's folder went to shared storage (true) or came back onto a node (false). */
  markStored(serverId: string, stored: boolean): void {
    if (stored) this.stored.add(serverId);
    else this.stored.delete(serverId);
    this.shareServer(serverId);
  }

  /** Whether the server's folder is in shared storage now (it sleeps there). */
  inStorage(serverId: string): boolean {
    return this.stored.has(serverId);
  }

  /**
   * Why the server's files cannot be reached on a node now (its folder is in shared storage or on its way
   * there or back), or null when they can: what file, backup and settings requests are told.
   */
  folderAway(serverId: string): string | null {
    const state = this.stateOf(serverId);
    if (state === 'uploading') return 'The server is going to sleep and its files are being moved to storage. Start it to work on them.';
    if (state === 'downloading') return "The server's files are coming back from storage. Try again in a moment.";
    if (this.stored.has(serverId)) return 'The server sleeps with its files in storage. Start it (or join it) to work on them.';
    return null;
  }

  /** Ends a held state (the server leaves the queue to start now). */
  release(serverId: string): void {
    this.held.delete(serverId);
  }

  /** The next "offline" from the node means the server went to sleep (an idle stop was sent). */
  sleepWhenStopped(serverId: string, sleep: boolean): void {
    if (sleep) this.toSleep.add(serverId);
    else this.toSleep.delete(serverId);
  }

  /** The start just sent wakes a sleeping server: it shows `waking` until it is online (or fails). */
  markWaking(serverId: string): void {
    this.wakingUp.add(serverId);
    this.setState(serverId, 'waking');
  }

  /** A state reported by a node, read through what the API knows (sleeping, waking, the queue). */
  private report(serverId: string, state: ServerState): void {
    if (state === 'offline') {
      this.wakingUp.delete(serverId);
      if (this.toSleep.delete(serverId)) return this.hold(serverId, 'sleeping');
      const held = this.held.get(serverId);
      if (held && this.states.get(serverId) === held) return;
    } else if (state === 'starting' && this.wakingUp.has(serverId)) {
      return this.setState(serverId, 'waking');
    } else if (state !== 'starting') {
      this.wakingUp.delete(serverId);
    }
    this.setState(serverId, state);
  }

  /** Servers whose state this process carried over at a takeover and has not heard from a node since. */
  private carried = new Set<string>();

  setState(serverId: string, state: ServerState): void {
    const placement = this.placements.get(serverId);
    if (!placement) return;
    const carried = this.carried.delete(serverId);
    if (ON_ITS_WAY.includes(state)) this.stoppedBecause.delete(serverId);
    if (this.states.get(serverId) === state && !carried) return;
    if (this.held.get(serverId) !== state) this.held.delete(serverId);
    this.states.set(serverId, state);
    if (state === 'offline' || state === 'sleeping') {
      // A stopped server has no live figures; its charts start again with its next run.
      this.latestStats.delete(serverId);
      this.statsHistory.delete(serverId);
    }
    this.io.to(this.audience(placement)).emit('server:state', { serverId, state, stoppedBecause: this.stoppedBecauseOf(serverId) });
    this.shareServer(serverId);
    for (const waiter of [...this.stateWaiters]) waiter(serverId, state);
    for (const listener of this.stateListeners) listener(serverId, state);
  }

  private stateWaiters = new Set<(serverId: string, state: ServerState) => void>();
  private stateListeners = new Set<(serverId: string, state: ServerState) => void>();

  /** Told of every state change of a placed server (the join proxies' routing table follows them). */
  onStateChange(listener: (serverId: string, state: ServerState) => void): void {
    this.stateListeners.add(listener);
  }

  offStateChange(listener: (serverId: string, state: ServerState) => void): void {
    this.stateListeners.delete(listener);
  }

  /** Resolves once the server's state passes `ok` (at once if it does now); false after `timeoutMs`. */
  waitForState(serverId: string, ok: (state: ServerState) => boolean, timeoutMs: number): Promise<boolean> {
    if (ok(this.stateOf(serverId))) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = (id: string, state: ServerState) => {
        if (id !== serverId || !ok(state)) return;
        done(true);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      const done = (result: boolean) => {
        clearTimeout(timer);
        this.stateWaiters.delete(waiter);
        resolve(result);
      };
      this.stateWaiters.add(waiter);
    });
  }

  // --- events from agents; each is dropped unless the server lives on the sending node ---

  private onNode(nodeId: string, serverId: string): boolean {
    if (this.placements.get(serverId)?.nodeId === nodeId) return true;
    this.refused(nodeId, serverId);
    return false;
  }

  /**
   * Told (at most once a minute per node) that a node sent an event about a server the control plane has
   * not placed on it — another node's, a deleted one, or made up: dropped, never trusted. Set by the app to log it.
   */
  onRefused: ((nodeId: string, serverId: string, dropped: number) => void) | null = null;
  private refusals = new Map<string, { at: number; dropped: number }>();

  private refused(nodeId: string, serverId: string): void {
    const now = Date.now();
    const seen = this.refusals.get(nodeId) ?? { at: 0, dropped: 0 };
    seen.dropped++;
    if (now - seen.at >= 60_000) {
      this.onRefused?.(nodeId, serverId, seen.dropped);
      seen.at = now;
      seen.dropped = 0;
    }
    this.refusals.set(nodeId, seen);
  }

  state(nodeId: string, serverId: string, state: ServerState, reason?: string): void {
    if (!this.onNode(nodeId, serverId)) return;
    // Kept until it is on its way again; an offline the owner asked for says nothing.
    if (state === 'offline') {
      if (reason) this.stoppedBecause.set(serverId, reason);
      else this.stoppedBecause.delete(serverId);
    }
    this.report(serverId, state);
  }

  /** Why each server last went offline on its own (a failed start, a crash, a limit), until it starts again. */
  private stoppedBecause = new Map<string, string>();

  stoppedBecauseOf(serverId: string): string | null {
    return this.stoppedBecause.get(serverId) ?? null;
  }

  private playing = new Map<string, number>();
  private inGameListeners = new Set<(serverId: string, count: number) => void>();

  /** Players in the game by its own join/leave lines, as the node last counted them (sleeping reads this). */
  inGame(nodeId: string, serverId: string, count: number): void {
    if (!this.onNode(nodeId, serverId)) return;
    this.playing.set(serverId, count);
    for (const listener of this.inGameListeners) listener(serverId, count);
  }

  onInGame(listener: (serverId: string, count: number) => void): void {
    this.inGameListeners.add(listener);
  }

  /** Tells the owner's pages a server's place in the start queue (null: it left the queue). */
  pushQueuePosition(serverId: string, position: number | null): void {
    const placement = this.placements.get(serverId);
    if (placement) this.io.to(this.audience(placement)).emit('server:queue', { serverId, position });
  }

  /** Tells the pages open on a server that something it was asked to do failed after it was answered. */
  failed(serverId: string, status: ErrorCode, message: string): void {
    const placement = this.placements.get(serverId);
    if (placement) this.io.to(this.audience(placement)).emit('server:error', { serverId, status, message });
  }

  /** A line of the API's own in a server's console (play time used up, …), shown as the agent's notices are. */
  notice(serverId: string, text: string): void {
    const placement = this.placements.get(serverId);
    if (placement) this.lines(placement.nodeId, serverId, [`\x1b[33m[Spawnpoint]\x1b[0m ${text}`]);
  }

  /** `at`: when the sample arrived (tests pass older times to fill the history). */
  stats(nodeId: string, serverId: string, stats: ServerStats, at = Date.now()): void {
    if (!this.onNode(nodeId, serverId)) return;
    this.latestStats.set(serverId, stats);
    let ring = this.statsHistory.get(serverId);
    if (!ring) this.statsHistory.set(serverId, (ring = new StatsRing()));
    ring.push(stats, at);
    this.io.to(consoleRoom(serverId)).volatile.emit('server:stats', { serverId, at, ...stats });
    this.share?.({ type: 'stats', serverId, at, stats });
  }

  lines(nodeId: string, serverId: string, lines: string[]): void {
    if (!this.onNode(nodeId, serverId)) return;
    this.share?.({ type: 'lines', serverId, lines });
    this.deliver(serverId, lines);
  }

  /** Keeps lines in the history and queues them for this process's subscribers. */
  private deliver(serverId: string, lines: string[]): void {
    this.remember(serverId, lines);
    for (const sub of this.subscribers.get(serverId)?.values() ?? []) {
      sub.queue.push(...lines);
      if (sub.queue.length > SUBSCRIBER_QUEUE_MAX) {
        sub.dropped += sub.queue.length - SUBSCRIBER_QUEUE_MAX;
        sub.queue.splice(0, sub.queue.length - SUBSCRIBER_QUEUE_MAX);
      }
      this.flush(serverId, sub);
    }
  }

  /** The API process is shutting down: its nodes disconnecting says nothing about them. */
  closing = false;

  /** Set by the app: what else happens when a node says hello, or reports backup progress. */
  /** A node (re)connected: its id and the servers it says are running (not offline), whatever we know of them. */
  onHello: ((nodeId: string, running: string[]) => void) | null = null;
  onBackup: ((event: AgentBackupEvent, recorded?: () => void) => void) | null = null;
  /** A file a browser uploaded straight to a node, for the server's activity log; `recorded` once logged. */
  onUpload: ((event: AgentUploadEvent, recorded: () => void) => void) | null = null;
  /** The backups a node says it is making (after a reconnect or a restart of the agent). */
  onBackupJobs: ((nodeId: string, running: { serverId: string; backupId: string }[]) => void) | null = null;

  hello(nodeId: string, states: Map<string, ServerState>, backups: { serverId: string; backupId: string }[] = []): void {
    for (const p of this.placements.values()) if (p.nodeId === nodeId) this.report(p.serverId, states.get(p.serverId) ?? 'offline');
    this.onHello?.(
      nodeId,
      [...states].filter(([, state]) => state !== 'offline').map(([serverId]) => serverId),
    );
    this.onBackupJobs?.(
      nodeId,
      backups.filter((b) => this.placements.get(b.serverId)?.nodeId === nodeId),
    );
  }

  private slots = new Map<string, number>();

  /** The player slots a server runs with, as its node last said (server.properties, capped by the plan). */
  recordMaxPlayers(serverId: string, max: number): void {
    if (this.slots.get(serverId) === max) return;
    this.slots.set(serverId, max);
    this.shareServer(serverId);
  }

  maxPlayersOf(serverId: string): number | undefined {
    return this.slots.get(serverId);
  }

  nodeOf(serverId: string): string | undefined {
    return this.placements.get(serverId)?.nodeId;
  }

  /** Servers placed on a node. */
  serversOn(nodeId: string): string[] {
    return [...this.placements.values()].filter((p) => p.nodeId === nodeId).map((p) => p.serverId);
  }

  backup(nodeId: string, event: AgentBackupEvent, recorded?: () => void): void {
    // Not a server of that node: nothing to record, and nothing for the node to send again.
    if (!this.onNode(nodeId, event.serverId)) return recorded?.();
    const placement = this.placements.get(event.serverId) as ServerPlacement;
    this.onBackup?.(event, recorded);
    const percent = backupPercent(event);
    this.io.to([...this.audience(placement), consoleRoom(event.serverId)]).emit('server:backup', {
      serverId: event.serverId,
      backupId: event.backupId,
      phase: event.phase,
      percent,
      ...(event.error ? { message: event.error } : {}),
    });
  }

  /** Tells the server's pages where its restore is, and how it ended (a restore is a job: routes/backups.ts). */
  restore(event: BackupRestoreEvent): void {
    const placement = this.placements.get(event.serverId);
    if (placement) this.io.to([...this.audience(placement), consoleRoom(event.serverId)]).emit('server:restore', event);
  }

  upload(nodeId: string, event: AgentUploadEvent, recorded: () => void): void {
    // A node speaks only for its own servers (another's report is dropped, and the node may forget it).
    if (this.onNode(nodeId, event.serverId) && this.onUpload) this.onUpload(event, recorded);
    else recorded();
  }

  /** Servers placed on a node (for re-sending their specs after the node restarts). */
  placedOn(nodeId: string): string[] {
    return [...this.placements.values()].filter((p) => p.nodeId === nodeId).map((p) => p.serverId);
  }

  /**
   * A node stopped answering (its socket closed, or missed its pings): what ran there shows offline, with a
   * line that says why. A sleeping server stays asleep (in shared storage it wakes elsewhere). When the node
   * returns, its hello says what still runs and the servers show that.
   */
  /** Set by the app: a node stopped answering (after its servers were marked offline). */
  onGone: ((nodeId: string) => void) | null = null;

  gone(nodeId: string): void {
    if (this.closing) return;
    this.onGone?.(nodeId);
    for (const p of this.placements.values()) {
      if (p.nodeId !== nodeId) continue;
      const state = this.stateOf(p.serverId);
      if (state !== 'offline' && state !== 'sleeping')
        this.notice(
          p.serverId,
          'The machine this server runs on stopped answering, so it shows offline. It comes back as it was once the machine answers again.',
        );
      this.report(p.serverId, 'offline');
    }
  }

  // --- console subscriptions ---

  /**
   * Sends the last lines, then live lines. The caller has checked `console.read`. A socket counts once
   * however often it subscribes; beyond CONSOLE_SUBSCRIBERS_PER_SERVER_MAX sockets on one server this
   * throws RATE_LIMIT, since every line is copied to every subscriber.
   */
  async subscribe(socket: Socket, serverId: string): Promise<void> {
    const placement = this.placements.get(serverId);
    // A socket that left while its permission was checked would never be unsubscribed again.
    if (!placement || !socket.connected) return;
    const subs = this.subscribers.get(serverId) ?? new Map<string, Subscriber>();
    if (!subs.has(socket.id) && subs.size >= CONSOLE_SUBSCRIBERS_PER_SERVER_MAX)
      throw new ApiError(
        'RATE_LIMIT',
        undefined,
        `This server's console is open in too many places (at most ${CONSOLE_SUBSCRIBERS_PER_SERVER_MAX}). Close it in another tab or window and try again.`,
      );
    // The place is taken before the history is awaited, so subscriptions arriving together cannot all pass the check.
    const sub: Subscriber = { socket, queue: [], dropped: 0, waiting: false, pending: true };
    subs.set(socket.id, sub);
    this.subscribers.set(serverId, subs);
    if (!this.history.has(serverId) && this.nodes.isConnected(placement.nodeId)) {
      const lines = await this.nodes.consoleHistory(placement.nodeId, serverId).catch(() => []);
      if (!this.history.has(serverId)) this.history.set(serverId, lines.slice(-CONSOLE_HISTORY_LINES));
    }
    // Unsubscribed, disconnected, forgotten or subscribed again meanwhile: that call owns the place now.
    if (this.subscribers.get(serverId)?.get(socket.id) !== sub) return;
    // The history already holds any line that arrived while waiting.
    sub.queue = [...(this.history.get(serverId) ?? [])];
    sub.pending = false;
    await socket.join(consoleRoom(serverId));
    socket.emit('server:state', { serverId, state: this.stateOf(serverId) });
    // The charts' last 10 minutes, so a page opened (or reloaded) now does not start them empty; then the
    // latest figures (with the player list) as a live event.
    const now = Date.now();
    const samples = this.statsHistoryOf(serverId, now);
    socket.emit('server:stats-history', { serverId, samples });
    const stats = this.latestStats.get(serverId);
    const last = samples[samples.length - 1];
    if (stats) socket.emit('server:stats', { serverId, at: last?.at ?? now, ...stats });
    this.flush(serverId, subs.get(socket.id) as Subscriber);
  }

  unsubscribe(socket: Socket, serverId?: string): void {
    const ids = serverId ? [serverId] : [...this.subscribers.keys()];
    for (const id of ids) {
      const subs = this.subscribers.get(id);
      subs?.delete(socket.id);
      if (subs?.size === 0) this.subscribers.delete(id);
      void socket.leave(consoleRoom(id));
    }
  }

  /** Sockets subscribed to a server's console, including those still receiving the history. */
  subscriberCount(serverId: string): number {
    return this.subscribers.get(serverId)?.size ?? 0;
  }

  /** Ends every console subscription of a user on a server (member removed, access revoked). */
  unsubscribeUser(serverId: string, userId: string): void {
    for (const sub of this.subscribers.get(serverId)?.values() ?? []) {
      if (sub.socket.data.userId === userId) this.unsubscribe(sub.socket, serverId);
    }
  }

  private remember(serverId: string, lines: string[]): void {
    const history = this.history.get(serverId) ?? [];
    history.push(...lines);
    if (history.length > CONSOLE_HISTORY_LINES) history.splice(0, history.length - CONSOLE_HISTORY_LINES);
    this.history.set(serverId, history);
  }

  private flush(serverId: string, sub: Subscriber): void {
    if (sub.pending || sub.waiting || sub.queue.length === 0) return;
    const conn = sub.socket.conn;
    // Wait while the transport still holds earlier batches: this is where a slow reader falls behind.
    // (engine.io keeps unsent packets in `writeBuffer` and emits `drain` when it empties.)
    const pending = (conn as unknown as { writeBuffer: unknown[] }).writeBuffer.length;
    if (pending > 0) {
      sub.waiting = true;
      conn.once('drain', () => {
        sub.waiting = false;
        this.flush(serverId, sub);
      });
      return;
    }
    const lines = sub.queue.splice(0, sub.queue.length);
    if (sub.dropped) {
      lines.unshift(`\x1b[33m[Spawnpoint]\x1b[0m ${sub.dropped} console lines were skipped because your connection is slow.`);
      sub.dropped = 0;
    }
    sub.socket.emit('server:console', { serverId, lines });
  }

  private audience(placement: ServerPlacement): string[] {
    // The owner's sockets, the console's subscribers, and every member's sockets (their server list).
    return [userRoom(placement.ownerId), consoleRoom(placement.serverId), memberRoom(placement.serverId)];
  }
}

export const consoleRoom = (serverId: string) => `console:${serverId}`;

/** The percentage browsers see: 100 only once complete (the archive is smaller than the bytes read). */
export function backupPercent(event: Pick<AgentBackupEvent, 'phase' | 'bytes' | 'totalBytes'>): number {
  if (event.phase === 'complete') return 100;
  return event.totalBytes > 0 ? Math.min(99, Math.floor((event.bytes / event.totalBytes) * 100)) : 0;
}
