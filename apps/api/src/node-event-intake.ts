import type { AgentBackupEvent, AgentUploadEvent, ServerState, ServerStats } from '@spawnpoint/contracts';
import type { NodeEvents } from './nodes.ts';

/** What the intake changes and asks of the live state (ServerHub). */
export interface LiveStates {
  nodeOf(serverId: string): string | undefined;
  serversOn(nodeId: string): string[];
  stateOf(serverId: string): ServerState;
  /** A state a node reported, with why it went offline (none: it was asked to). */
  nodeSaid(serverId: string, state: ServerState, reason?: string): void;
  /** A state read through what the API knows (sleeping, waking, the queue), why it stopped left as it is. */
  reportState(serverId: string, state: ServerState): void;
  recordStats(serverId: string, stats: ServerStats, at: number): void;
  deliverLines(serverId: string, lines: string[]): void;
  notice(serverId: string, text: string): void;
  relayBackup(event: AgentBackupEvent): void;
}

/**
 * The events the nodes send (nodes.ts), checked and handed on: each is dropped unless the server lives on the
 * sending node, then it changes the live state (ServerHub) or goes to what the app set to hear it (`on…`).
 */
export class NodeEventIntake implements NodeEvents {
  /** The API process is shutting down: its nodes disconnecting says nothing about them. */
  closing = false;
  /** Set by the app: a node (re)connected, with the servers it says are running (not offline). */
  onHello: ((nodeId: string, running: string[]) => void) | null = null;
  /** Set by the app: a backup's progress or end; `recorded` once its end is kept. */
  onBackup: ((event: AgentBackupEvent, recorded?: () => void) => void) | null = null;
  /** A file a browser uploaded straight to a node, for the server's activity log; `recorded` once logged. */
  onUpload: ((event: AgentUploadEvent, recorded: () => void) => void) | null = null;
  /** The backups a node says it is making (after a reconnect or a restart of the agent). */
  onBackupJobs: ((nodeId: string, running: { serverId: string; backupId: string }[]) => void) | null = null;
  /** Set by the app: a node stopped answering (told before its servers are marked offline). */
  onGone: ((nodeId: string) => void) | null = null;
  /**
   * Told (at most once a minute per node) that a node sent an event about a server the control plane has
   * not placed on it — another node's, a deleted one, or made up: dropped, never trusted. Set by the app to log it.
   */
  onRefused: ((nodeId: string, serverId: string, dropped: number) => void) | null = null;
  private readonly refusals = new Map<string, { at: number; dropped: number }>();
  private readonly inGameListeners = new Set<(serverId: string, count: number) => void>();

  constructor(private readonly live: LiveStates) {}

  private onNode(nodeId: string, serverId: string): boolean {
    if (this.live.nodeOf(serverId) === nodeId) return true;
    const now = Date.now();
    const seen = this.refusals.get(nodeId) ?? { at: 0, dropped: 0 };
    seen.dropped++;
    if (now - seen.at >= 60_000) {
      this.onRefused?.(nodeId, serverId, seen.dropped);
      seen.at = now;
      seen.dropped = 0;
    }
    this.refusals.set(nodeId, seen);
    return false;
  }

  state(nodeId: string, serverId: string, state: ServerState, reason?: string): void {
    if (this.onNode(nodeId, serverId)) this.live.nodeSaid(serverId, state, reason);
  }

  /** Players in the game by its own join/leave lines, as the node last counted them (sleeping reads this). */
  inGame(nodeId: string, serverId: string, count: number): void {
    if (!this.onNode(nodeId, serverId)) return;
    for (const listener of this.inGameListeners) listener(serverId, count);
  }

  onInGame(listener: (serverId: string, count: number) => void): void {
    this.inGameListeners.add(listener);
  }

  /** `at`: when the sample arrived (tests pass older times to fill the history). */
  stats(nodeId: string, serverId: string, stats: ServerStats, at = Date.now()): void {
    if (this.onNode(nodeId, serverId)) this.live.recordStats(serverId, stats, at);
  }

  lines(nodeId: string, serverId: string, lines: string[]): void {
    if (this.onNode(nodeId, serverId)) this.live.deliverLines(serverId, lines);
  }

  hello(nodeId: string, states: Map<string, ServerState>, backups: { serverId: string; backupId: string }[] = []): void {
    for (const serverId of this.live.serversOn(nodeId)) this.live.reportState(serverId, states.get(serverId) ?? 'offline');
    this.onHello?.(
      nodeId,
      [...states].filter(([, state]) => state !== 'offline').map(([serverId]) => serverId),
    );
    this.onBackupJobs?.(
      nodeId,
      backups.filter((b) => this.live.nodeOf(b.serverId) === nodeId),
    );
  }

  backup(nodeId: string, event: AgentBackupEvent, recorded?: () => void): void {
    // Not a server of that node: nothing to record, and nothing for the node to send again.
    if (!this.onNode(nodeId, event.serverId)) return recorded?.();
    this.onBackup?.(event, recorded);
    this.live.relayBackup(event);
  }

  upload(nodeId: string, event: AgentUploadEvent, recorded: () => void): void {
    // A node speaks only for its own servers (another's report is dropped, and the node may forget it).
    if (this.onNode(nodeId, event.serverId) && this.onUpload) this.onUpload(event, recorded);
    else recorded();
  }

  /**
   * A node stopped answering (its socket closed, or missed its pings): what ran there shows offline, with a
   * line that says why. A sleeping server stays asleep (in shared storage it wakes elsewhere). When the node
   * returns, its hello says what still runs and the servers show that.
   */
  gone(nodeId: string): void {
    if (this.closing) return;
    this.onGone?.(nodeId);
    for (const serverId of this.live.serversOn(nodeId)) {
      const state = this.live.stateOf(serverId);
      if (state !== 'offline' && state !== 'sleeping')
        this.live.notice(
          serverId,
          'The machine this server runs on stopped answering, so it shows offline. It comes back as it was once the machine answers again.',
        );
      this.live.reportState(serverId, 'offline');
    }
  }
}
