/**
 * The cage's command line (docs/security.md, "The cage"): the read-only system mounts, the game user's
 * files, bubblewrap's arguments, and the shell that lowers the open-file limit, joins the control group and
 * hands bwrap the seccomp filter before it becomes the cage. cage.ts decides what goes in; this writes it.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, readdir, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { oomKills, type ServerGroup } from './cgroups.ts';
import type { LaunchWrapper } from '../server/detached-process.ts';
import { seccompProgram } from './seccomp.ts';
import { withHeapFlag, type LaunchPlan } from '../runtimes/types.ts';

/** The system calls a game may not make (seccomp.ts); null on an architecture without a table. */
export const SECCOMP = seccompProgram();
/** The descriptor the cage's shell hands bwrap the filter on (0–2 are the game's, 3 bwrap's --info-fd). */
const SECCOMP_FD = 4;
/** Whether this kernel has cgroup namespaces (`--unshare-cgroup-try` makes one only then). */
export const CGROUP_NAMESPACES = existsSync('/proc/self/ns/cgroup');
const run = promisify(execFile);

/** Where the server folder is inside the cage. */
export const CAGE_SERVER_DIR = '/server';
/** The private /tmp of a game (its pages also count against the memory limit). */
export const CAGE_TMP_BYTES = 256 * 1024 * 1024;
/**
 * Open files (and so sockets) a caged game may hold, soft and hard. The game shares the node's network: with
 * the node's own limit (often 524,288) it could bind every local port, and the agent's, the proxy's and every
 * other game's connections would find none free. A Minecraft server with its players needs far fewer.
 */
export const CAGE_OPEN_FILES = 4096;
const SETPRIV = '/usr/bin/setpriv';
export const NSENTER = '/usr/bin/nsenter';

export interface GameUser {
  uid: number;
  gid: number;
}

export /** The read-only system part of every cage: programs, libraries, and the few files of /etc they read. */
async function systemMounts(): Promise<string[]> {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    const st = await lstat(top).catch(() => null);
    if (!st) continue;
    // Merged /usr: /bin → usr/bin and so on are links, made again inside.
    if (st.isSymbolicLink()) args.push('--symlink', await readlink(top), top);
    else if (st.isDirectory()) args.push('--ro-bind', top, top);
  }
  const etc = [
    'ld.so.cache',
    'ld.so.conf',
    'ld.so.conf.d',
    'localtime',
    'timezone',
    'hosts',
    'host.conf',
    'nsswitch.conf',
    'resolv.conf',
    'ssl',
    'ca-certificates',
    'ca-certificates.conf',
    'alternatives',
    // Java's configuration (the JDK's conf/ links here).
    ...(await readdir('/etc').catch(() => [] as string[])).filter((n) => n.startsWith('java')),
  ];
  for (const name of etc) args.push('--ro-bind-try', `/etc/${name}`, `/etc/${name}`);
  return args;
}

/**
 * bwrap makes the folders above a mount point readable by root only; the game needs to pass through
 * them (/etc, /work/…), so each is made first, 0755.
 */
function parentFolders(args: string[]): string[] {
  const dests = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const op = args[i];
    if (op === '--ro-bind' || op === '--ro-bind-try' || op === '--bind' || op === '--symlink') {
      const dest = args[i + 2] as string;
      // /tmp is the game's own (1777), made before.
      for (let dir = path.dirname(dest); dir !== '/' && dir !== '/tmp'; dir = path.dirname(dir)) dests.add(dir);
      i += 2;
    }
  }
  return [...dests]
    .sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b))
    .flatMap((dir) => ['--perms', '0755', '--dir', dir]);
}

export function within(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export /**
 * Gives the game user its folder and the passwd and group files the cage shows it; answers bwrap's
 * arguments for them.
 */
async function ownFolder(server: { dir: string; runDir: string }, user: { uid: number; gid: number }): Promise<string[]> {
  // The game owns its folder (and the agent, as root, still reads and writes it). -P: links are
  // changed themselves, never followed.
  await run('chown', ['-R', '-P', `${user.uid}:${user.gid}`, '--', server.dir]);
  const passwd = path.join(server.runDir, 'passwd');
  const group = path.join(server.runDir, 'group');
  await writeFile(
    passwd,
    `root:x:0:0:root:/root:/usr/sbin/nologin\nminecraft:x:${user.uid}:${user.gid}:game server:${CAGE_SERVER_DIR}:/usr/sbin/nologin\n`,
  );
  await writeFile(group, `root:x:0:\nminecraft:x:${user.gid}:\n`);
  return ['--ro-bind', passwd, '/etc/passwd', '--ro-bind', group, '/etc/group'];
}

/** bwrap's arguments: namespaces, the mounts in order, the environment, the filter, and the game's command. */
export function bwrapArgs(cage: {
  plan: LaunchPlan;
  user: GameUser | null;
  /** Every mount, in order, the server folder last. */
  mounts: string[];
  env: Record<string, string | undefined>;
  /** The game sizes its heap from its own memory group (else the plan's heap flag). */
  heapFromGroup: boolean;
}): string[] {
  const { plan, user, mounts, env, heapFromGroup } = cage;
  const setenv = Object.entries(env).flatMap(([k, v]) => (v === undefined ? [] : ['--setenv', k, v]));
  return [
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'spawnpoint',
    // The game is the first process of its namespace: when it ends, everything it started ends.
    '--as-pid-1',
    // As root, bwrap sets up the cage with root's rights and setpriv then drops to the game user (no
    // capability left, no way back). Otherwise a user namespace, where nested ones are switched off.
    ...(user ? ['--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID'] : ['--unshare-user', '--disable-userns']),
    // The private /tmp first: a mount below /tmp (a jar in a DATA_DIR there) then lands inside it.
    '--perms',
    '1777',
    '--size',
    String(CAGE_TMP_BYTES),
    '--tmpfs',
    '/tmp',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    ...parentFolders(mounts),
    ...mounts,
    '--remount-ro',
    '/',
    '--chdir',
    CAGE_SERVER_DIR,
    '--clearenv',
    ...setenv,
    '--info-fd',
    '3',
    ...(SECCOMP ? ['--seccomp', String(SECCOMP_FD)] : []),
    '--',
    ...(user
      ? [
          SETPRIV,
          `--reuid=${user.uid}`,
          `--regid=${user.gid}`,
          '--clear-groups',
          '--inh-caps=-all',
          '--bounding-set=-all',
          '--no-new-privs',
          '--',
        ]
      : []),
    plan.command,
    ...(heapFromGroup ? plan.args : withHeapFlag(plan)),
  ];
}

/** The shell that starts the cage: it lowers the open-file limit, joins the game's group, and becomes bwrap. */
export async function cageWrapper(runDir: string, cage: string[], cgroup: ServerGroup | null): Promise<LaunchWrapper> {
  // The shell lowers the open-file limit (both: the game cannot raise it again) and becomes bwrap.
  const limit = `ulimit -n ${CAGE_OPEN_FILES} || exit 125;`;
  // The filter file is opened by the shell on SECCOMP_FD as it becomes the cage (bwrap reads and closes it).
  const filter = path.join(runDir, 'seccomp.bpf');
  if (SECCOMP) await writeFile(filter, SECCOMP);
  const exec = SECCOMP ? `exec "$@" ${SECCOMP_FD}<"$f"` : 'exec "$@"';
  const plain: LaunchWrapper = {
    command: '/bin/sh',
    args: ['-c', `f=$1; shift; ${limit} ${exec}`, 'spawnpoint-cage', filter, ...cage],
    infoFd: true,
  };
  if (!cgroup) return plain;
  // The shell joins the group and then becomes bwrap, so the cage and everything in it are
  // limited from their first instruction (no fork can start outside the group).
  const join = `f=$1; shift; ${limit} n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; ${exec}`;
  return {
    command: '/bin/sh',
    args: ['-c', join, 'spawnpoint-cage', filter, String(cgroup.procsFiles.length), ...cgroup.procsFiles, ...cage],
    infoFd: true,
    group: { dirs: cgroup.dirs, oomFile: cgroup.oomFile, oomBaseline: await oomKills(cgroup.oomFile), usage: cgroup.usage },
  };
}
