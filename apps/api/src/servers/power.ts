import { FREE_DISK_MB, powerPreconditions, type AgentServerSpec, type PowerAction, type SoftwareId } from '@spawnpoint/contracts';
import { ApiError } from '../http/errors.ts';
import type { NodeRegistry } from '../nodes.ts';
import type { ServerHub } from '../server-hub.ts';
import type { ServerRow } from './server-creator.ts';

export function specOf(server: ServerRow): AgentServerSpec {
  return {
    serverId: server.id,
    software: server.software as SoftwareId,
    version: server.version,
    port: server.port,
    memoryMb: server.memoryMb,
    diskMb: FREE_DISK_MB,
    maxPlayers: server.maxPlayers,
    motd: `${server.name} on Spawnpoint`,
  };
}

/**
 * The one entry point for power actions: one action per server at a time, each checked against the
 * server's state first (409 INVALID_STATE). Kill is always allowed and does not wait in line.
 * Both the owner's Start and a player joining a stopped server through the join proxy (proxy-gateway.ts)
 * start through `run`, so every rule of starting belongs here.
 */
export class PowerDispatcher {
  private lines = new Map<string, Promise<unknown>>();

  constructor(
    private nodes: NodeRegistry,
    private hub: ServerHub,
    /** Before a start: the row to start, moved to a free port if another program took its port. */
    private preparePort: (server: ServerRow) => Promise<ServerRow> = async (server) => server,
    /** Told when a start moved the server (caches of its row are stale). */
    private onMoved: (server: ServerRow) => void = () => undefined,
  ) {}

  run(server: ServerRow, action: PowerAction): Promise<void> {
    if (action === 'kill') return this.execute(server, action);
    return this.inLine(server.id, () => this.execute(server, action));
  }

  /**
   * Runs `work` holding the server's line for its whole run (a restore: stop, swap the folder, start), so
   * no other power action slips in between its steps. `work` acts through the function it is given,
   * which skips the line it already holds. Kill still passes.
   */
  exclusive<T>(server: ServerRow, work: (act: (action: PowerAction) => Promise<void>) => Promise<T>): Promise<T> {
    return this.inLine(server.id, () => work((action) => this.execute(server, action)));
  }

  private inLine<T>(serverId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.lines.get(serverId) ?? Promise.resolve();
    const next = previous.then(work);
    const tail = next.catch(() => undefined);
    this.lines.set(serverId, tail);
    void tail.then(() => {
      if (this.lines.get(serverId) === tail) this.lines.delete(serverId);
    });
    return next;
  }

  private async execute(server: ServerRow, action: PowerAction): Promise<void> {
    const state = this.hub.stateOf(server.id);
    const allowed = powerPreconditions[action];
    if (allowed !== 'any' && !allowed.includes(state)) {
      throw new ApiError('INVALID_STATE', undefined, `Cannot ${action} the server while it is ${state.replace('_', ' ')}.`);
    }
    if (!this.nodes.isConnected(server.nodeId)) throw new ApiError('NODE_UNAVAILABLE');
    if (action === 'start') {
      // The node is there but has no room for one more running server: that one is "at capacity".
      const capacity = this.nodes.config(server.nodeId)?.capacity ?? 0;
      if (this.hub.activeOn(server.nodeId) >= capacity) throw new ApiError('NO_SERVERS_AVAILABLE');
      this.hub.setState(server.id, 'queued');
      try {
        const prepared = await this.preparePort(server);
        if (prepared.port !== server.port) this.onMoved(prepared);
        this.hub.recordMaxPlayers(server.id, await this.nodes.install(server.nodeId, specOf(prepared)));
      } catch (err) {
        this.hub.setState(server.id, 'offline');
        throw err;
      }
    }
    try {
      await this.nodes.power(server.nodeId, server.id, action);
    } catch (err) {
      if (action === 'start' && this.hub.stateOf(server.id) === 'queued') this.hub.setState(server.id, 'offline');
      throw err;
    }
  }
}
