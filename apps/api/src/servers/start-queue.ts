import { planById, type ServerState } from '@spawnpoint/contracts';
import type { ServerRow } from '../db/rows.ts';

export interface QueuedStart {
  server: ServerRow;
  /** The state it left to wait (`offline` or `sleeping`), which it goes back to if it leaves the queue. */
  from: ServerState;
}

const priorityOf = (entry: QueuedStart) => planById(entry.server.planId)?.priority ?? 0;

/**
 * The start queue of each node: starts that found the node's running servers at capacity wait here, by their
 * plan's priority and then first come first served, and start as soon as a slot frees (PowerDispatcher).
 * Positions count from 1.
 */
export class StartQueue {
  private lines = new Map<string, QueuedStart[]>();

  constructor(
    /** Starts that may wait on one node; one more is refused with NO_SERVERS_AVAILABLE. */
    readonly maxPerNode: number,
  ) {}

  has(serverId: string): boolean {
    for (const line of this.lines.values()) if (line.some((e) => e.server.id === serverId)) return true;
    return false;
  }

  length(nodeId: string): number {
    return this.lines.get(nodeId)?.length ?? 0;
  }

  /**
   * Adds a start to its node's line, after every start of its plan's priority or a higher one (so a paid
   * plan's server passes free ones, and servers of one priority keep their order); false when the line is full.
   */
  add(entry: QueuedStart): boolean {
    const line = this.lines.get(entry.server.nodeId) ?? [];
    if (line.length >= this.maxPerNode) return false;
    const at = line.findIndex((waiting) => priorityOf(waiting) < priorityOf(entry));
    if (at < 0) line.push(entry);
    else line.splice(at, 0, entry);
    this.lines.set(entry.server.nodeId, line);
    return true;
  }

  /** Takes a server out of the queue; what it was, or undefined when it was not waiting. */
  remove(serverId: string): QueuedStart | undefined {
    for (const [nodeId, line] of this.lines) {
      const index = line.findIndex((e) => e.server.id === serverId);
      if (index < 0) continue;
      const [entry] = line.splice(index, 1);
      if (line.length === 0) this.lines.delete(nodeId);
      return entry;
    }
    return undefined;
  }

  /** The first start waiting on a node, taken out of the line. */
  shift(nodeId: string): QueuedStart | undefined {
    const line = this.lines.get(nodeId);
    const entry = line?.shift();
    if (line?.length === 0) this.lines.delete(nodeId);
    return entry;
  }

  /** 1 for the next to start; null when the server does not wait. */
  positionOf(serverId: string): number | null {
    for (const line of this.lines.values()) {
      const index = line.findIndex((e) => e.server.id === serverId);
      if (index >= 0) return index + 1;
    }
    return null;
  }

  /** Nodes with starts waiting. */
  nodesWaiting(): string[] {
    return [...this.lines.keys()];
  }

  /** The servers waiting on a node, in order. */
  waitingOn(nodeId: string): string[] {
    return (this.lines.get(nodeId) ?? []).map((e) => e.server.id);
  }
}
