import { isJavaSoftware, javaMajorFor } from '@spawnpoint/contracts';
import { ApiError } from '../http/errors.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { ServerHub } from '../server-hub.ts';
import type { ServerRow } from '../db/rows.ts';

/**
 * Where servers run: the one seam between the control plane and the machines (docs/scaling.md). Today's
 * driver places on the agents connected to this API; another (Kubernetes, say) implements the same two
 * questions and nothing in the routes changes.
 */
export interface Placement {
  /**
   * The node a new server goes to. `placed`: servers per node (all of them, running or not); `draining`:
   * nodes the operator drains. INVALID_INPUT when no node has the Java the version needs,
   * NO_SERVERS_AVAILABLE when no node is connected.
   */
  forNewServer(input: { placed: Map<string, number>; javaNeeded: number | null; draining: Set<string> }): string;
  /**
   * The node a server whose folder waits in shared storage wakes on: its last node when that can take it
   * now, else the least busy node with a free slot that names the same storage, else one of those to wait
   * in the start queue of (its last node first). Null when no connected node reaches its storage.
   */
  forWake(server: ServerRow, draining: Set<string>): string | null;
}

/** Places on the agents connected to this API process (`AGENTS`). */
export function agentPlacement(nodes: NodeRegistry, hub: ServerHub): Placement {
  // A node that has not said which Java it has is not held against it: its start says what is missing.
  const hasJava = (nodeId: string, needed: number | null) => {
    if (needed === null) return true;
    const javas = nodes.javaMajorsOf(nodeId);
    return javas === null || javas.some((j) => j >= needed);
  };
  const full = (nodeId: string) => hub.activeOn(nodeId) >= (nodes.config(nodeId)?.capacity ?? 0);
  return {
    forNewServer({ placed, javaNeeded, draining }) {
      // A node the operator drains takes no new server.
      const connected = nodes.connectedIds().filter((id) => !draining.has(id));
      const able = connected.filter((id) => hasJava(id, javaNeeded));
      if (connected.length > 0 && able.length === 0)
        throw new ApiError('INVALID_INPUT', {
          version: `No node can run this version yet (it needs Java ${javaNeeded ?? ''}). Choose another.`,
        });
      // A free running slot first, then the fewest servers; a full node still takes new servers (their
      // start waits in its start queue).
      const chosen = able
        .map((id) => ({ id, used: placed.get(id) ?? 0, full: full(id) }))
        .sort((a, b) => Number(a.full) - Number(b.full) || a.used - b.used)[0];
      if (!chosen) throw new ApiError('NO_SERVERS_AVAILABLE');
      return chosen.id;
    },
    forWake(server, draining) {
      const javaNeeded = isJavaSoftware(server.software) ? javaMajorFor(server.version) : null;
      const able = nodes
        .connectedIds()
        .filter(
          (id) => !draining.has(id) && server.storedIn !== null && nodes.storageOf(id) === server.storedIn && hasJava(id, javaNeeded),
        );
      if (able.length === 0) return null;
      if (able.includes(server.nodeId) && !full(server.nodeId)) return server.nodeId;
      const withRoom = able.filter((id) => !full(id)).sort((a, b) => hub.activeOn(a) - hub.activeOn(b));
      return withRoom[0] ?? (able.includes(server.nodeId) ? server.nodeId : (able[0] as string));
    },
  };
}
