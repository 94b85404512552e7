import type { AgentServerSpec } from '@spawnpoint/contracts';

export interface RuntimeProcess {
  pid: number | undefined;
  /** Writes one console command. */
  send(command: string): void;
  kill(signal: NodeJS.Signals): void;
  onOutput(listener: (chunk: Buffer) => void): void;
  onReady(listener: () => void): void;
  /** Player names, when the runtime can tell (otherwise the agent pings). */
  onPlayers(listener: (names: string[]) => void): void;
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
}

/** One way of running a game server. Adding a runtime touches no other code than the registry below. */
export interface Runtime {
  /** Prepares the server folder (idempotent). Throws with a user-facing message when it cannot. */
  install(dir: string, spec: AgentServerSpec): Promise<void>;
  start(dir: string, spec: AgentServerSpec, bindHost: string): RuntimeProcess;
  /** The console command that stops the server gracefully. */
  stopCommand: string;
}
