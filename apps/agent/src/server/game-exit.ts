import type { ServerState } from '@spawnpoint/contracts';
import type { RuntimeProcess } from '../runtimes/types.ts';
import type { ConsoleBuffer } from './console-buffer.ts';

/** A game whose console input is full (it stopped reading it, or filled it itself) cannot take a command. */
export const CONSOLE_INPUT_FULL = 'The server is not reading its console input, so the command could not be sent.';

/** A second crash within this long is a crash loop: the server is not restarted automatically. */
const CRASH_LOOP_MS = 60_000;

/** What the end of a game process needs of its server (ManagedServer). */
export interface ExitHost {
  console: ConsoleBuffer;
  memoryMb(): number;
  /** The agent asked it to end (a stop or kill). */
  expected(): boolean;
  /** Why a stop the agent itself asked for was made (a limit passed), taken once; or null. */
  takeStopReason(): string | null;
  setState(state: ServerState, reason?: string): void;
  offlineBecause(reason: string): void;
  restart(): void;
}

/**
 * What a game's exit means, said in the console and with the offline state: out of memory (its own doing,
 * not restarted), a stop that was asked for, or a crash, restarted once but not twice within a minute.
 */
export class GameExit {
  private lastCrash = 0;

  constructor(private readonly host: ExitHost) {}

  exited(code: number | null, signal: NodeJS.Signals | null, outOfMemory: boolean): void {
    const host = this.host;
    if (outOfMemory) {
      // Its own doing, and it would happen again: not a crash to restart.
      return host.offlineBecause(
        `The server stopped: out of memory (it reached its limit of ${host.memoryMb()} MB and the system ended it). Start it again, or give it more memory.`,
      );
    }
    if (host.expected()) {
      host.console.notice('The server stopped.');
      host.setState('offline', host.takeStopReason() ?? undefined);
      return;
    }
    const how = signal ? `signal ${signal}` : code !== null ? `exit code ${code}` : 'it exited while the agent was not watching';
    host.console.notice(`The server crashed (${how}).`);
    const now = Date.now();
    const loop = now - this.lastCrash < CRASH_LOOP_MS;
    this.lastCrash = now;
    if (loop) {
      const notRestarted = 'so it is not restarted automatically. Check the console, then start it again.';
      host.setState('offline', `The server crashed (${how}) twice within a minute, ${notRestarted}`);
      host.console.notice(`It crashed twice within a minute, ${notRestarted}`);
    } else {
      host.setState('offline');
      host.console.notice('Restarting it automatically…');
      host.restart();
    }
  }
}

/**
 * Asks a game to stop with its stop command (SIGTERM when it no longer reads its console); the kill is armed
 * first, so however that fares the game is gone within `timeoutMs`. Resolves once `exited` does.
 */
export async function stopGame(
  proc: RuntimeProcess,
  stopCommand: string,
  timeoutMs: number,
  console: ConsoleBuffer,
  exited: Promise<void>,
): Promise<void> {
  const timer = setTimeout(() => {
    console.notice(`The server did not stop within ${Math.round(timeoutMs / 1000)} s, so it was killed.`);
    proc.kill('SIGKILL');
  }, timeoutMs);
  if (!proc.send(stopCommand)) {
    // SIGTERM still lets the game save (Java's shutdown hooks run); the armed kill follows if it does not end.
    console.notice(`${CONSOLE_INPUT_FULL} It was asked to end instead.`);
    proc.kill('SIGTERM');
  }
  await exited;
  clearTimeout(timer);
}

/**
 * Runs `act` (a power action handed its `accept`): settles when it is accepted (refused with its reason
 * before that), and a failure after acceptance goes to `late` instead of being lost.
 */
export function whenAccepted(act: (accept: () => void) => Promise<void>, late: (err: unknown) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let accepted = false;
    act(() => {
      accepted = true;
      resolve();
    }).then(
      () => resolve(),
      (err: unknown) => (accepted ? late(err) : reject(err)),
    );
  });
}
