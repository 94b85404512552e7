import { errorMessage, eulaMessages, isJavaSoftware, powerPreconditions, type PowerAction, type ServerState } from '@spawnpoint/contracts';
import { ApiError } from '../http/errors.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { ServerHub } from '../server-hub.ts';
import type { ServerRow } from '../db/rows.ts';
import type { ServerMover } from './server-mover.ts';
import { specOf } from './server-spec.ts';
import { StartQueue, type QueuedStart } from './start-queue.ts';

/** What else decides whether an account may start one more server now (play time, active servers). */
export interface StartRules {
  /** Throws the refusal (SERVER_PLAY_TIME_REACHED, SERVER_LIMIT_REACHED) when the start may not happen. */
  check(server: ServerRow): Promise<void> | void;
}

/**
 * The one entry point for power actions: one action per server at a time, each checked against the
 * server's state first (409 INVALID_STATE). Kill is always allowed and does not wait in line. A start
 * also passes the account's rules (play time, active servers) and, when its node's running servers are at
 * capacity, waits in the node's start queue (`queued`, first come first served) until a slot frees; a
 * full queue is NO_SERVERS_AVAILABLE. Stop or kill takes a waiting server out of the queue. Players who
 * join through the proxy start servers through here too, so every rule holds for them.
 */
export class PowerDispatcher {
  private lines = new Map<string, Promise<unknown>>();
  readonly queue: StartQueue;
  private draining = new Set<string>();

  constructor(
    private nodes: NodeRegistry,
    private hub: ServerHub,
    /** Before a start: the row to start, moved to a free port if another program took its port. */
    private preparePort: (server: ServerRow) => Promise<ServerRow> = async (server) => server,
    /** Told when a start moved the server (caches of its row are stale). */
    private onMoved: (server: ServerRow) => void = () => undefined,
    private rules: StartRules = { check: () => undefined },
    queueMaxPerNode = 100,
    /** Sleeping servers whose folder is in shared storage: placed on a node with room and fetched at start. */
    private mover: ServerMover | null = null,
  ) {
    this.queue = new StartQueue(queueMaxPerNode);
  }

  /**
   * How long a start that fetches the server's folder from shared storage keeps its caller waiting
   * (FETCH_ANSWER_SECONDS): a large world takes a while, and the page shows "Fetching files" live meanwhile.
   */
  fetchAnswerMs = 5_000;

  /**
   * `guard` runs once the action has its turn in the server's line, before anything else is checked: a
   * join's start asks there whether the owner's setting lets it start the server as it is then (a start
   * queued behind an upload to storage or a restore must not slip through).
   */
  run(server: ServerRow, action: PowerAction, guard?: () => Promise<void>): Promise<void> {
    if (action === 'kill') return this.execute(server, action);
    const done = this.inLine(server.id, async () => {
      await guard?.();
      return this.execute(server, action);
    });
    return action === 'start' ? this.answeredWhileFetching(server.id, done) : done;
  }

  /**
   * The start's own outcome, or success once it has been fetching the folder from storage for
   * `fetchAnswerMs`: it then goes on in the server's line, and a failure after that answer is said in the
   * server's console (the server stays asleep in storage, as the page shows).
   */
  private answeredWhileFetching(serverId: string, done: Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      let answered = false;
      let timer: NodeJS.Timeout | null = null;
      const watch = (id: string, state: ServerState) => {
        if (id !== serverId) return;
        if (state !== 'downloading') {
          if (timer) clearTimeout(timer);
          timer = null;
          return;
        }
        timer ??= setTimeout(() => {
          answered = true;
          stop();
          resolve();
        }, this.fetchAnswerMs);
      };
      const stop = () => {
        this.hub.offStateChange(watch);
        if (timer) clearTimeout(timer);
      };
      this.hub.onStateChange(watch);
      done.then(
        () => {
          stop();
          if (!answered) resolve();
        },
        (err: unknown) => {
          stop();
          if (!answered) return reject(err);
          // What the caller would have been told (our own catalogue's words, never an internal error's).
          const [status, message] =
            err instanceof ApiError ? [err.code, err.message] : (['INTERNAL_ERROR', errorMessage('INTERNAL_ERROR')] as const);
          this.hub.notice(serverId, `The start did not happen: ${message}`);
          this.hub.relay.failed(serverId, status, `The start did not happen: ${message}`);
        },
      );
    });
  }

  /**
   * Runs `work` holding the server's line for its whole run (a restore: stop, swap the folder, start), so
   * no other power action slips in between its steps. `work` acts through the function it is given,
   * which skips the line it already holds. Kill still passes.
   */
  exclusive<T>(server: ServerRow, work: (act: (action: PowerAction) => Promise<void>) => Promise<T>): Promise<T> {
    return this.inLine(server.id, () => work((action) => this.execute(server, action)));
  }

  /**
   * Puts a start back in its node's line as it was when another API process held the game plane and died
   * (game-plane.ts): it starts as soon as its node is back and has room, passing the rules then, as every
   * waiting start does (`drain`).
   */
  waitAgain(server: ServerRow, from: ServerState): void {
    if (this.queue.has(server.id) || !this.queue.add({ server, from })) return;
    this.hub.hold(server.id, 'queued');
    this.pushPositions(server.nodeId);
    this.drain(server.nodeId);
  }

  /** A server was deleted: it no longer waits. */
  forget(serverId: string): void {
    const entry = this.queue.remove(serverId);
    if (entry) this.pushPositions(entry.server.nodeId);
  }

  /**
   * Starts waiting servers of a node while it has free slots (called when a server stops or sleeps, and
   * when the node connects). Each start passes the rules again: play time may have run out meanwhile.
   */
  drain(nodeId: string): void {
    if (this.draining.has(nodeId)) return;
    this.draining.add(nodeId);
    try {
      while (this.queue.length(nodeId) > 0 && this.nodes.isGreeted(nodeId) && this.hasRoom(nodeId)) {
        const entry = this.queue.shift(nodeId) as QueuedStart;
        this.hub.relay.queuePosition(entry.server.id, null);
        this.pushPositions(nodeId);
        if (!this.hub.ownerOf(entry.server.id)) continue;
        void this.inLine(entry.server.id, async () => {
          await this.rules.check(entry.server);
          await this.launch(entry.server, entry.from);
          await this.nodes.power(entry.server.nodeId, entry.server.id, 'start');
        }).catch((err: unknown) => {
          const state = this.hub.stateOf(entry.server.id);
          if (state === 'queued' || state === 'waking')
            this.hub.setState(entry.server.id, entry.from === 'sleeping' ? 'offline' : entry.from);
          this.hub.notice(entry.server.id, `The queued start did not happen: ${err instanceof Error ? err.message : String(err)}`);
          this.drain(nodeId);
        });
      }
    } finally {
      this.draining.delete(nodeId);
    }
  }

  private hasRoom(nodeId: string): boolean {
    const capacity = this.nodes.config(nodeId)?.capacity ?? 0;
    return this.hub.activeOn(nodeId, (id) => this.queue.has(id)) < capacity;
  }

  private pushPositions(nodeId: string): void {
    this.queue.waitingOn(nodeId).forEach((serverId, index) => this.hub.relay.queuePosition(serverId, index + 1));
  }

  private inLine<T>(serverId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.lines.get(serverId) ?? Promise.resolve();
    const next = previous.then(work);
    const tail = next.catch(() => undefined);
    this.lines.set(serverId, tail);
    void tail.then(() => {
      if (this.lines.get(serverId) === tail) this.lines.delete(serverId);
    });
    return next;
  }

  private async execute(server: ServerRow, action: PowerAction): Promise<void> {
    if ((action === 'stop' || action === 'kill') && this.queue.has(server.id)) {
      // Leaving the start queue: back to how it was, and everyone behind moves up.
      const entry = this.queue.remove(server.id) as QueuedStart;
      if (entry.from === 'sleeping') this.hub.hold(server.id, 'sleeping');
      else this.hub.setState(server.id, 'offline');
      this.hub.relay.queuePosition(server.id, null);
      this.pushPositions(server.nodeId);
      return;
    }
    const state = this.hub.stateOf(server.id);
    const allowed = powerPreconditions[action];
    if (allowed !== 'any' && !allowed.includes(state)) {
      throw new ApiError('INVALID_STATE', undefined, `Cannot ${action} the server while it is ${state.replace('_', ' ')}.`);
    }
    // Asleep in shared storage, it runs nothing anywhere: there is nothing to kill.
    if (action === 'kill' && state === 'sleeping' && this.hub.folderAway(server.id)) return;
    // A start reads the row afresh (its folder may have gone to storage since it was cached) and, if the
    // folder is in storage, places it on the node it will wake on (its own node may be gone).
    if (action === 'start' && this.mover) server = await this.mover.prepareStart(server);
    if (!(await this.nodes.reachable(server.nodeId))) throw new ApiError('NODE_UNAVAILABLE');
    // The plan's limits first: an owner is not asked to accept the EULA of a start that would be refused.
    if (action === 'start') await this.rules.check(server);
    // A Java server's game refuses to run until the EULA is accepted; we say so before trying (a join
    // through the proxy is told the same).
    if (action === 'start' && isJavaSoftware(server.software) && !server.eulaAcceptedAt)
      throw new ApiError('INVALID_STATE', undefined, eulaMessages.required);
    if (action === 'start') {
      // No room on its node (or others wait before it, or the node has connected but not yet said what runs
      // on it, so its free slots are unknown): it waits in line, unless the line is full.
      if (this.queue.length(server.nodeId) > 0 || !this.nodes.isGreeted(server.nodeId) || !this.hasRoom(server.nodeId)) {
        if (!this.queue.add({ server, from: state })) throw new ApiError('NO_SERVERS_AVAILABLE');
        this.hub.hold(server.id, 'queued');
        this.pushPositions(server.nodeId);
        this.drain(server.nodeId);
        return;
      }
      await this.launch(server, state);
    }
    try {
      await this.nodes.power(server.nodeId, server.id, action);
    } catch (err) {
      if (action === 'start' && ['queued', 'waking'].includes(this.hub.stateOf(server.id))) this.hub.setState(server.id, 'offline');
      throw err;
    }
  }

  /** Hands a start to its node: `queued` (or `waking` from sleep) while the port is checked and the spec sent. */
  private async launch(server: ServerRow, from: ServerState): Promise<void> {
    this.hub.release(server.id);
    let row = server;
    try {
      // Its folder in shared storage: fetched onto its node first (`downloading`); a failure leaves it asleep there.
      if (row.storedIn && this.mover) {
        row = await this.mover.fetch(row);
        this.hub.release(row.id);
      }
      if (from === 'sleeping') this.hub.markWaking(row.id);
      else this.hub.setState(row.id, 'queued');
      const prepared = await this.preparePort(row);
      if (prepared.port !== row.port) this.onMoved(prepared);
      this.hub.recordMaxPlayers(row.id, await this.nodes.install(row.nodeId, specOf(prepared)));
    } catch (err) {
      if (!row.storedIn) this.hub.setState(row.id, 'offline');
      throw err;
    }
  }
}
