import type { AgentServerSpec } from '@spawnpoint/contracts';

/** How to run a game process; the agent launches it detached (detached-process.ts). */
export interface LaunchPlan {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** A running game process, started by this agent or adopted from an earlier one. */
export interface RuntimeProcess {
  /** 0 when the process could not be started. */
  pid: number;
  /** Writes one console command. */
  send(command: string): void;
  kill(signal: NodeJS.Signals): void;
  onOutput(listener: (chunk: Buffer) => void): void;
  /** Code and signal are null when the process was adopted (not our child) and went away. */
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  /** Stops watching the process and leaves it running. */
  detach(): void;
}

/** One way of running a game server. Adding a runtime touches no other code than the registry in agent.ts. */
export interface Runtime {
  /** Prepares the server folder (idempotent). Throws with a user-facing message when it cannot. */
  install(dir: string, spec: AgentServerSpec): Promise<void>;
  plan(dir: string, spec: AgentServerSpec, bindHost: string, runDir: string): LaunchPlan;
  /** The console command that stops the server gracefully. */
  stopCommand: string;
  /** A console line that means the server accepts players. */
  readyPattern: RegExp;
}
