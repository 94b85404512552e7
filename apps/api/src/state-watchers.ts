import type { ServerState } from '@spawnpoint/contracts';

type Watcher = (serverId: string, state: ServerState) => void;

/** Who hears of servers' state changes: listeners for good (the join proxies' routing table), waiters once. */
export class StateWatchers {
  private readonly waiters = new Set<Watcher>();
  private readonly listeners = new Set<Watcher>();

  listen(listener: Watcher): void {
    this.listeners.add(listener);
  }

  stopListening(listener: Watcher): void {
    this.listeners.delete(listener);
  }

  /** Resolves once the server's state passes `ok` (`current` is its state now); false after `timeoutMs`. */
  wait(serverId: string, current: ServerState, ok: (state: ServerState) => boolean, timeoutMs: number): Promise<boolean> {
    if (ok(current)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = (id: string, state: ServerState) => {
        if (id !== serverId || !ok(state)) return;
        done(true);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      const done = (result: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(result);
      };
      this.waiters.add(waiter);
    });
  }

  /** A server's state changed: waiters first, then listeners. */
  tell(serverId: string, state: ServerState): void {
    for (const waiter of [...this.waiters]) waiter(serverId, state);
    for (const listener of this.listeners) listener(serverId, state);
  }
}
