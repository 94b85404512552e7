import type { ServerState } from '@spawnpoint/contracts';

/** What a node's report means once the API's own knowledge is applied (HeldStates.meaning). */
export type ReportMeaning = { set: ServerState } | { hold: 'sleeping' } | 'keep';

/**
 * The states the API decides, which a node does not know (to it a server is simply running or not):
 * `sleeping` and `queued` (and a folder on its way to or from storage) are held, so the node's "offline" does
 * not end them; a stop because nobody plays ends in `sleeping`; a start from sleep shows `waking`.
 */
export class HeldStates {
  private readonly held = new Map<string, ServerState>();
  // Servers being stopped because nobody plays: their "offline" is `sleeping`.
  private readonly toSleep = new Set<string>();
  // Servers started from `sleeping`: their node's "starting" is `waking`.
  private readonly wakingUp = new Set<string>();

  hold(serverId: string, state: ServerState): void {
    this.held.set(serverId, state);
  }

  /** Ends a held state (the server leaves the queue to start now). */
  release(serverId: string): void {
    this.held.delete(serverId);
  }

  /** The server's state became `state`: a held state other than that one ends. */
  changed(serverId: string, state: ServerState): void {
    if (this.held.get(serverId) !== state) this.held.delete(serverId);
  }

  sleepWhenStopped(serverId: string, sleep: boolean): void {
    if (sleep) this.toSleep.add(serverId);
    else this.toSleep.delete(serverId);
  }

  waking(serverId: string): void {
    this.wakingUp.add(serverId);
  }

  /** What `reported` by the node means for a server shown as `current`. */
  meaning(serverId: string, reported: ServerState, current: ServerState | undefined): ReportMeaning {
    if (reported === 'offline') {
      this.wakingUp.delete(serverId);
      if (this.toSleep.delete(serverId)) return { hold: 'sleeping' };
      const held = this.held.get(serverId);
      if (held && current === held) return 'keep';
    } else if (reported === 'starting' && this.wakingUp.has(serverId)) {
      return { set: 'waking' };
    } else if (reported !== 'starting') {
      this.wakingUp.delete(serverId);
    }
    return { set: reported };
  }

  forget(serverId: string): void {
    this.held.delete(serverId);
    this.toSleep.delete(serverId);
    this.wakingUp.delete(serverId);
  }

  clear(): void {
    this.held.clear();
    this.toSleep.clear();
    this.wakingUp.clear();
  }
}
