import {
  type AgentBackupEvent,
  type LiveEvent,
  type LiveServer,
  type ServerState,
  type ServerStats,
  type StatsSample,
} from '@spawnpoint/contracts';
import type { Socket } from 'socket.io';
import { ConsoleFanOut, consoleRoom } from './console-fan-out.ts';
import { NodeEventIntake, type LiveStates } from './node-event-intake.ts';
import type { NodeRegistry } from './nodes.ts';
import type { Realtime } from './realtime.ts';
import { audienceOf, ServerRelay } from './server-relay.ts';
import { HeldStates } from './held-states.ts';
import { StateWatchers } from './state-watchers.ts';
import { StatsBook } from './stats-history.ts';

export interface ServerPlacement {
  serverId: string;
  ownerId: string;
  nodeId: string;
}

/** States of a server on its way up or up: why it last stopped no longer applies. */
const ON_ITS_WAY: readonly ServerState[] = ['queued', 'installing', 'starting', 'waking', 'online', 'downloading'];

/**
 * Live server state held in memory (docs/design.md, Database): where each server is placed and its state,
 * latest stats and the last console lines, mirrored to the other API processes. Its parts: what the nodes
 * send comes in through `intake` (node-event-intake.ts), consoles go out through `console`
 * (console-fan-out.ts), and the other news for a server's pages through `relay` (server-relay.ts).
 */
export class ServerHub implements LiveStates {
  private placements = new Map<string, ServerPlacement>();
  private states = new Map<string, ServerState>();
  /** The latest figures and the last 10 minutes of each running server, for the charts of a page that opens later. */
  private stats = new StatsBook();
  /** The consoles as browsers see them: last lines and subscribed sockets. */
  readonly console = new ConsoleFanOut();
  /** The nodes' events, checked (each server's own node only) and applied here. */
  readonly intake = new NodeEventIntake(this);
  readonly relay: ServerRelay;

  constructor(
    private io: Realtime,
    private nodes: NodeRegistry,
  ) {
    this.relay = new ServerRelay(io, (serverId) => this.ownerOf(serverId));
  }

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
      if (this.placements.has(event.serverId)) this.stats.record(event.serverId, event.stats, event.at);
    } else if (event.type === 'lines') {
      if (this.placements.has(event.serverId)) this.console.deliver(event.serverId, event.lines);
    }
  }

  /**
   * This process takes over the game plane: what it mirrored is forgotten, as at a fresh start, but for each
   * server's last known state, which stands until its node's hello says otherwise (a running game is never
   * shown offline for the moment between the takeover and that hello; a node that does not come back is
   * `gone` after a while: see game-plane-wiring.ts). Sleeping ones are held again from the database by the caller.
   */
  takeOver(): void {
    this.stats.clearAll();
    this.held.clear();
    // Carried over, not heard here: the node's next word on each is told to every listener (sleeping, the
    // start queue, play time) even when it is the same state, as it would be at a fresh start.
    this.carried = new Set(this.states.keys());
  }

  private mirrorServer(server: LiveServer): void {
    const { serverId, ownerId, nodeId, state, stored, maxPlayers, stoppedBecause } = server;
    this.placements.set(serverId, { serverId, ownerId, nodeId });
    this.states.set(serverId, state);
    if (stoppedBecause) this.stoppedBecause.set(serverId, stoppedBecause);
    else this.stoppedBecause.delete(serverId);
    if (state === 'offline' || state === 'sleeping') this.stats.clear(serverId);
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
    this.held.forget(serverId);
    this.stats.clear(serverId);
    this.console.forget(serverId);
  }

  stateOf(serverId: string): ServerState {
    return this.states.get(serverId) ?? 'offline';
  }

  statsOf(serverId: string): ServerStats | null {
    return this.stats.latest(serverId);
  }

  /** The samples of the last STATS_HISTORY_MS, oldest first (none for a server that is not running). */
  statsHistoryOf(serverId: string, now = Date.now()): StatsSample[] {
    return this.stats.history(serverId, now);
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

  // States the API decides, which a node does not know (held-states.ts).
  private held = new HeldStates();

  /**
   * Sets a state the API keeps until a start or a delete: `sleeping`, `queued` in the start queue, or the
   * folder on its way to or from shared storage (the node's own "offline" meanwhile does not end it).
   */
  hold(serverId: string, state: 'sleeping' | 'queued' | 'uploading' | 'downloading'): void {
    this.setState(serverId, state);
    if (this.placements.has(serverId)) this.held.hold(serverId, state);
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
    this.held.release(serverId);
  }

  /** The next "offline" from the node means the server went to sleep (an idle stop was sent). */
  sleepWhenStopped(serverId: string, sleep: boolean): void {
    this.held.sleepWhenStopped(serverId, sleep);
  }

  /** The start just sent wakes a sleeping server: it shows `waking` until it is online (or fails). */
  markWaking(serverId: string): void {
    this.held.waking(serverId);
    this.setState(serverId, 'waking');
  }

  /** A state reported by a node, read through what the API knows (sleeping, waking, the queue). */
  reportState(serverId: string, state: ServerState): void {
    const meaning = this.held.meaning(serverId, state, this.states.get(serverId));
    if (meaning === 'keep') return;
    if ('hold' in meaning) this.hold(serverId, meaning.hold);
    else this.setState(serverId, meaning.set);
  }

  /** Servers whose state this process carried over at a takeover and has not heard from a node since. */
  private carried = new Set<string>();

  setState(serverId: string, state: ServerState): void {
    const placement = this.placements.get(serverId);
    if (!placement) return;
    const carried = this.carried.delete(serverId);
    if (ON_ITS_WAY.includes(state)) this.stoppedBecause.delete(serverId);
    if (this.states.get(serverId) === state && !carried) return;
    this.held.changed(serverId, state);
    this.states.set(serverId, state);
    // A stopped server has no live figures; its charts start again with its next run.
    if (state === 'offline' || state === 'sleeping') this.stats.clear(serverId);
    this.io
      .to(audienceOf(serverId, placement.ownerId))
      .emit('server:state', { serverId, state, stoppedBecause: this.stoppedBecauseOf(serverId) });
    this.shareServer(serverId);
    this.watchers.tell(serverId, state);
  }

  private watchers = new StateWatchers();

  /** Told of every state change of a placed server (the join proxies' routing table follows them). */
  onStateChange(listener: (serverId: string, state: ServerState) => void): void {
    this.watchers.listen(listener);
  }

  offStateChange(listener: (serverId: string, state: ServerState) => void): void {
    this.watchers.stopListening(listener);
  }

  /** Resolves once the server's state passes `ok` (at once if it does now); false after `timeoutMs`. */
  waitForState(serverId: string, ok: (state: ServerState) => boolean, timeoutMs: number): Promise<boolean> {
    return this.watchers.wait(serverId, this.stateOf(serverId), ok, timeoutMs);
  }

  // --- what the intake (node-event-intake.ts) applies ---

  nodeSaid(serverId: string, state: ServerState, reason?: string): void {
    // Kept until it is on its way again; an offline the owner asked for says nothing.
    if (state === 'offline') {
      if (reason) this.stoppedBecause.set(serverId, reason);
      else this.stoppedBecause.delete(serverId);
    }
    this.reportState(serverId, state);
  }

  recordStats(serverId: string, stats: ServerStats, at: number): void {
    this.stats.record(serverId, stats, at);
    this.io.to(consoleRoom(serverId)).volatile.emit('server:stats', { serverId, at, ...stats });
    this.share?.({ type: 'stats', serverId, at, stats });
  }

  deliverLines(serverId: string, lines: string[]): void {
    this.share?.({ type: 'lines', serverId, lines });
    this.console.deliver(serverId, lines);
  }

  relayBackup(event: AgentBackupEvent): void {
    this.relay.backup(event);
  }

  /** Why each server last went offline on its own (a failed start, a crash, a limit), until it starts again. */
  private stoppedBecause = new Map<string, string>();

  stoppedBecauseOf(serverId: string): string | null {
    return this.stoppedBecause.get(serverId) ?? null;
  }

  /** A line of the API's own in a server's console (play time used up, …), shown as the agent's notices are. */
  notice(serverId: string, text: string): void {
    if (this.placements.has(serverId)) this.deliverLines(serverId, [`\x1b[33m[Spawnpoint]\x1b[0m ${text}`]);
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

  /** Servers placed on a node (its hello, its specs sent again after it restarts). */
  serversOn(nodeId: string): string[] {
    return [...this.placements.values()].filter((p) => p.nodeId === nodeId).map((p) => p.serverId);
  }

  // --- console subscriptions (console-fan-out.ts) ---

  /** Sends the last lines, then live lines (ConsoleFanOut.subscribe). The caller has checked `console.read`. */
  async subscribe(socket: Socket, serverId: string): Promise<void> {
    const placement = this.placements.get(serverId);
    // A socket that left while its permission was checked would never be unsubscribed again.
    if (!placement || !socket.connected) return;
    const fetchHistory = this.nodes.isConnected(placement.nodeId) ? () => this.nodes.consoleHistory(placement.nodeId, serverId) : null;
    await this.console.subscribe(socket, serverId, fetchHistory, () => {
      socket.emit('server:state', { serverId, state: this.stateOf(serverId) });
      // The charts' last 10 minutes, so a page opened (or reloaded) now does not start them empty; then the
      // latest figures (with the player list) as a live event.
      const now = Date.now();
      const samples = this.statsHistoryOf(serverId, now);
      socket.emit('server:stats-history', { serverId, samples });
      const stats = this.stats.latest(serverId);
      const last = samples[samples.length - 1];
      if (stats) socket.emit('server:stats', { serverId, at: last?.at ?? now, ...stats });
    });
  }

  unsubscribe(socket: Socket, serverId?: string): void {
    this.console.unsubscribe(socket, serverId);
  }

  /** Sockets subscribed to a server's console, including those still receiving the history. */
  subscriberCount(serverId: string): number {
    return this.console.subscriberCount(serverId);
  }

  /** Ends every console subscription of a user on a server (member removed, access revoked). */
  unsubscribeUser(serverId: string, userId: string): void {
    this.console.unsubscribeUser(serverId, userId);
  }
}

export { consoleRoom };
