/**
 * Game processes that outlive the agent (an agent restart leaves running servers running: docs/design.md,
 * Game servers on a node). Each runs in its own process group with no pipe to the agent: stdout and stderr
 * go to a log file the agent tails, stdin is a FIFO the agent writes commands into, and `process.json`
 * records the pid with its kernel start time so a restarted agent can adopt exactly that process (never a
 * recycled pid). Linux only (FIFOs, /proc), like the nodes we run on.
 */
import { execFile, execFileSync, spawn, type StdioOptions } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { closeSync, constants, existsSync, openSync, readFileSync, rmSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { open, rm, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { groupPids, readGroupUsage, type GroupUsage, type UsageFiles } from '../cage/cgroups.ts';
import type { LaunchPlan, RuntimeProcess } from '../runtimes/types.ts';
import { childPidFrom, processStartTicks } from './process-identity.ts';

// Once this much of the log has been read, its blocks are given back to the disk (a hole is punched
// where it was), so a chatty server cannot fill the node's disk. Offsets do not move, so the game can keep
// appending while this happens and no line is lost.
const LOG_RECLAIM_BYTES = 8 * 1024 * 1024;
const EXIT_POLL_MS = 500;
const execFileAsync = promisify(execFile);
// inotify may coalesce events; this catches anything it missed.
const TAIL_POLL_MS = 1000;
/**
 * What the agent reads of one game's console per second. Every line is split and matched (player counts,
 * the output guard, the console ring); a game printing at disk speed would take the agent's CPU from every
 * other server. The rest waits for the next second.
 */
export const CONSOLE_BYTES_PER_SECOND = 1024 * 1024;
/**
 * Unread console output beyond this is skipped, with a line saying so: the console shows what is new, and
 * the log's blocks are given back at once, so a flood cannot fill the node's disk (the log is outside the
 * server's disk quota).
 */
export const CONSOLE_SKIP_BYTES = 16 * 1024 * 1024;

interface ProcessRecord {
  pid: number;
  startTicks: string;
  /** A caged game: the cage's own process (bwrap), leader of the process group. */
  leader?: number;
  /** A caged game's control group (see cgroups.ts), checked for an out-of-memory kill when it ends. */
  group?: GroupRecord;
}

/** What a later agent needs to know about a game's control group. */
export interface GroupRecord {
  dirs: string[];
  /** The file whose `oom_kill N` line counts out-of-memory kills, and its count at launch. */
  oomFile: string;
  oomBaseline: number;
  /** Where the group's memory and CPU are read (records of older agents lack it: the game's pid is read then). */
  usage?: UsageFiles;
}

/**
 * How a caged game is started (cage.ts): a command that sets up the cage and runs the plan inside it.
 * With `infoFd`, the command writes `{"child-pid": N}` on its fd 3 (bwrap's --info-fd): the game's own
 * pid on the node, which the record keeps (the first pid of its PID namespace: ending it ends them all).
 */
export interface LaunchWrapper {
  command: string;
  args: string[];
  infoFd: boolean;
  group?: GroupRecord;
}

/** Tells, once a game ended, whether the kernel ended it for lack of memory; removes its group. */
export type EndInspector = (group: GroupRecord | undefined) => Promise<boolean>;

const noInspector: EndInspector = async () => false;

const files = (runDir: string) => ({
  record: path.join(runDir, 'process.json'),
  log: path.join(runDir, 'console.log'),
  stdin: path.join(runDir, 'stdin'),
});

/** Starts a game process detached from the agent, inside the cage `wrapper` sets up when there is one. */
export async function launchDetached(
  plan: LaunchPlan,
  runDir: string,
  wrapper?: LaunchWrapper,
  inspect: EndInspector = noInspector,
): Promise<RuntimeProcess> {
  const f = files(runDir);
  if (!existsSync(f.stdin)) execFileSync('mkfifo', ['-m', '600', f.stdin]);
  // Read-write, so the FIFO always has a writer: the game never sees end-of-input while the agent is away.
  const stdin = openSync(f.stdin, constants.O_RDWR);
  writeFileSync(f.log, '');
  // Append mode, so the game keeps writing at the end after the agent empties the file.
  const log = openSync(f.log, 'a');
  const stdio: StdioOptions = wrapper?.infoFd ? [stdin, log, log, 'pipe'] : [stdin, log, log];
  const child = wrapper
    ? // The cage gets no environment of the agent's: it sets the game's own (--clearenv, --setenv).
      spawn(wrapper.command, wrapper.args, { cwd: '/', env: {}, detached: true, stdio })
    : spawn(plan.command, plan.args, { cwd: plan.cwd, env: plan.env, detached: true, stdio });
  closeSync(stdin);
  closeSync(log);
  if (!child.pid) {
    // spawn failed (missing binary): the error event follows; report it as an exit.
    const handle = new DetachedProcess(0, runDir, 0, async () => false);
    child.once('error', (err) => handle.exited(null, null, false, err.message));
    return handle;
  }
  const exit = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.once('exit', (code, signal) => resolve([code, signal])),
  );
  let pid = child.pid;
  const info = child.stdio[3];
  if (wrapper?.infoFd && info instanceof Readable) pid = (await childPidFrom(info)) ?? child.pid;
  const record: ProcessRecord = { pid, startTicks: processStartTicks(pid) ?? '' };
  if (wrapper) record.leader = child.pid;
  if (wrapper?.group) record.group = wrapper.group;
  writeFileSync(f.record, JSON.stringify(record));
  const handle = new DetachedProcess(pid, runDir, 0, () => inspect(wrapper?.group), wrapper ? child.pid : undefined, wrapper?.group?.usage);
  void exit.then(([code, signal]) => {
    // bwrap passes on how the game ended as an exit code: 128 + the signal's number.
    if (wrapper && code !== null && code > 128) {
      const name = Object.entries(osConstants.signals).find(([, n]) => n === code - 128)?.[0];
      if (name) return handle.finish(null, name as NodeJS.Signals);
    }
    return handle.finish(code, signal);
  });
  return handle;
}

/** Finds the still-running process of a server started by an earlier agent, if there is one. */
export async function adoptDetached(runDir: string, inspect: EndInspector = noInspector): Promise<RuntimeProcess | null> {
  const f = files(runDir);
  let record: ProcessRecord;
  try {
    record = JSON.parse(readFileSync(f.record, 'utf8')) as ProcessRecord;
  } catch {
    return null;
  }
  if (!Number.isInteger(record.pid) || record.pid <= 1 || processStartTicks(record.pid) !== record.startTicks) {
    await forgetProcess(runDir);
    await inspect(record.group);
    return null;
  }
  const size = await stat(f.log).then(
    (s) => s.size,
    () => 0,
  );
  const leader = Number.isInteger(record.leader) && (record.leader ?? 0) > 1 ? record.leader : undefined;
  const handle = new DetachedProcess(record.pid, runDir, size, () => inspect(record.group), leader, record.group?.usage);
  handle.pollExit(record.startTicks);
  return handle;
}

export async function forgetProcess(runDir: string): Promise<void> {
  await rm(files(runDir).record, { force: true });
}

class DetachedProcess implements RuntimeProcess {
  private outputListeners: ((chunk: Buffer) => void)[] = [];
  private exitListeners: ((code: number | null, signal: NodeJS.Signals | null, outOfMemory: boolean) => void)[] = [];
  private watcher: FSWatcher | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private exitTimer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;
  private again = false;
  private done = false;
  private finishing = false;
  private writer: number | null = null;
  private readonly f: ReturnType<typeof files>;
  private reclaimed = 0;
  /** Bytes read in the current second (`CONSOLE_BYTES_PER_SECOND`). */
  private windowStart = -Infinity;
  private windowBytes = 0;

  constructor(
    readonly pid: number,
    private runDir: string,
    private offset: number,
    private outOfMemory: () => Promise<boolean>,
    /** A caged game: the cage's process, leader of the group the game's processes are in. */
    private leader?: number,
    private usageFiles?: UsageFiles,
  ) {
    this.f = files(runDir);
    if (pid) this.startTail();
  }

  async usage(): Promise<GroupUsage | null> {
    return this.usageFiles ? readGroupUsage(this.usageFiles) : null;
  }

  /** The game's processes: its control group's, or its own pid when it has no group. */
  async pids(): Promise<number[]> {
    if (this.usageFiles) return groupPids(this.usageFiles);
    return this.pid ? [this.pid] : [];
  }

  /**
   * Writes a line to the game's console input; false when it could not. Non-blocking: a game that stops
   * reading its console (or fills the pipe itself: its input is the same pipe) must not hang the agent, nor
   * make a stop or an adoption throw — the pipe answers EAGAIN then, and the caller says so or kills.
   */
  send(command: string): boolean {
    try {
      this.writer ??= openSync(this.f.stdin, constants.O_WRONLY | constants.O_NONBLOCK);
      writeFileSync(this.writer, `${command}\n`);
      return true;
    } catch {
      return false;
    }
  }

  kill(signal: NodeJS.Signals): void {
    if (!this.pid) return;
    if (this.leader) {
      // Caged: the game is the first process of its PID namespace, so when it goes, every process it
      // started goes too (even one that left the process group), and then the cage's own process ends.
      // Signalling that one first would report the end before the namespace is empty.
      try {
        process.kill(this.pid, signal);
      } catch {
        // already gone
      }
      return;
    }
    try {
      process.kill(-this.pid, signal); // the whole group: a server's own children go too
    } catch {
      try {
        process.kill(this.pid, signal);
      } catch {
        // already gone
      }
    }
  }

  onOutput(listener: (chunk: Buffer) => void): void {
    this.outputListeners.push(listener);
  }

  onExit(listener: (code: number | null, signal: NodeJS.Signals | null, outOfMemory: boolean) => void): void {
    this.exitListeners.push(listener);
  }

  /** For an adopted process, which is not our child: watch for it to go away. */
  pollExit(startTicks: string): void {
    this.exitTimer = setInterval(() => {
      if (processStartTicks(this.pid) !== startTicks) void this.finish(null, null);
    }, EXIT_POLL_MS);
  }

  /** Stops watching without touching the process (the agent is going away; the server keeps running). */
  detach(): void {
    this.stopWatching();
    if (this.writer !== null) closeSync(this.writer);
    this.writer = null;
  }

  exited(code: number | null, signal: NodeJS.Signals | null, outOfMemory: boolean, message?: string): void {
    if (this.done) return;
    if (message) for (const l of this.outputListeners) l(Buffer.from(`${message}\n`));
    this.done = true;
    this.detach();
    // Gone before anyone hears of the exit: an agent that restarts right after must not find a record
    // of a process that has ended (one small unlink, once per run).
    rmSync(files(this.runDir).record, { force: true });
    for (const l of this.exitListeners) l(code, signal, outOfMemory);
  }

  async finish(code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    if (this.done || this.finishing) return;
    this.finishing = true;
    // The last lines before the exit, all of them (whatever this second's share): a crash's last words.
    if (this.reading) await this.reading;
    await this.pump(true);
    const outOfMemory = await this.outOfMemory().catch(() => false);
    this.exited(code, signal, outOfMemory);
  }

  private startTail(): void {
    try {
      this.watcher = watch(this.f.log, () => void this.pump());
      this.watcher.on('error', () => undefined);
    } catch {
      // polling below still reads it
    }
    this.pollTimer = setInterval(() => void this.pump(), TAIL_POLL_MS);
    void this.pump();
  }

  private stopWatching(): void {
    this.watcher?.close();
    this.watcher = null;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.exitTimer) clearInterval(this.exitTimer);
    this.pollTimer = this.exitTimer = null;
  }

  private async reclaim(): Promise<void> {
    const upTo = this.offset - (this.offset % 4096);
    try {
      await execFileAsync('fallocate', ['--punch-hole', '--offset', '0', '--length', String(upTo), this.f.log]);
      this.reclaimed = upTo;
    } catch {
      // A filesystem without hole punching: empty the file instead, only once everything in it was read
      // (lines written in between are lost).
      const { size } = await stat(this.f.log).catch(() => ({ size: Number.POSITIVE_INFINITY }));
      if (size > this.offset) return;
      await truncate(this.f.log, 0);
      this.offset = 0;
      this.reclaimed = 0;
    }
  }

  /**
   * Reads what is new in the log, this second's share of it (`final`: all of it, the game has ended);
   * concurrent calls fold into one more pass.
   */
  private pump(final = false): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      const handle = await open(this.f.log, 'r').catch(() => null);
      if (!handle) return;
      const buffer = Buffer.allocUnsafe(64 * 1024);
      try {
        do {
          this.again = false;
          const { size } = await handle.stat();
          if (size - this.offset > CONSOLE_SKIP_BYTES) {
            // The last 64 KiB are kept: the latest lines show (a crash's last words, say).
            const skipped = size - 64 * 1024 - this.offset;
            this.offset += skipped;
            const line = `\n[Spawnpoint] ${Math.round(skipped / (1024 * 1024))} MB of console output skipped: the server wrote faster than the console can show.\n`;
            for (const l of this.outputListeners) l(Buffer.from(line));
          }
          for (;;) {
            // A monotonic clock: a wall clock stepped back would never start the next second.
            const now = performance.now();
            if (now - this.windowStart >= 1000) {
              this.windowStart = now;
              this.windowBytes = 0;
            }
            // This second's share is read: the poll (or the next write) reads on.
            if (this.windowBytes >= CONSOLE_BYTES_PER_SECOND && !final) break;
            const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
            if (bytesRead === 0) break;
            this.offset += bytesRead;
            this.windowBytes += bytesRead;
            const chunk = buffer.subarray(0, bytesRead);
            for (const l of this.outputListeners) l(chunk);
          }
          if (this.offset - this.reclaimed > LOG_RECLAIM_BYTES) await this.reclaim();
        } while (this.again && (final || this.windowBytes < CONSOLE_BYTES_PER_SECOND));
      } finally {
        await handle.close();
      }
    })().finally(() => {
      this.reading = null;
    });
    return this.reading;
  }
}

/** Writes the spec an adopted server needs next to its process record. */
export async function rememberSpec(runDir: string, spec: unknown): Promise<void> {
  await writeFile(path.join(runDir, 'spec.json'), JSON.stringify(spec));
}
