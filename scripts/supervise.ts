/**
 * Keeps one child process running: a child that exits when nobody asked it to is started again after a
 * back-off (1 s, doubling up to 30 s; back to 1 s once it had run 60 s), with one log line each time.
 */
import type { ChildProcess } from 'node:child_process';

export interface BackOff {
  firstMs: number;
  maxMs: number;
  /** A child that ran at least this long before exiting counts as healthy: the back-off starts over. */
  healthyMs: number;
}

export const defaultBackOff: BackOff = { firstMs: 1_000, maxMs: 30_000, healthyMs: 60_000 };

/** The wait before the next start, given the previous wait (null: none yet) and how long the child ran. */
export function nextDelay(previousMs: number | null, ranMs: number, backOff: BackOff = defaultBackOff): number {
  if (previousMs === null || ranMs >= backOff.healthyMs) return backOff.firstMs;
  return Math.min(previousMs * 2, backOff.maxMs);
}

export interface Supervised {
  /** Stops for good: no more restarts; the running child gets `signal` and this resolves when it has exited. */
  stop(signal: NodeJS.Signals): Promise<void>;
}

export function supervise(
  name: string,
  start: () => ChildProcess,
  options: {
    backOff?: BackOff;
    log?: (line: string) => void;
    /** Exit codes that mean "starting again would change nothing" (a port that cannot be bound): not restarted. */
    finalExitCodes?: readonly number[];
  } = {},
): Supervised {
  const backOff = options.backOff ?? defaultBackOff;
  const log = options.log ?? ((line: string) => console.error(line));
  let child: ChildProcess | null = null;
  let delay: number | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopping = false;

  const launch = () => {
    timer = null;
    const startedAt = Date.now();
    const current = start();
    child = current;
    let ended = false;
    const onEnd = (how: string, code: number | null = null) => {
      if (ended) return;
      ended = true;
      child = null;
      if (stopping) return;
      if (code !== null && options.finalExitCodes?.includes(code)) {
        log(`${name} exited (code ${code}) and is not started again; the rest keeps running.`);
        return;
      }
      const ranMs = Date.now() - startedAt;
      delay = nextDelay(delay, ranMs, backOff);
      log(`${name} exited (${how}) after ${(ranMs / 1000).toFixed(1)} s; starting it again in ${delay / 1000} s.`);
      timer = setTimeout(launch, delay);
    };
    current.once('exit', (code, signal) => onEnd(signal ?? `code ${code}`, code));
    // A child that could not be started at all emits 'error' and no 'exit'.
    current.on('error', (err) => current.pid === undefined && onEnd(err.message));
  };
  launch();

  return {
    stop(signal) {
      stopping = true;
      if (timer) clearTimeout(timer);
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return Promise.resolve();
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill(signal);
      return exited;
    },
  };
}
