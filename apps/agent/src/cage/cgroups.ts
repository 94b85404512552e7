/**
 * Resource limits of game processes: one control group per running server, with a memory limit, a CPU
 * weight and a process limit. cgroup v2 where the node has the unified hierarchy, cgroup v1 (the memory,
 * cpu and pids controllers) where it has only that. This module is the only code that touches
 * /sys/fs/cgroup; the cage (cage.ts) puts the game into the group before it runs (see `procsFiles`).
 */
import { createHash } from 'node:crypto';
import { readFile, mkdir, rmdir, writeFile, access, constants } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';

/** Processes and threads one game server may have at once (a Java server uses 50–300 threads). */
export const GAME_PIDS_MAX = 1024;

export interface GameLimits {
  memoryBytes: number;
  /** Relative CPU share: a server with twice the weight gets twice the CPU time when the node is busy. */
  cpuWeight: number;
  pidsMax: number;
}

/** The plan's memory is the limit; the CPU share follows it (1 GiB of memory ≈ the default share). */
export function limitsOf(memoryMb: number): GameLimits {
  return {
    memoryBytes: memoryMb * 1024 * 1024,
    cpuWeight: Math.max(1, Math.min(10_000, Math.round(memoryMb / 10))),
    pidsMax: GAME_PIDS_MAX,
  };
}

/** The heap a game may use inside its memory limit: the rest is for the runtime itself (threads, code, buffers). */
export function heapMb(memoryMb: number): number {
  return Math.max(64, memoryMb - Math.max(64, Math.round(memoryMb * 0.25)));
}

/** Where a group's own figures are read (the dashboard's memory and CPU of a caged server). */
export interface UsageFiles {
  version: 1 | 2;
  /** The memory controller's folder of the group. */
  memoryDir: string;
  /** v1: cpuacct.usage (nanoseconds), v2: cpu.stat (`usage_usec`); null where v1 has no cpuacct hierarchy. */
  cpuFile: string | null;
}

/** What a group's processes use together: memory without the page cache they could give back, and CPU time. */
export interface GroupUsage {
  memoryBytes: number;
  /** CPU time of every process the group ever held, in nanoseconds; null when the node does not count it. */
  cpuNs: number | null;
}

/** One server's group: a folder per v1 hierarchy (memory, cpu, pids, and cpuacct where mounted apart), or one folder in v2. */
export interface ServerGroup {
  dirs: string[];
  /** The files a process writes its pid into to join the group (before it runs the game). */
  procsFiles: string[];
  /** The file whose `oom_kill N` line counts the kernel's out-of-memory kills in this group. */
  oomFile: string;
  usage: UsageFiles;
}

export interface Cgroups {
  version: 1 | 2;
  /** Creates (or reuses) the group of a server and writes its limits. */
  create(serverId: string, limits: GameLimits): Promise<ServerGroup>;
}

const V1_CONTROLLERS = ['memory', 'cpu', 'pids'] as const;

async function writable(file: string): Promise<boolean> {
  return access(file, constants.W_OK).then(
    () => true,
    () => false,
  );
}

/** How many times the OOM killer ended a process of a group: "oom_kill N" of memory.oom_control (v1) or memory.events (v2). */
export async function oomKills(file: string): Promise<number> {
  return statField(file, 'oom_kill').catch(() => 0);
}

/** A `key N` line of a cgroup's flat-keyed file (memory.stat, cpu.stat, memory.events…), 0 when absent. */
async function statField(file: string, key: string): Promise<number> {
  const text = await readFile(file, 'utf8');
  const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

/**
 * Memory and CPU of every process in a server's group, read from the group itself (a game's children and
 * threads included, which the game's own pid would miss). Memory leaves out the inactive file cache the
 * kernel reclaims first, as `docker stats` does. Null once the group is gone.
 */
export async function readGroupUsage(files: UsageFiles): Promise<GroupUsage | null> {
  try {
    if (files.version === 1) {
      const used = Number(await readFile(path.join(files.memoryDir, 'memory.usage_in_bytes'), 'utf8'));
      const inactive = await statField(path.join(files.memoryDir, 'memory.stat'), 'total_inactive_file');
      const cpuNs = files.cpuFile ? Number(await readFile(files.cpuFile, 'utf8')) : null;
      return { memoryBytes: Math.max(0, used - inactive), cpuNs };
    }
    const used = Number(await readFile(path.join(files.memoryDir, 'memory.current'), 'utf8'));
    const inactive = await statField(path.join(files.memoryDir, 'memory.stat'), 'inactive_file');
    const cpuNs = files.cpuFile ? (await statField(files.cpuFile, 'usage_usec')) * 1000 : null;
    return { memoryBytes: Math.max(0, used - inactive), cpuNs };
  } catch {
    return null;
  }
}

/** The processes in a group now (none once it is gone). */
export async function groupPids(files: UsageFiles): Promise<number[]> {
  const text = await readFile(path.join(files.memoryDir, 'cgroup.procs'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => /^\d+$/.test(line))
    .map(Number);
}

/** Removes a group once it is empty (a group still in use stays, and is reused by the next start). */
export async function removeGroup(dirs: string[]): Promise<void> {
  // The agent's own level goes too once its last server's group is gone.
  await Promise.all(
    dirs.map((d) =>
      rmdir(d)
        .then(
          () => rmdir(path.dirname(d)),
          () => undefined,
        )
        .catch(() => undefined),
    ),
  );
}

/**
 * The groups of one agent live under `spawnpoint-<hash of its DATA_DIR>`, so two agents on one machine
 * (tests, or two nodes) never share a server's group, and a restarted agent finds its servers' groups again.
 */
export function groupName(dataDir: string): string {
  return `spawnpoint-${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 12)}`;
}

/**
 * Finds the cgroup controllers this agent may use, or says what is missing. v1 groups are created under
 * the agent's own group in each hierarchy (so limits an operator put on the agent's service also hold
 * its games); v2 groups under the root of the unified hierarchy, because a v2 group that holds a process
 * (the agent's own) cannot hand controllers to children.
 */
export async function detectCgroups(
  dataDir: string,
  root = '/sys/fs/cgroup',
  selfCgroup = '/proc/self/cgroup',
): Promise<Cgroups | { missing: string }> {
  const name = groupName(dataDir);
  const controllers = await readFile(path.join(root, 'cgroup.controllers'), 'utf8').catch(() => null);
  if (controllers !== null) {
    const have = controllers.trim().split(/\s+/);
    const lacking = ['memory', 'cpu', 'pids'].filter((c) => !have.includes(c));
    if (lacking.length) return { missing: `the cgroup v2 controllers ${lacking.join(', ')} are not available in ${root}` };
    if (!(await writable(path.join(root, 'cgroup.subtree_control')))) return { missing: `${root} is not writable (run the agent as root)` };
    return v2(path.join(root, name), root);
  }
  const self = await readFile(selfCgroup, 'utf8').catch(() => '');
  /** The agent's own group in a v1 hierarchy, then ours under it; null when the controller is not mounted. */
  const baseOf = async (controller: string): Promise<string | null> => {
    // "4:memory:/some/path" or "2:cpu,cpuacct:/path"
    const line = self.split('\n').find((l) => l.split(':')[1]?.split(',').includes(controller));
    const own = line ? line.slice(line.indexOf(':', line.indexOf(':') + 1) + 1) : '/';
    const mount = await findV1Mount(root, controller);
    return mount ? path.join(mount, own) : null;
  };
  const dirs: Record<string, string> = {};
  for (const controller of V1_CONTROLLERS) {
    const base = await baseOf(controller);
    if (!base) return { missing: `the cgroup v1 ${controller} controller is not mounted under ${root}` };
    if (!(await writable(base))) return { missing: `${base} is not writable (run the agent as root)` };
    dirs[controller] = path.join(base, name);
  }
  // CPU time is counted by cpuacct (usually mounted with cpu; here and there on its own): only for the
  // dashboard's figure, so a node without it still runs games, with the CPU read from the game's process.
  const cpuacct = await baseOf('cpuacct');
  const accounting = cpuacct && (await writable(cpuacct)) ? path.join(cpuacct, name) : null;
  return v1(dirs as Record<(typeof V1_CONTROLLERS)[number], string>, accounting);
}

async function findV1Mount(root: string, controller: string): Promise<string | null> {
  const candidates = [controller, 'cpu,cpuacct', 'cpuacct,cpu'];
  for (const c of candidates) {
    if (!c.split(',').includes(controller)) continue;
    const dir = path.join(root, c);
    if (
      await access(path.join(dir, 'cgroup.procs')).then(
        () => true,
        () => false,
      )
    )
      return dir;
  }
  return null;
}

function v1(bases: Record<(typeof V1_CONTROLLERS)[number], string>, cpuacct: string | null): Cgroups {
  const group = (serverId: string): ServerGroup => {
    const limited = V1_CONTROLLERS.map((c) => path.join(bases[c], serverId));
    const accounting = cpuacct ? path.join(cpuacct, serverId) : null;
    // Where cpu and cpuacct share a hierarchy, the group is already one of the folders.
    const dirs = accounting && !limited.includes(accounting) ? [...limited, accounting] : limited;
    return {
      dirs,
      procsFiles: dirs.map((d) => path.join(d, 'cgroup.procs')),
      oomFile: path.join(bases.memory, serverId, 'memory.oom_control'),
      usage: {
        version: 1,
        memoryDir: path.join(bases.memory, serverId),
        cpuFile: accounting ? path.join(accounting, 'cpuacct.usage') : null,
      },
    };
  };
  return {
    version: 1,
    async create(serverId, limits) {
      const g = group(serverId);
      await Promise.all(g.dirs.map((d) => mkdir(d, { recursive: true })));
      const [memory, cpu, pids] = g.dirs as [string, string, string, ...string[]];
      const bytes = String(limits.memoryBytes);
      // memsw (memory + swap) is raised after, and lowered before, the memory limit; equal means no swap.
      const memsw = path.join(memory, 'memory.memsw.limit_in_bytes');
      const hasMemsw = await writable(memsw);
      if (hasMemsw) await writeFile(memsw, '-1').catch(() => undefined);
      await writeFile(path.join(memory, 'memory.limit_in_bytes'), bytes);
      if (hasMemsw) await writeFile(memsw, bytes);
      // v1 shares: 1024 is the default of every other group, as 100 is v2's weight.
      await writeFile(path.join(cpu, 'cpu.shares'), String(Math.max(2, Math.round((limits.cpuWeight * 1024) / 100))));
      // The agent's level holds every game of the node and competes with the node's own tasks as one: at the
      // default 1,024 all games together would weigh as one busy thread against the agent's. One per core:
      // the games may fill the machine while the node's services keep a share.
      await writeFile(path.join(path.dirname(cpu), 'cpu.shares'), String(1024 * availableParallelism()));
      await writeFile(path.join(pids, 'pids.max'), String(limits.pidsMax));
      return g;
    },
  };
}

function v2(base: string, root: string): Cgroups {
  const group = (serverId: string): ServerGroup => {
    const dir = path.join(base, serverId);
    return {
      dirs: [dir],
      procsFiles: [path.join(dir, 'cgroup.procs')],
      oomFile: path.join(dir, 'memory.events'),
      usage: { version: 2, memoryDir: dir, cpuFile: path.join(dir, 'cpu.stat') },
    };
  };
  return {
    version: 2,
    async create(serverId, limits) {
      const g = group(serverId);
      await mkdir(g.dirs[0] as string, { recursive: true });
      // Controllers are handed down level by level: the root, then the agent's group.
      for (const parent of [root, base]) await writeFile(path.join(parent, 'cgroup.subtree_control'), '+memory +cpu +pids');
      // As in v1: all games together weigh one default share per core against the node's own groups.
      await writeFile(path.join(base, 'cpu.weight'), String(100 * availableParallelism()));
      const dir = g.dirs[0] as string;
      await writeFile(path.join(dir, 'memory.max'), String(limits.memoryBytes));
      await writeFile(path.join(dir, 'memory.swap.max'), '0').catch(() => undefined);
      await writeFile(path.join(dir, 'cpu.weight'), String(limits.cpuWeight));
      await writeFile(path.join(dir, 'pids.max'), String(limits.pidsMax));
      return g;
    },
  };
}
