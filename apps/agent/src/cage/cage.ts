/**
 * The cage every game process runs in (bubblewrap): its own mount, PID, IPC and UTS namespaces; the
 * server folder read-write at /server as its working directory; the system's programs and libraries
 * (/usr and the like), a few files of /etc and what its plan names (launcher, packages, jar) read-only;
 * a private /tmp; a new /proc that shows only its own processes; an environment of its own. Nothing else
 * of the node is mounted: not DATA_DIR, not the other servers, not the agent's files. When the agent runs
 * as root, the game runs as the unprivileged `spawnpoint-game` user; and it is put in a control group with
 * the plan's limits (cgroups.ts) before it starts. See docs/security.md, "The cage".
 */
import { execFile } from 'node:child_process';
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  bwrapArgs,
  CAGE_SERVER_DIR,
  cageWrapper,
  CGROUP_NAMESPACES,
  NSENTER,
  ownFolder,
  SECCOMP,
  systemMounts,
  within,
  type GameUser,
} from './bwrap-command.ts';
import { detectCgroups, limitsOf, oomKills, removeGroup, type Cgroups } from './cgroups.ts';
import { adoptDetached, launchDetached, type EndInspector, type GroupRecord } from '../server/detached-process.ts';
import { NETNS_DIR, prepareGameNetwork, type GameNetwork, type GameNetworkOptions } from './game-network.ts';
import { LaunchRefused } from '../runtimes/game-settings.ts';
import { nodeSizesHeapFromGroup, withHeapFlag, type LaunchPlan, type RuntimeProcess } from '../runtimes/types.ts';

export { CAGE_OPEN_FILES, CAGE_SERVER_DIR, CAGE_TMP_BYTES } from './bwrap-command.ts';
const run = promisify(execFile);

const INSTALL_HINT = 'Install it with `apt-get install bubblewrap` (Debian, Ubuntu) or `dnf install bubblewrap`.';

export interface CageOptions {
  dataDir: string;
  /** NODE_ENV=production: no bubblewrap or no cgroups means no game server starts. */
  production: boolean;
  /** ALLOW_UNCAGED_GAMES: outside production, run games without the cage when bubblewrap is missing. */
  allowUncaged: boolean;
  /** The unprivileged user games run as when the agent is root. */
  gameUser: string;
  /** Each game's own network (game-network.ts); without it (not root, no nftables) games share the node's. */
  network: GameNetworkOptions;
}

export interface CagedServer {
  serverId: string;
  /** The server folder on the node. */
  dir: string;
  runDir: string;
  memoryMb: number;
  /** The game's port on the node, forwarded into its own network. */
  port: number;
}

export interface GameCage {
  /** `caged`: bubblewrap; `uncaged`: the operator allowed running without it (development only). */
  readonly mode: 'caged' | 'uncaged';
  /** Why no game server may start on this node, or null. */
  readonly refusal: string | null;
  /** Said in a server's console at every start when the node lacks part of the cage, or null. */
  readonly warning: string | null;
  /** One line for the agent's log. */
  readonly summary: string;
  /**
   * The address the game listens on inside its own network (every address: only its port is forwarded to
   * it), or null when it shares the node's network and listens on GAME_BIND_HOST.
   */
  readonly gameBindHost: string | null;
  launch(plan: LaunchPlan, server: CagedServer): Promise<RuntimeProcess>;
  adopt(runDir: string): Promise<RuntimeProcess | null>;
}

async function commandPath(name: string): Promise<string | null> {
  for (const dir of ['/usr/bin', '/bin', '/usr/local/bin', '/usr/sbin']) {
    const candidate = path.join(dir, name);
    if (
      await lstat(candidate).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return null;
}

/** The user games run as, created (a system user without a home or login shell) when missing. */
async function ensureGameUser(name: string): Promise<GameUser> {
  const lookup = async () => {
    const { stdout } = await run('getent', ['passwd', name]);
    const [, , uid, gid] = stdout.trim().split(':');
    return { uid: Number(uid), gid: Number(gid) };
  };
  try {
    return await lookup();
  } catch {
    await run('useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      name,
    ]);
    return lookup();
  }
}

/** Checks the node once at agent start and says what the cage will be. */
export async function prepareCage(options: CageOptions): Promise<GameCage> {
  const root = process.getuid?.() === 0;
  const bwrap = await commandPath('bwrap');
  let problem: string | null = null;
  let system: string[] = [];
  let user: GameUser | null = null;
  if (!bwrap) problem = `bubblewrap (bwrap) is not installed. ${INSTALL_HINT}`;
  else {
    system = await systemMounts();
    // A real cage around `true`: user namespaces switched off or a kernel without them show up here.
    const probe = [
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      ...(root ? [] : ['--unshare-user']),
      ...system,
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--',
      '/usr/bin/true',
    ];
    try {
      await run(bwrap, probe, { env: {} });
    } catch (err) {
      const stderr = (err as { stderr?: string }).stderr?.trim();
      problem = `bubblewrap (${bwrap}) cannot make a cage on this node: ${stderr || (err instanceof Error ? err.message : String(err))}. ${
        root ? '' : 'Unprivileged user namespaces must be enabled (kernel.unprivileged_userns_clone=1), or run the agent as root.'
      }`.trim();
    }
    if (!problem && root) {
      if (!(await commandPath('setpriv'))) problem = 'setpriv (Debian package util-linux) is not installed.';
      else {
        try {
          user = await ensureGameUser(options.gameUser);
        } catch (err) {
          problem = `the user ${options.gameUser} does not exist and could not be created: ${err instanceof Error ? err.message : String(err)}`;
        }
      }
    }
  }

  if (problem) {
    if (options.production || !options.allowUncaged) {
      const refusal = `Game servers cannot start on this node: ${problem}${
        options.production ? '' : ' For development only, ALLOW_UNCAGED_GAMES=true runs them without the cage.'
      }`;
      return uncaged(refusal, null, refusal);
    }
    const warning = `WARNING: this server runs WITHOUT the cage (${problem}). It can read the node's files and other servers' folders. Never serve strangers like this.`;
    return uncaged(null, warning, `game servers run WITHOUT the cage: ${problem}`);
  }

  const cgroups = await detectCgroups(options.dataDir);
  let limits: Cgroups | null = null;
  let warning: string | null = null;
  if ('missing' in cgroups) {
    if (options.production)
      return uncaged(
        `Game servers cannot start on this node: no resource limits, because ${cgroups.missing}.`,
        null,
        `no game server may start: ${cgroups.missing}`,
      );
    warning = `WARNING: this server runs without memory, CPU and process limits (${cgroups.missing}).`;
  } else limits = cgroups;

  const network = await prepareGameNetwork(options.network);
  if ('problem' in network) {
    if (options.production)
      return uncaged(
        `Game servers cannot start on this node: they cannot have a network of their own, because ${network.problem}.`,
        null,
        `no game server may start: ${network.problem}`,
      );
    const shared = `WARNING: this server shares the node's network (${network.problem}): it can reach the node's own services. Never serve strangers like this.`;
    warning = warning ? `${warning}\n${shared}` : shared;
  }
  return cagedWith({
    bwrap: bwrap as string,
    system,
    user,
    cgroups: limits,
    warning,
    dataDir: options.dataDir,
    network: 'problem' in network ? null : network,
  });
}

/** No cage at all, said at every start: only for a benchmark's comparison (AgentOptions.withoutCage). */
export function withoutCage(): GameCage {
  return uncaged(null, 'This server runs WITHOUT the cage (a benchmark comparison).', 'game servers run WITHOUT the cage (benchmark)');
}

function uncaged(refusal: string | null, warning: string | null, summary: string): GameCage {
  return {
    mode: 'uncaged',
    refusal,
    warning,
    summary,
    gameBindHost: null,
    async launch(plan, server) {
      if (refusal) throw new LaunchRefused(refusal);
      return launchDetached({ ...plan, args: withHeapFlag(plan) }, server.runDir);
    },
    adopt: (runDir) => adoptDetached(runDir),
  };
}

const inspect: EndInspector = async (group: GroupRecord | undefined) => {
  if (!group) return false;
  const kills = await oomKills(group.oomFile);
  await removeGroup(group.dirs);
  return kills > group.oomBaseline;
};

/** What a game's end leaves to tidy: its control group and its network. */
function endOf(network: GameNetwork | null, runDir: string): EndInspector {
  return async (group) => {
    const oom = await inspect(group);
    await network?.release(runDir).catch(() => undefined);
    return oom;
  };
}

interface CageParts {
  bwrap: string;
  system: string[];
  user: GameUser | null;
  cgroups: Cgroups | null;
  warning: string | null;
  dataDir: string;
  network: GameNetwork | null;
}

function cagedWith(parts: CageParts): GameCage {
  const { bwrap, system, user, cgroups, network } = parts;
  const dataDir = path.resolve(parts.dataDir);
  return {
    mode: 'caged',
    refusal: null,
    warning: parts.warning,
    summary: `game servers run in bubblewrap${user ? ` as uid ${user.uid}` : ' as the agent user in a user namespace'}, ${
      cgroups ? `with cgroup v${cgroups.version} limits` : 'WITHOUT resource limits'
    }, ${SECCOMP ? 'a seccomp filter' : `NO seccomp filter (none for ${process.arch})`}; ${network ? network.summary : "games share the node's network"}`,
    gameBindHost: network ? '0.0.0.0' : null,
    adopt: async (runDir) => {
      const proc = await adoptDetached(runDir, endOf(network, runDir));
      // Its game ended while no agent watched: what it left goes now.
      if (!proc) await network?.release(runDir).catch(() => undefined);
      return proc;
    },

    async launch(plan, server) {
      const readOnly: string[] = [];
      for (const p of plan.readOnly) {
        if (!path.isAbsolute(p)) throw new Error(`The cage mounts absolute paths only (${p}).`);
        // An install that put DATA_DIR inside the agent's own folders must not hand it to the game.
        if (within(dataDir, p))
          throw new LaunchRefused(`${p} holds DATA_DIR (${dataDir}), so it cannot be shown to a game. Move DATA_DIR elsewhere.`);
        readOnly.push('--ro-bind', p, p);
      }
      // The network, the group and the folder's owner do not depend on one another, and each costs a few
      // processes: they are made at once. Whatever was made goes again when one of them fails.
      const [leased, grouped, owned] = await Promise.allSettled([
        network ? network.attach(server.port, server.runDir) : null,
        cgroups ? cgroups.create(server.serverId, limitsOf(server.memoryMb)) : null,
        user ? ownFolder(server, user) : [],
      ]);
      if (leased.status === 'rejected' || grouped.status === 'rejected' || owned.status === 'rejected') {
        if (leased.status === 'fulfilled' && leased.value) await network?.release(server.runDir).catch(() => undefined);
        if (grouped.status === 'fulfilled' && grouped.value) await removeGroup(grouped.value.dirs).catch(() => undefined);
        throw [leased, grouped, owned].flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []))[0];
      }
      const lease = leased.value;
      const cgroup = grouped.value;
      const identity = owned.value;
      const resolver = lease ? ['--ro-bind', lease.resolvConf, '/etc/resolv.conf'] : [];
      const env = { HOME: CAGE_SERVER_DIR, ...plan.env };
      // A Node game on a plan Node sizes well (nodeSizesHeapFromGroup) sees its own memory group, read-only,
      // where libuv looks in a cgroup namespace (whose root the group is), and sizes its heap from it without
      // a V8 flag. Its own limits and usage only; nothing of it can be written. Otherwise: the flag.
      const heapFromGroup =
        cgroup !== null && CGROUP_NAMESPACES && plan.nodeHeapMb !== undefined && nodeSizesHeapFromGroup(server.memoryMb);
      const ownGroup = heapFromGroup
        ? ['--ro-bind', cgroup.usage.memoryDir, cgroup.usage.version === 1 ? '/sys/fs/cgroup/memory' : '/sys/fs/cgroup']
        : [];
      const mounts = [...system, ...resolver, ...identity, ...readOnly, ...ownGroup, '--bind', server.dir, CAGE_SERVER_DIR];
      const args = bwrapArgs({ plan, user, mounts, env, heapFromGroup });
      // bwrap starts inside the game's own network namespace (nsenter joins it, then becomes bwrap).
      const cage = lease ? [NSENTER, `--net=${path.join(NETNS_DIR, lease.name)}`, '--', bwrap, ...args] : [bwrap, ...args];
      const wrapper = await cageWrapper(server.runDir, cage, cgroup);
      try {
        return await launchDetached(plan, server.runDir, wrapper, endOf(network, server.runDir));
      } catch (err) {
        // Nothing runs in it: the group and the network go with the failed launch.
        if (cgroup) await removeGroup(cgroup.dirs).catch(() => undefined);
        await network?.release(server.runDir).catch(() => undefined);
        throw err;
      }
    },
  };
}

/** Host paths a plan needs for a Node.js program at `entry`: the node binary's install and every node_modules above it. */
export async function nodeRuntimePaths(entry: string): Promise<string[]> {
  const paths = [entry];
  const node = await realpath(process.execPath);
  if (!within(node, '/usr')) paths.push(path.dirname(path.dirname(node)));
  for (let dir = path.dirname(entry); ; dir = path.dirname(dir)) {
    const modules = path.join(dir, 'node_modules');
    if (
      await lstat(modules).then(
        (s) => s.isDirectory(),
        () => false,
      )
    )
      paths.push(modules);
    if (path.dirname(dir) === dir) break;
  }
  return paths;
}
