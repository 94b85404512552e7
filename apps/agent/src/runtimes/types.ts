import type { AgentServerSpec } from '@spawnpoint/contracts';
import type { GroupUsage } from '../cage/cgroups.ts';
import type { Sandbox } from '../files/sandbox.ts';
import type { GameSettings } from './game-settings.ts';

/** How to run a game process; the agent launches it detached (detached-process.ts). */
export interface LaunchPlan {
  /** An absolute path: never looked up in a folder the tenant controls. */
  command: string;
  args: string[];
  cwd: string;
  /** The whole environment of the game process: nothing of the agent's (no token, no NODE_OPTIONS). */
  env: NodeJS.ProcessEnv;
  /**
   * Files and folders of the node the game reads besides the system's (/usr, /lib…): its launcher, the
   * packages it loads, its jar. The cage mounts them read-only at the same paths; nothing else of the node's.
   */
  readOnly: string[];
  /**
   * A Node.js program's heap in MB. In the cage with a memory group, on plans `nodeSizesHeapFromGroup`
   * accepts, Node reads the group's limit (the cage shows the group read-only) and sizes its heap itself,
   * so no flag is passed: a V8 flag that is not the default makes Node refuse its built-in code cache,
   * ≈ 20–40 ms of every start. Elsewhere it is passed as `--max-old-space-size` before `args`.
   */
  nodeHeapMb?: number;
}

/**
 * Plans whose memory Node sizes well by itself from the group: V8 takes half of it as heap, but never less
 * than 256 MB nor more than ≈ 2 GB, so smaller plans would hit the group's limit first and larger ones
 * would lose most of their memory. Those keep the flag (75 % as heap) and its cost at start.
 */
export function nodeSizesHeapFromGroup(memoryMb: number): boolean {
  return memoryMb >= 512 && memoryMb <= 2048;
}

/** The plan's command line where Node cannot size its heap from a memory group. */
export function withHeapFlag(plan: LaunchPlan): string[] {
  return plan.nodeHeapMb === undefined ? plan.args : [`--max-old-space-size=${plan.nodeHeapMb}`, ...plan.args];
}

export interface LaunchInput {
  /** The server folder (the game's working directory). */
  dir: string;
  spec: AgentServerSpec;
  bindHost: string;
  runDir: string;
  /** What the agent read from the folder through the sandbox and checked. */
  settings: GameSettings;
}

/** A running game process, started by this agent or adopted from an earlier one. */
export interface RuntimeProcess {
  /** 0 when the process could not be started. */
  pid: number;
  /** Writes one console command; false when the game's console input is full (it does not read it). */
  send(command: string): boolean;
  kill(signal: NodeJS.Signals): void;
  onOutput(listener: (chunk: Buffer) => void): void;
  /**
   * Code and signal are null when the process was adopted (not our child) and went away. `outOfMemory`:
   * the kernel ended it because it reached its memory limit.
   */
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null, outOfMemory: boolean) => void): void;
  /** Stops watching the process and leaves it running. */
  detach(): void;
  /** What the game's control group uses (every process in it), or null when it has none (uncaged, no cgroups). */
  usage(): Promise<GroupUsage | null>;
  /** The game's processes (its control group's), whose open files count against its disk quota. */
  pids(): Promise<number[]>;
}

/**
 * One way of running a game server. Adding a runtime touches no other code than the registry in software/runtimes.ts.
 * A runtime touches the server folder only through the sandbox, and its plan loads only code the node
 * installed, by absolute path.
 */
export interface Runtime {
  /** Prepares the server folder (idempotent). Throws with a user-facing message when it cannot. */
  install(sandbox: Sandbox, spec: AgentServerSpec): Promise<void>;
  /**
   * Whether a start must first fetch software into the node's cache (the server shows `installing`), and
   * the fetch itself, which reports lines for the console and throws with a user-facing message.
   */
  needsSoftware?(spec: AgentServerSpec): boolean;
  fetchSoftware?(spec: AgentServerSpec, progress: (line: string) => void): Promise<void>;
  plan(input: LaunchInput): Promise<LaunchPlan>;
  /**
   * Folders the game writes into (relative to the server folder); a start is refused while one of them
   * holds a link, which only game code can have planted.
   */
  writtenFolders(settings: GameSettings): string[][];
  /** The console command that stops the server gracefully. */
  stopCommand: string;
  /** A console line that means the server accepts players. */
  readyPattern: RegExp;
}
