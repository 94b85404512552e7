import type { AgentServerSpec, PowerAction, ServerState, ServerStats } from '@spawnpoint/contracts';
import { ConsoleBuffer } from './console-buffer.ts';
import type { GameCage } from '../cage/cage.ts';
import type { Sandbox } from '../files/sandbox.ts';
import type { NodeDisk } from '../files/node-disk.ts';
import { LaunchRefused } from '../runtimes/game-settings.ts';
import { launchGame, waitForSoftware } from './game-launch.ts';
import { overQuotaReason, ServerFolder } from './server-folder.ts';
import type { Runtime, RuntimeProcess } from '../runtimes/types.ts';
import { BackupCoordinator } from './backup-coordinator.ts';
import { CONSOLE_INPUT_FULL, GameExit, stopGame, whenAccepted } from './game-exit.ts';

import { GameOutput } from './game-output.ts';
import { StatsSampler } from './stats-sampler.ts';

export interface ServerEvents {
  /** `reason`: why it went offline without being asked (a failed start, a crash, a limit). */
  state(serverId: string, state: ServerState, reason?: string): void;
  lines(serverId: string, lines: string[]): void;
  /** `inGame`: players by the game's own join/leave lines (player-count.ts); undefined while unknown. */
  stats(serverId: string, stats: ServerStats & { inGame?: number }): void;
}

export class InvalidStateError extends Error {}

/**
 * One game server on this node. Every power action goes through `power()`, which runs them one at a time
 * and checks the state first; kill always passes.
 */
export class ManagedServer {
  state: ServerState = 'offline';
  readonly console: ConsoleBuffer;
  private proc: RuntimeProcess | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private expectingExit = false;
  /**
   * The plugin record's `changedAt` the running game was started with (plugin-record.ts): a record changed
   * since needs a restart. Null when unknown (a process adopted after an agent restart).
   */
  pluginsAtLaunch: string | null = null;
  private readonly stats: StatsSampler;
  /** The last figures sent for this server (null before the first sample of a run). */
  private latest: ServerStats | null = null;
  private readonly gameOutput: GameOutput;
  private readonly gameExit: GameExit;
  private exited: Promise<void> = Promise.resolve();
  private readonly folder: ServerFolder;
  /** Backups and restores of this server (one at a time; see BackupCoordinator). */
  readonly backups: BackupCoordinator;

  constructor(
    public spec: AgentServerSpec,
    readonly dir: string,
    /** Where the detached process's record, log and command FIFO live (outside the user's folder). */
    readonly runDir: string,
    private runtime: Runtime,
    private bindHost: string,
    private stopTimeoutMs: number,
    private events: ServerEvents,
    /** Runs the game process in its cage with the plan's limits (cage.ts). */
    private cage: GameCage,
    /** The node's disk and the reserve no server may take (node-disk.ts). */
    private nodeDisk: NodeDisk,
  ) {
    this.console = new ConsoleBuffer((lines) => this.events.lines(spec.serverId, lines));
    this.gameOutput = new GameOutput(this.console, runtime.readyPattern);
    this.gameExit = new GameExit({
      console: this.console,
      memoryMb: () => this.spec.memoryMb,
      expected: () => this.expectingExit,
      takeStopReason: () => {
        const reason = this.stopReason;
        this.stopReason = null;
        return reason;
      },
      setState: (state, reason) => this.setState(state, reason),
      offlineBecause: (reason) => this.offlineBecause(reason),
      restart: () => void this.power('start').catch(() => undefined),
    });
    this.folder = new ServerFolder(dir, nodeDisk, {
      spec: () => this.spec,
      state: () => this.state,
      removed: () => this.removed,
      pids: async () => (this.proc ? this.proc.pids() : []),
    });
    this.backups = new BackupCoordinator(
      {
        dir,
        console: this.console,
        state: () => this.state,
        setState: (state) => this.setState(state),
        quotaBytes: () => this.spec.diskMb * 1024 * 1024,
        send: (command) => this.proc?.send(command) ?? false,
        closeSandbox: () => this.closeSandbox(),
      },
      (message) => new InvalidStateError(message),
    );
    this.stats = new StatsSampler(
      {
        spec: () => this.spec,
        pid: () => this.proc?.pid,
        usage: async () => (this.proc ? this.proc.usage() : null),
        state: () => this.state,
        sandbox: () => this.sandbox(),
        overQuota: (bytes, quota) => this.stopBecause(overQuotaReason(bytes, quota)),
        nodeRoom: () => this.nodeDisk.refresh(),
        nodeDiskFull: () => this.stopBecause(`The server was stopped: ${this.nodeDisk.lowMessage('it was writing to the disk')}`),
      },
      (stats: ServerStats) => {
        this.latest = stats;
        const inGame = this.gameOutput.inGame.count();
        this.events.stats(this.spec.serverId, inGame === undefined ? stats : { ...stats, inGame });
      },
    );
  }

  /** Prepares the folder for the runtime; every file it writes there goes through the sandbox. */
  async install(): Promise<void> {
    await this.runtime.install(await this.sandbox(), this.spec);
  }

  /** The memory, CPU, disk and players last sampled while the game ran. */
  latestStats(): ServerStats | null {
    return this.latest;
  }

  /** The names of the players online, as the last status ping listed them. */
  onlinePlayers(): string[] {
    return this.state === 'online' ? this.stats.onlinePlayers() : [];
  }

  /** The player slots the server runs with (server.properties, capped by the plan), as the dashboard shows them. */
  maxPlayers(): Promise<number> {
    return this.folder.maxPlayers();
  }

  /** After a plan change from `previous` slots: the folder's slots follow (ServerFolder.followPlanSlots). */
  followPlanSlots(previous: number): Promise<void> {
    return this.folder.followPlanSlots(previous);
  }

  /** The folder's sandbox (ServerFolder.sandbox): none once deleted, nor while swapped or stored. */
  sandbox(): Promise<Sandbox> {
    return this.folder.sandbox();
  }

  closeSandbox(): Promise<void> {
    return this.folder.close();
  }

  /**
   * Runs a power action in line. `accept` is called once its preconditions (state, and disk for a start)
   * were checked, which is when the control plane gets its answer (see `request`).
   */
  power(action: PowerAction, accept: () => void = () => undefined): Promise<void> {
    // Kill skips the queue so it can end a start or stop that hangs.
    if (action === 'kill') {
      accept();
      return this.kill();
    }
    // So does a stop while the software downloads (the start in the queue would hold it until the end).
    if (action === 'stop' && this.state === 'installing') {
      accept();
      this.cancelInstall('The start was stopped while the software was downloading.');
      return Promise.resolve();
    }
    const run = this.queue.then(() => this.run(action, accept));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * A power action asked for by the control plane: settles when it is accepted (refused with its reason
   * before that: wrong state, disk full), and a failure after acceptance is said in the console, where the
   * user looks, instead of being lost.
   */
  request(action: PowerAction): Promise<void> {
    return whenAccepted(
      (accept) => this.power(action, accept),
      (err) => this.console.notice(`The ${action} did not complete: ${err instanceof Error ? err.message : String(err)}`),
    );
  }

  command(command: string): void {
    if (!this.proc || (this.state !== 'online' && this.state !== 'starting')) throw new InvalidStateError('The server is not running.');
    this.console.write(`\x1b[36m> ${command}\x1b[0m\n`);
    if (!this.proc.send(command)) {
      this.console.notice(CONSOLE_INPUT_FULL);
      throw new InvalidStateError(CONSOLE_INPUT_FULL);
    }
  }

  private async run(action: Exclude<PowerAction, 'kill'>, accept: () => void): Promise<void> {
    if (action === 'start') {
      if (this.state !== 'offline') throw new InvalidStateError(`The server is ${this.state}.`);
      await this.folder.checkDisk();
      accept();
      await this.start({ diskChecked: true });
    } else if (action === 'stop') {
      if (this.state !== 'online' && this.state !== 'starting') throw new InvalidStateError(`The server is ${this.state}.`);
      accept();
      await this.stop();
    } else {
      if (this.state !== 'online') throw new InvalidStateError(`The server is ${this.state}.`);
      // Checked before stopping: a restart that could not start again would leave the server down.
      await this.folder.checkDisk();
      accept();
      await this.stop();
      await this.start({ diskChecked: true });
    }
  }

  /**
   * A limit passed while the game ran (its disk quota, the node's disk reserve; the file manager's writes are
   * refused before): it is stopped (it saves first, within the stop timeout), says why, and stays stopped.
   */
  private stopBecause(reason: string): void {
    if (this.state !== 'online' && this.state !== 'starting') return;
    this.stopReason = reason;
    this.console.notice(reason);
    void this.power('stop').catch(() => undefined);
  }

  private async start({ diskChecked = false } = {}): Promise<void> {
    this.stopReason = null;
    this.startCalledOff = null;
    if (!diskChecked) await this.folder.checkDisk();
    const sandbox = await this.sandbox();
    if (this.runtime.needsSoftware?.(this.spec) && this.runtime.fetchSoftware) {
      // The first start of a version on this node downloads it: `installing`, with progress in the console.
      this.setState('installing');
      const cancel = new AbortController();
      this.installing = cancel;
      try {
        await waitForSoftware(this.runtime, this.spec, this.console, cancel.signal);
      } catch (err) {
        if (cancel.signal.aborted) {
          this.console.notice(String(cancel.signal.reason));
          if (!this.removed) this.setState('offline');
        } else if (!this.removed) this.offlineBecause(`Could not start: ${err instanceof Error ? err.message : String(err)}`);
        return;
      } finally {
        this.installing = null;
      }
    }
    if (this.removed) return;
    this.setState('starting');
    this.console.notice(`Starting ${this.spec.software} ${this.spec.version} on port ${this.spec.port}…`);
    try {
      await this.install();
    } catch (err) {
      this.offlineBecause(`Could not start: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.expectingExit = false;
    this.gameOutput.starting();
    let proc: RuntimeProcess;
    try {
      const calledOff = () => (this.removed ? 'The server was deleted.' : this.startCalledOff);
      const { dir, runDir, bindHost, runtime, cage, console } = this;
      const launched = await launchGame(sandbox, { spec: this.spec, dir, runDir, bindHost, runtime, cage, console, calledOff });
      proc = launched.proc;
      this.pluginsAtLaunch = launched.pluginsAtLaunch;
    } catch (err) {
      if (err instanceof LaunchRefused) return this.offlineBecause(`Not started: ${err.message}`);
      // The node itself cannot launch processes (no FIFO support, disk full): say so, stay offline.
      return this.offlineBecause(`Could not start: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.attach(proc);
    // Called off while the process was being launched: it is ended at once, as the Kill asked.
    if (this.startCalledOff) {
      this.expectingExit = true;
      proc.kill('SIGKILL');
    }
  }

  /**
   * Takes over the process an earlier agent started, if it still runs (the agent restarted). Returns
   * whether there was one.
   */
  async adopt(): Promise<boolean> {
    const proc = await this.cage.adopt(this.runDir);
    if (!proc) return false;
    this.expectingExit = false;
    this.setState('online');
    this.console.notice('The node agent restarted; the server kept running.');
    this.attach(proc);
    // Who joined before this agent came is not in the lines it reads: the game's own list says.
    this.gameOutput.inGame.unknown();
    proc.send('list');
    return true;
  }

  /** Stops watching the process and leaves it running (the agent is restarting). */
  detach(): void {
    this.stats.stop();
    this.proc?.detach();
    this.proc = null;
  }

  private attach(proc: RuntimeProcess): void {
    this.proc = proc;
    this.gameOutput.attached();
    let resolveExit: () => void = () => undefined;
    this.exited = new Promise((r) => (resolveExit = r));
    proc.onOutput((chunk) => this.output(chunk));
    proc.onExit((code, signal, outOfMemory) => {
      resolveExit();
      if (this.proc !== proc) return;
      this.proc = null;
      this.stats.stop();
      this.gameExit.exited(code, signal, outOfMemory);
    });
    this.stats.start();
  }

  private async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc) {
      this.setState('offline');
      return;
    }
    this.setState('stopping');
    this.expectingExit = true;
    this.console.notice('Stopping the server…');
    await stopGame(proc, this.runtime.stopCommand, this.stopTimeoutMs, this.console, this.exited);
  }

  private async kill(): Promise<void> {
    const proc = this.proc;
    if (!proc) {
      this.startCalledOff = 'The start was killed before the game ran.';
      this.cancelInstall('The start was killed while the software was downloading.');
      if (this.state === 'starting' || this.state === 'stopping' || this.state === 'installing') this.setState('offline');
      return;
    }
    this.expectingExit = true;
    this.console.notice('Killing the server process.');
    proc.kill('SIGKILL');
    await this.exited;
  }

  private output(chunk: Buffer): void {
    const { text, inGame, ready } = this.gameOutput.read(chunk, this.state === 'starting');
    // A join or leave is told at once, not at the next sample: a player who joins and leaves between two
    // samples (or just before a stop) has still played, and the API's wake budget and sleep timer need it.
    if (inGame !== undefined && this.latest) this.events.stats(this.spec.serverId, { ...this.latest, inGame });
    if (ready) this.setState('online');
    this.gameOutput.pass(text);
  }

  private setState(state: ServerState, reason?: string): void {
    if (this.state === state) return;
    this.state = state;
    this.events.state(this.spec.serverId, state, reason);
  }

  /** It goes offline on its own: the reason in the console, and with the state (the overview says it). */
  private offlineBecause(reason: string): void {
    this.console.notice(reason);
    this.setState('offline', reason);
  }

  /** Why a stop the agent itself asked for (a limit passed) is made: said once the game has ended. */
  private stopReason: string | null = null;

  // The wait of a start for its software, while there is one.
  private installing: AbortController | null = null;
  // Deleted: a start still under way stops before launching anything.
  private removed = false;
  /**
   * Why a start under way must not leave a game running: a Kill, or the agent shutting down, that came
   * before the start had a process to end. The start launches nothing after it, and ends what it launched.
   */
  private startCalledOff: string | null = null;

  private cancelInstall(reason: string): void {
    this.installing?.abort(reason);
  }

  /** The server is being deleted: a start under way (a download) ends, and nothing of it launches. */
  markRemoved(): void {
    this.removed = true;
    this.cancelInstall('The server was deleted while its software was downloading.');
  }

  async shutdown(): Promise<void> {
    if (this.proc) return void (await this.power('stop').catch(() => this.kill()));
    // A start under way would launch its game after the agent stopped watching it, and the game would run
    // on with nobody to stop it: it is called off, and whatever it launched meanwhile is ended.
    this.startCalledOff = 'The node agent is stopping.';
    this.cancelInstall('The node agent is stopping.');
    await this.queue;
    if (this.proc) await this.kill();
  }
}
