/*
 * Walking, searching and removing an open folder through descriptors, never through a link: what the
 * sandbox (sandbox.ts) archives, searches and deletes with. A folder swapped for a link midway is skipped.
 */
import { constants, type Dirent, type Stats } from 'node:fs';
import { lstat, open, opendir, readdir, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { fdPath, statOrClose } from './descriptors.ts';
import { mapError, MAX_DEPTH, type Entry } from './sandbox-paths.ts';

const { O_RDONLY, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = constants;

/** One item of a tree walk. `open` reads the file through the descriptor of its folder (null if it went away or became a link). */
export interface TreeItem {
  /** Components relative to the walked tree's parent folder (so a folder's archive starts with its own name). */
  parts: string[];
  type: 'file' | 'directory';
  size: number;
  mtime: Date;
  open(): Promise<{ stream: Readable; size: number } | null>;
}

/** Opens a regular file of an open folder without following links; null when it is gone, a link or not a file. */
export async function openRegular(dirFd: number, name: string): Promise<{ stream: Readable; size: number } | null> {
  const file = await open(fdPath(dirFd, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch(() => null);
  if (!file) return null;
  const st = await statOrClose(file);
  if (!st.isFile()) {
    await file.close();
    return null;
  }
  if (st.size === 0) {
    await file.close();
    return { stream: Readable.from([]), size: 0 };
  }
  // Exactly the size seen now (the game may append while a backup reads: the tar entry must match its
  // header). 1 MiB reads: fewer, larger chunks through the agent and the API.
  return { stream: file.createReadStream({ autoClose: true, start: 0, end: st.size - 1, highWaterMark: 1024 * 1024 }), size: st.size };
}

/**
 * The entries of an open folder, read a few at a time: a folder the game filled with millions of names
 * (hard links to one empty file cost it nothing) must not be held in the agent's memory whole, nor every
 * folder above it while the walk is deeper down. An unreadable folder has no entries.
 */
export async function* entriesOf(dirFd: number): AsyncGenerator<Dirent> {
  const dir = await opendir(fdPath(dirFd), { bufferSize: 64 }).catch(() => null);
  if (!dir) return;
  try {
    for await (const entry of dir) yield entry;
  } catch {
    // vanished or unreadable midway: what was read stands
  }
}

/** Files with several names a walk remembers at most (their ids); past it, further ones are packed as they come. */
const LINKED_FILES_REMEMBERED = 100_000;

/**
 * A file with several names (hard links) is one file: it is archived under its first name only, or a 1 GB
 * file linked 65,000 times would make a backup of 65 TB. The set is bounded (a game could link millions of
 * empty files twice); past it, a pack still stops at its byte limit.
 */
function firstName(seen: Set<string>, st: Stats): boolean {
  if (st.nlink < 2) return true;
  const id = `${st.dev}:${st.ino}`;
  if (seen.has(id)) return false;
  if (seen.size < LINKED_FILES_REMEMBERED) seen.add(id);
  return true;
}

/** Walks an open folder depth first through descriptors; links, special files and what vanishes midway are skipped. */
export async function* walkOpenDir(
  dir: FileHandle,
  prefix: string[],
  skip: (name: string, ino: number) => boolean,
  seen = new Set<string>(),
): AsyncGenerator<TreeItem> {
  if (prefix.length >= MAX_DEPTH) return;
  for await (const entry of entriesOf(dir.fd)) {
    const parts = [...prefix, entry.name];
    if (entry.isDirectory()) {
      const child = await open(fdPath(dir.fd, entry.name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch(() => null);
      if (!child) continue;
      try {
        const st = await child.stat();
        yield { parts, type: 'directory', size: 0, mtime: st.mtime, open: async () => null };
        yield* walkOpenDir(child, parts, skip, seen);
      } finally {
        await child.close();
      }
    } else if (entry.isFile()) {
      const st = await lstat(fdPath(dir.fd, entry.name)).catch(() => null);
      if (!st?.isFile() || skip(entry.name, st.ino) || !firstName(seen, st)) continue;
      yield { parts, type: 'file', size: st.size, mtime: st.mtime, open: () => openRegular(dir.fd, entry.name) };
    }
  }
}

/** A folder or file opened for walking: it stays the one that was opened even if its path is swapped for a link. */
export interface Tree {
  walk(): AsyncGenerator<TreeItem>;
  close(): Promise<void>;
}

/** Walks the open folder `rootFd` (never through links) for paths whose name contains `query`, at most `limit`. */
export async function searchFolder(
  rootFd: number,
  query: string,
  limit: number,
): Promise<{ path: string; type: Entry['type']; size: number }[]> {
  const needle = query.toLowerCase();
  const found: { path: string; type: Entry['type']; size: number }[] = [];
  const walk = async (dirFd: number, prefix: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH) return;
    for await (const entry of entriesOf(dirFd)) {
      if (found.length >= limit) return;
      const rel = `${prefix}/${entry.name}`;
      const type: Entry['type'] = entry.isFile()
        ? 'file'
        : entry.isDirectory()
          ? 'directory'
          : entry.isSymbolicLink()
            ? 'symlink'
            : 'other';
      if (entry.name.toLowerCase().includes(needle)) {
        const size = type === 'file' ? (await lstat(fdPath(dirFd, entry.name)).catch(() => ({ size: 0 }))).size : 0;
        found.push({ path: rel, type, size });
      }
      if (entry.isDirectory()) {
        const child = await open(fdPath(dirFd, entry.name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch(() => null);
        if (!child) continue;
        try {
          await walk(child.fd, rel, depth + 1);
        } finally {
          await child.close();
        }
      }
    }
  };
  await walk(rootFd, '', 0);
  return found;
}

/**
 * Removes `name` in the open folder `dirFd`: files and links unlinked, folders emptied through descriptors
 * first. `listed`: the name came from listing a folder being removed, where the game or a write finishing
 * (its temporary file renamed into place) may take it away first: gone is then done, not a failure.
 */
export async function removeAt(dirFd: number, name: string, listed = false): Promise<void> {
  const gone = (err: unknown) => listed && (err as NodeJS.ErrnoException).code === 'ENOENT';
  const st = await lstat(fdPath(dirFd, name)).catch((err: unknown) => (gone(err) ? null : mapError(err, name)));
  if (!st) return;
  if (!st.isDirectory()) {
    await unlink(fdPath(dirFd, name)).catch((err: unknown) => (gone(err) ? undefined : mapError(err, name)));
    return;
  }
  const child = await open(fdPath(dirFd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch((err: unknown) =>
    gone(err) ? null : mapError(err, name),
  );
  if (!child) return;
  try {
    await emptyFolder(child.fd);
  } finally {
    await child.close();
  }
  await rmdir(fdPath(dirFd, name)).catch((err: unknown) => (gone(err) ? undefined : mapError(err, name)));
}

/** Removes everything in the open folder `fd`, listing it again while something new appeared meanwhile (a write finishing). */
export async function emptyFolder(fd: number): Promise<void> {
  for (let pass = 0; pass < 5; pass++) {
    const names = await readdir(fdPath(fd));
    if (names.length === 0) return;
    for (const entry of names) await removeAt(fd, entry, true);
  }
}

export async function removeTree(folder: string): Promise<void> {
  const handle = await open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  });
  if (!handle) return;
  try {
    await emptyFolder(handle.fd);
  } finally {
    await handle.close();
  }
  await rmdir(folder).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  });
}
