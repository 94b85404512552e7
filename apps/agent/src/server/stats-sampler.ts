import { PLAYER_NAME_SHOWN_MAX, PLAYERS_LISTED_MAX, type AgentServerSpec, type ServerState, type ServerStats } from '@spawnpoint/contracts';
import minecraftProtocol from 'minecraft-protocol';
import pidusage from 'pidusage';
import type { GroupUsage } from '../cage/cgroups.ts';
import type { Sandbox } from '../files/sandbox.ts';

const STATS_EVERY_MS = 2000;
/**
 * A running game's folder is measured this often, so one that passes its quota is stopped within seconds;
 * a folder whose walk takes longer is measured less often (at most a twentieth of the agent's time).
 */
const DISK_EVERY_MS = 5_000;
const DISK_WALK_SHARE = 20;
/** However slow the walk (a folder of millions of empty files costs no quota), the gap never grows past this. */
const DISK_EVERY_MAX_MS = 30_000;

/** What the sampler reads of its server, each time it samples. */
export interface SampledServer {
  spec(): AgentServerSpec;
  pid(): number | undefined;
  /** The game's control group's figures, when it has one (caged with cgroups). */
  usage(): Promise<GroupUsage | null>;
  state(): ServerState;
  sandbox(): Promise<Sandbox>;
  /** The folder measured more than its quota while the game runs. */
  overQuota(bytes: number, quotaBytes: number): void;
  /** The node's free disk above its reserve (negative below it), read now: after the walk, so it counts what the walk saw. */
  nodeRoom(): Promise<number>;
  /** The node's disk is below its reserve and this game's folder grew. */
  nodeDiskFull(): void;
}

/**
 * Samples a running server every 2 s: CPU and memory of its process, its folder's size (every 30 s, which
 * also refreshes the quota figure: the game writes outside the file manager) and its players (a status
 * ping, as a client's server list does).
 */
export class StatsSampler {
  private timer: NodeJS.Timeout | null = null;
  private disk = 0;
  private lastDisk = 0;
  private diskEveryMs = DISK_EVERY_MS;
  private players: string[] = [];
  /** The group's CPU time at the previous sample, for the share of the 2 s since. */
  private lastCpu: { ns: number; at: bigint } | null = null;

  constructor(
    private readonly server: SampledServer,
    private readonly emit: (stats: ServerStats) => void,
  ) {}

  start(): void {
    this.stop();
    this.timer = setInterval(() => void this.sample(), STATS_EVERY_MS);
  }

  /** Stops sampling; the players are forgotten with the process. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.players = [];
    this.lastCpu = null;
  }

  /** The names of the players online, as the last status ping listed them. */
  onlinePlayers(): string[] {
    return [...this.players];
  }

  private async sample(): Promise<void> {
    const pid = this.server.pid();
    if (!pid) return;
    // A caged game is measured as its whole group (children and every thread included).
    const group = await this.server.usage();
    let cpu: number;
    let memory: number;
    if (group && group.cpuNs !== null) {
      cpu = this.groupCpu(group.cpuNs);
      memory = group.memoryBytes;
    } else {
      try {
        const usage = await pidusage(pid);
        cpu = Math.round(usage.cpu * 10) / 10;
        memory = group ? group.memoryBytes : usage.memory;
      } catch {
        return;
      }
    }
    if (Date.now() - this.lastDisk > this.diskEveryMs) await this.measureDisk();
    const spec = this.server.spec();
    let players = { online: this.players.length, max: spec.maxPlayers, list: this.players };
    if (this.server.state() === 'online') {
      players = await pingPlayers(spec.port, spec.maxPlayers).catch(() => players);
      this.players = players.list;
    }
    this.emit({ cpu, memory, disk: this.disk, players });
  }

  private async measureDisk(): Promise<void> {
    const began = Date.now();
    this.lastDisk = began;
    const sandbox = await this.server.sandbox().catch(() => null);
    if (!sandbox) return;
    const before = this.disk;
    this.disk = await sandbox.measure().catch(() => this.disk);
    this.diskEveryMs = Math.min(DISK_EVERY_MAX_MS, Math.max(DISK_EVERY_MS, (Date.now() - began) * DISK_WALK_SHARE));
    if (this.server.state() === 'stopping') return;
    if (this.disk > sandbox.quotaBytes) this.server.overQuota(this.disk, sandbox.quotaBytes);
    // Below the node's reserve, a game still writing is stopped (one that only reads keeps playing).
    else if (this.disk > before && (await this.server.nodeRoom()) < 0) this.server.nodeDiskFull();
  }

  /** Percent of one core since the previous sample (100 = one core busy), as pidusage reports it; 0 on the first. */
  private groupCpu(ns: number): number {
    const at = process.hrtime.bigint();
    const last = this.lastCpu;
    this.lastCpu = { ns, at };
    if (!last || ns < last.ns) return 0;
    const elapsed = Number(at - last.at);
    return elapsed > 0 ? Math.round(((ns - last.ns) / elapsed) * 1000) / 10 : 0;
  }
}

/**
 * minecraft-protocol loads its protocol data synchronously on the first ping (≈ 300 ms here). The agent
 * pays that once at start, not in the middle of a busy server's console stream.
 */
export async function warmUpPing(): Promise<void> {
  await minecraftProtocol.ping({ host: '127.0.0.1', port: 1, closeTimeout: 500 }).catch(() => undefined);
}

/**
 * The players a server's own status ping names. The game (the tenant's code) writes that answer, so nothing
 * in it is trusted: numbers that are not, a sample that is not a list, names that are not text, a sample of
 * any size — only what fits the stats' contract goes on (so every stats event the API gets is one it takes).
 */
export async function pingPlayers(port: number, max: number) {
  const response = (await minecraftProtocol.ping({ host: '127.0.0.1', port, closeTimeout: 2000 })) as {
    players?: { online?: unknown; max?: unknown; sample?: unknown };
  };
  const count = (value: unknown, fallback: number) =>
    Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : fallback;
  const sample = Array.isArray(response.players?.sample) ? (response.players.sample as unknown[]) : [];
  return {
    online: count(response.players?.online, 0),
    max: count(response.players?.max, max),
    list: sample
      .map((p) => (p as { name?: unknown } | null)?.name)
      .filter((name): name is string => typeof name === 'string')
      .slice(0, PLAYERS_LISTED_MAX)
      .map((name) => name.slice(0, PLAYER_NAME_SHOWN_MAX)),
  };
}
