import { constants, type Stats } from 'node:fs';
import { lstat, open, opendir, readdir, stat } from 'node:fs/promises';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;

/**
 * What a server folder costs on the node's disk, for its quota (sandbox.ts `measure`). The game writes
 * whatever it likes there, so the walk counts every byte it could hide:
 * - names that are not UTF-8 (read as raw bytes: a decoded name would not stat and would count nothing);
 * - blocks allocated past a file's end (`fallocate --keep-size`): a file counts at its size or at the
 *   blocks it holds, whichever is more, so a sparse file still counts in full;
 * - a file with n names counts a n-th of its size under each, so once in all (a link across the cage's
 *   mounts cannot be made, so all its names are in this folder).
 */
export async function folderBytes(rootFd: number, skip: (name: string, ino: number) => boolean): Promise<number> {
  const walk = async (dirFd: number): Promise<number> => {
    let total = 0;
    for await (const entry of rawEntries(dirFd)) {
      const entryPath = Buffer.concat([Buffer.from(`/proc/self/fd/${dirFd}/`), entry.name]);
      if (entry.isDirectory()) {
        const child = await open(entryPath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch(() => null);
        if (!child) continue;
        try {
          total += await walk(child.fd);
        } finally {
          await child.close();
        }
        continue;
      }
      const st = await lstat(entryPath).catch(() => null);
      if (st && !skip(entry.name.toString('latin1'), st.ino)) total += fileBytes(st) / Math.max(1, st.nlink);
    }
    return total;
  };
  return Math.ceil(await walk(rootFd));
}

/** A file's cost: its size, or the blocks it holds when they are more (allocated past its end). */
export function fileBytes(st: Stats): number {
  const allocated = st.blocks * 512;
  const roundedSize = Math.ceil(st.size / st.blksize) * st.blksize;
  return allocated > roundedSize ? allocated : st.size;
}

/** Descriptors of a game's processes looked at per disk measure (`deletedOpenBytes`). */
export const OPEN_FILES_LOOKED_AT_MAX = 8192;

/**
 * Files the game deleted while keeping them open: still on the disk, in no folder a walk can see. Read
 * from the descriptors of the game's processes (`pids`, its control group's), counting only files on
 * the server folder's own filesystem (the cage's /tmp is memory, charged to the game's memory limit).
 */
export async function deletedOpenBytes(pids: number[], folderDevice: number): Promise<number> {
  const seen = new Set<number>();
  let total = 0;
  // The game decides how many descriptors it holds: at most this many are looked at per measure, so a
  // plugin opening thousands cannot make every measure of the agent that much work.
  let budget = OPEN_FILES_LOOKED_AT_MAX;
  for (const pid of pids) {
    const fds = (await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])).slice(0, budget);
    budget -= fds.length;
    for (const fd of fds) {
      const st = await stat(`/proc/${pid}/fd/${fd}`).catch(() => null);
      if (!st?.isFile() || st.nlink !== 0 || st.dev !== folderDevice || seen.has(st.ino)) continue;
      seen.add(st.ino);
      total += fileBytes(st);
    }
  }
  return total;
}

/**
 * The entries of an open folder with their names as raw bytes, read a few at a time: a folder the game
 * filled with millions of names must not be held in the agent's memory whole. An unreadable folder has none.
 */
async function* rawEntries(dirFd: number): AsyncGenerator<{ name: Buffer; isDirectory(): boolean }> {
  // Node reads names as bytes with `encoding: 'buffer'`, which its types for opendir leave out.
  const options = { bufferSize: 64, encoding: 'buffer' } as unknown as { bufferSize: number };
  const handle = await opendir(`/proc/self/fd/${dirFd}`, options).catch(() => null);
  if (!handle) return;
  try {
    for await (const entry of handle) yield { name: entry.name as unknown as Buffer, isDirectory: () => entry.isDirectory() };
  } catch {
    // vanished or unreadable midway: what was read stands
  }
}
