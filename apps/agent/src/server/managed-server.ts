import { mkdir, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { AgentServerSpec, PowerAction, ServerState, ServerStats } from '@spawnpoint/contracts';
import { ConsoleBuffer } from './console-buffer.ts';
import type { GameCage } from '../cage/cage.ts';
import { rememberSpec } from './detached-process.ts';
import { canBind } from './ports.ts';
import { closingOnError, Sandbox, SandboxError } from '../files/sandbox.ts';
import { deletedOpenBytes } from '../files/folder-size.ts';
import type { NodeDisk } from '../files/node-disk.ts';
import { effectiveMaxPlayers, LaunchRefused, readGameSettings, refuseLinksIn } from '../runtimes/game-settings.ts';
import { parseProperties, updateProperties } from './properties.ts';
import type { Runtime, RuntimeProcess } from '../runtimes/types.ts';
import { BackupCoordinator } from './backup-coordinator.ts';
import { OutputGuard } from './output-guard.ts';
import { StatsSampler } from './stats-sampler.ts';
import { PlayerCount } from './player-count.ts';

export interface ServerEvents {
  /** `reason`: why it went offline without being asked (a failed start, a crash, a limit). */
  state(serverId: string, state: ServerState, reason?: string): void;
  lines(serverId: string, lines: string[]): void;
  /** `inGame`: players by the game's own join/leave lines (player-count.ts); undefined while unknown. */
  stats(serverId: string, stats: ServerStats & { inGame?: number }): void;
}

/** A game whose console input is full (it stopped reading it, or filled it itself) cannot take a command. */
export const CONSOLE_INPUT_FULL = 'The server is not reading its console input, so the command could not be sent.';

export class InvalidStateError extends Error {}

const CRASH_LOOP_MS = 60_000;

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
  private lastCrash = 0;
  private readonly guard = new OutputGuard();
  private readonly stats: StatsSampler;
  /** The last figures sent for this server (null before the first sample of a run). */
  private latest: ServerStats | null = null;
  private readonly inGame = new PlayerCount();
  private exited: Promise<void> = Promise.resolve();
  private openSandbox: Promise<Sandbox> | null = null;
  /** Backups and restores of this server (one at a time; see BackupCoordinator). */
  readonly backups: BackupCoordinator;
  // The end of the last output chunk without its newline, so the ready line is seen across chunks.
  private partialLine = '';
  private decoder = new StringDecoder('utf8');

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
        overQuota: (bytes, quota) => this.overQuota(bytes, quota),
        nodeRoom: () => this.nodeDisk.refresh(),
        nodeDiskFull: () => this.nodeDiskFull(),
      },
      (stats: ServerStats) => {
        this.latest = stats;
        const inGame = this.inGame.count();
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
  async maxPlayers(): Promise<number> {
    const text = await (await this.sandbox()).readTextIfExists('server.properties').catch(() => null);
    return effectiveMaxPlayers(parseProperties(text ?? ''), this.spec.maxPlayers);
  }

  /**
   * After a plan change from `previous` slots to the spec's: a server set to all of its old plan's slots
   * gets all of the new plan's (an upgrade is bought for them), one set above the new plan's is lowered to
   * it (it could not use them anyway), and a number its owner chose below both stays.
   */
  async followPlanSlots(previous: number): Promise<void> {
    const sandbox = await this.sandbox();
    const text = await sandbox.readTextIfExists('server.properties');
    if (text === null) return;
    const value = Number(parseProperties(text).get('max-players'));
    const slots = this.spec.maxPlayers;
    if (!Number.isInteger(value) || value === slots || (value !== previous && value < slots)) return;
    const next = updateProperties(text, { 'max-players': String(slots) });
    await sandbox.writeFrom('server.properties', Readable.from([Buffer.from(next)]), { overwrite: true });
  }

  /** The folder's sandbox, opened once (its quota the plan's disk); none once deleted, nor while swapped or stored. */
  sandbox(): Promise<Sandbox> {
    // A late stats tick must not open one again: collected while open, it ends the agent (Node 26).
    if (this.removed) return Promise.reject(new SandboxError('NOT_FOUND', 'This server was deleted.'));
    if (this.state === 'restoring' || this.state === 'downloading')
      return Promise.reject(new SandboxError('INVALID_STATE', 'The server is being restored. Please try again in a moment.'));
    if (this.state === 'uploading')
      return Promise.reject(new SandboxError('INVALID_STATE', 'The server is going to sleep and its files are being stored.'));
    this.openSandbox ??= mkdir(this.dir, { recursive: true })
      .then(() => Sandbox.open(this.dir, this.spec.diskMb * 1024 * 1024, { nodeDisk: this.nodeDisk }))
      .then(async (sandbox) => {
        const { dev } = await closingOnError(stat(this.dir), () => sandbox.close());
        // Files the running game deleted but keeps open are still on the disk: they count too.
        sandbox.hiddenBytes = async () => (this.proc ? deletedOpenBytes(await this.proc.pids(), dev) : 0);
        return sandbox;
      });
    this.openSandbox.catch(() => (this.openSandbox = null));
    return this.openSandbox;
  }

  async closeSandbox(): Promise<void> {
    const open = this.openSandbox;
    this.openSandbox = null;
    if (open) await (await open).close().catch(() => undefined);
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
    return new Promise((resolve, reject) => {
      let accepted = false;
      this.power(action, () => {
        accepted = true;
        resolve();
      }).then(
        () => resolve(),
        (err: unknown) => {
          if (!accepted) reject(err);
          else this.console.notice(`The ${action} did not complete: ${err instanceof Error ? err.message : String(err)}`);
        },
      );
    });
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
      await this.checkDisk();
      accept();
      await this.start({ diskChecked: true });
    } else if (action === 'stop') {
      if (this.state !== 'online' && this.state !== 'starting') throw new InvalidStateError(`The server is ${this.state}.`);
      accept();
      await this.stop();
    } else {
      if (this.state !== 'online') throw new InvalidStateError(`The server is ${this.state}.`);
      // Checked before stopping: a restart that could not start again would leave the server down.
      await this.checkDisk();
      accept();
      await this.stop();
      await this.start({ diskChecked: true });
    }
  }

  /**
   * The game wrote past its disk quota while running (the file manager's writes are refused before): it is
   * stopped (it saves first, within the stop timeout) and says why, and stays stopped until space is freed.
   */
  private overQuota(bytes: number, quotaBytes: number): void {
    if (this.state !== 'online' && this.state !== 'starting') return;
    const mb = (n: number) => `${Math.ceil(n / (1024 * 1024))} MB`;
    this.stopReason = `The server was stopped: its folder uses ${mb(bytes)}, more than its disk limit of ${mb(quotaBytes)}. Delete files in the file manager (or upgrade), then start it again.`;
    this.console.notice(this.stopReason);
    void this.power('stop').catch(() => undefined);
  }

  /**
   * The node's disk fell below its reserve while this game was writing to it: the game is stopped before
   * it takes what the node needs (whatever its own quota), and says why.
   */
  private nodeDiskFull(): void {
    if (this.state !== 'online' && this.state !== 'starting') return;
    this.stopReason = `The server was stopped: ${this.nodeDisk.lowMessage('it was writing to the disk')}`;
    this.console.notice(this.stopReason);
    void this.power('stop').catch(() => undefined);
  }

  /**
   * A server over its disk quota does not start until space is freed (the folder is measured now), and
   * none starts on a node below its disk reserve.
   */
  private async checkDisk(): Promise<void> {
    if ((await this.nodeDisk.refresh()) < 0) throw new SandboxError('DISK_LIMIT', this.nodeDisk.lowMessage('The server cannot start'));
    const sandbox = await this.sandbox();
    if ((await sandbox.measure()) > sandbox.quotaBytes) {
      throw new SandboxError('DISK_LIMIT', 'The disk limit of this server has been reached. Delete files or upgrade before starting it.');
    }
  }

  private async start({ diskChecked = false } = {}): Promise<void> {
    this.stopReason = null;
    this.startCalledOff = null;
    if (!diskChecked) await this.checkDisk();
    const sandbox = await this.sandbox();
    if (this.runtime.needsSoftware?.(this.spec) && this.runtime.fetchSoftware) {
      // The first start of a version on this node downloads it: `installing`, with progress in the console.
      // Stop, kill and removal end the wait at once (the download itself may go on for other servers).
      this.setState('installing');
      const cancel = new AbortController();
      this.installing = cancel;
      try {
        const cancelled = new Promise<never>((_, reject) =>
          cancel.signal.addEventListener('abort', () => reject(new Error(String(cancel.signal.reason))), { once: true }),
        );
        await Promise.race([this.runtime.fetchSoftware(this.spec, (line) => this.console.notice(line)), cancelled]);
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
    this.partialLine = '';
    let proc: RuntimeProcess;
    try {
      // Every path the game will take from its files is checked here, through the sandbox.
      const settings = await readGameSettings(sandbox, { caged: this.cage.mode === 'caged' });
      for (const notice of settings.plugins.notices) this.console.notice(notice);
      await refuseLinksIn(sandbox, this.runtime.writtenFolders(settings));
      // Said at once, instead of a start that never becomes ready (the control plane moves the server to
      // a free port before a start; this catches a program that took the port since).
      if (!(await canBind(this.spec.port, this.bindHost)))
        throw new LaunchRefused(
          `Port ${this.spec.port} is used by another program on this machine, so the server cannot listen on it. Start it again to move it to a free port.`,
        );
      const plan = await this.runtime.plan({
        dir: this.dir,
        spec: this.spec,
        bindHost: this.cage.gameBindHost ?? this.bindHost,
        runDir: this.runDir,
        settings,
      });
      // Removed, killed or the agent stopping while it was being prepared: nothing of it may run.
      if (this.removed) throw new LaunchRefused('The server was deleted.');
      if (this.startCalledOff) throw new LaunchRefused(this.startCalledOff);
      await mkdir(this.runDir, { recursive: true });
      await rememberSpec(this.runDir, this.spec);
      if (this.cage.warning) this.console.notice(this.cage.warning);
      proc = await this.cage.launch(plan, {
        serverId: this.spec.serverId,
        dir: this.dir,
        runDir: this.runDir,
        memoryMb: this.spec.memoryMb,
        port: this.spec.port,
      });
      this.pluginsAtLaunch = settings.plugins.changedAt;
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
    this.inGame.unknown();
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
    this.decoder = new StringDecoder('utf8');
    this.inGame.reset();
    let resolveExit: () => void = () => undefined;
    this.exited = new Promise((r) => (resolveExit = r));
    proc.onOutput((chunk) => this.output(chunk));
    proc.onExit((code, signal, outOfMemory) => {
      resolveExit();
      if (this.proc !== proc) return;
      this.proc = null;
      this.stats.stop();
      if (outOfMemory) {
        // Its own doing, and it would happen again: not a crash to restart.
        return this.offlineBecause(
          `The server stopped: out of memory (it reached its limit of ${this.spec.memoryMb} MB and the system ended it). Start it again, or give it more memory.`,
        );
      }
      if (this.expectingExit) {
        this.console.notice('The server stopped.');
        const reason = this.stopReason;
        this.stopReason = null;
        this.setState('offline', reason ?? undefined);
        return;
      }
      const how = signal ? `signal ${signal}` : code !== null ? `exit code ${code}` : 'it exited while the agent was not watching';
      this.console.notice(`The server crashed (${how}).`);
      const now = Date.now();
      const loop = now - this.lastCrash < CRASH_LOOP_MS;
      this.lastCrash = now;
      if (loop) {
        this.setState(
          'offline',
          `The server crashed (${how}) twice within a minute, so it is not restarted automatically. Check the console, then start it again.`,
        );
        this.console.notice(
          'It crashed twice within a minute, so it is not restarted automatically. Check the console, then start it again.',
        );
      } else {
        this.setState('offline');
        this.console.notice('Restarting it automatically…');
        void this.power('start').catch(() => undefined);
      }
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
    // The kill is armed first: however the stop command fares, the server is gone within the timeout.
    const timer = setTimeout(() => {
      this.console.notice(`The server did not stop within ${Math.round(this.stopTimeoutMs / 1000)} s, so it was killed.`);
      proc.kill('SIGKILL');
    }, this.stopTimeoutMs);
    if (!proc.send(this.runtime.stopCommand)) {
      // SIGTERM still lets the game save (Java's shutdown hooks run); the armed kill follows if it does not end.
      this.console.notice(`${CONSOLE_INPUT_FULL} It was asked to end instead.`);
      proc.kill('SIGTERM');
    }
    await this.exited;
    clearTimeout(timer);
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
    // A multi-byte character split across two reads of the log survives.
    const text = this.decoder.write(chunk);
    const before = this.inGame.count();
    this.inGame.write(text);
    const after = this.inGame.count();
    // A join or leave is told at once, not at the next sample: a player who joins and leaves between two
    // samples (or just before a stop) has still played, and the API's wake budget and sleep timer need it.
    if (after !== before && after !== undefined && this.latest) this.events.stats(this.spec.serverId, { ...this.latest, inGame: after });
    if (this.state === 'starting') {
      const seen = this.partialLine + text;
      if (this.runtime.readyPattern.test(seen)) this.setState('online');
      this.partialLine = seen.slice(seen.lastIndexOf('\n') + 1).slice(-512);
    }
    this.guard.pass(
      text,
      (allowed) => this.console.write(allowed),
      (message) => this.console.notice(message),
    );
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
