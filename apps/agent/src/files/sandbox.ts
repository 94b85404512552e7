import { constants, type Dirent, type Stats } from 'node:fs';
import { lstat, mkdir, open, opendir, readdir, rename, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FILE_LIST_MAX } from '@spawnpoint/contracts';
import { folderBytes } from './folder-size.ts';
import type { NodeDisk } from './node-disk.ts';
import { closeAndThrow, fdPath, statOrClose } from './descriptors.ts';
export { closingOnError } from './descriptors.ts';
import { formatSize } from './format-size.ts';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = constants;

export class SandboxError extends Error {
  constructor(
    readonly code: 'INVALID_INPUT' | 'NOT_FOUND' | 'INVALID_STATE' | 'DISK_LIMIT' | 'NO_PERMISSION',
    message: string,
  ) {
    super(message);
  }
}

export interface Entry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  modifiedAt: string;
  /** Permission bits. */
  mode: number;
}

/** One item of a tree walk. `open` reads the file through the descriptor of its folder (null if it went away or became a link). */
export interface TreeItem {
  /** Components relative to the walked tree's parent folder (so a folder's archive starts with its own name). */
  parts: string[];
  type: 'file' | 'directory';
  size: number;
  mtime: Date;
  open(): Promise<{ stream: Readable; size: number } | null>;
}

/**
 * A user path as typed (`"/world/level.dat"`, checked strictly by `pathParts`), or components the agent
 * already holds (archive entries of our own backups, walk results), checked only for what can never be a
 * name: empty, `.`, `..`, `/` and NUL. Backups must restore whatever names the game process created.
 */
export type SandboxPath = string | readonly string[];

export const MAX_DEPTH = 64;
const MAX_NAME = 255;
/** How old the measured folder size may be before a write measures it again (the game writes too). */
export const MEASURE_MAX_AGE_MS = 3_000;

/**
 * Splits a user path ("/world/level.dat", "world/level.dat") into safe components. Refuses `..`, NUL and
 * control characters, and over-long names; `.` and empty parts are dropped. The root is `[]`.
 */
export function pathParts(userPath: string): string[] {
  if (typeof userPath !== 'string' || userPath.length > 4096) throw new SandboxError('INVALID_INPUT', 'The path is too long.');
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(userPath)) throw new SandboxError('INVALID_INPUT', 'The path contains characters that are not allowed.');
  return checkedParts(userPath.split('/').filter((p) => p !== '' && p !== '.'));
}

function checkedParts(parts: readonly string[]): string[] {
  for (const part of parts) {
    if (part === '' || part === '.' || part === '..' || part.includes('/') || part.includes('\0'))
      throw new SandboxError('INVALID_INPUT', 'The path may not leave the server folder.');
    if (Buffer.byteLength(part) > MAX_NAME) throw new SandboxError('INVALID_INPUT', 'A name in the path is too long (255 bytes at most).');
  }
  if (parts.length > MAX_DEPTH) throw new SandboxError('INVALID_INPUT', 'The path is too deep.');
  return [...parts];
}

const toParts = (p: SandboxPath): string[] => (typeof p === 'string' ? pathParts(p) : checkedParts(p));

function typeOf(st: Stats): Entry['type'] {
  return st.isFile() ? 'file' : st.isDirectory() ? 'directory' : st.isSymbolicLink() ? 'symlink' : 'other';
}

function mapError(err: unknown, what: string): never {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (err instanceof SandboxError) throw err;
  if (code === 'ENOENT') throw new SandboxError('NOT_FOUND', `${what} does not exist.`);
  if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'EMLINK')
    throw new SandboxError('INVALID_INPUT', `${what} goes through a link or a file, which is not allowed.`);
  if (code === 'EEXIST' || code === 'ENOTEMPTY') throw new SandboxError('INVALID_STATE', `${what} already exists.`);
  if (code === 'ENXIO' || code === 'EISDIR') throw new SandboxError('INVALID_INPUT', `${what} is not a regular file.`);
  if (code === 'ENAMETOOLONG') throw new SandboxError('INVALID_INPUT', `The name of ${what} is too long.`);
  if (code === 'ENOSPC' || code === 'EDQUOT') throw new SandboxError('DISK_LIMIT', 'The disk is full.');
  // The folder changed under us (game code moving things) or refused: the user's to retry, not our failure.
  if (code === 'EINVAL' || code === 'EPERM' || code === 'EACCES' || code === 'EBUSY' || code === 'EXDEV')
    throw new SandboxError('INVALID_INPUT', `${what} cannot be changed that way right now.`);
  if (code === 'EMFILE' || code === 'ENFILE') throw new SandboxError('INVALID_STATE', 'The node is busy. Please try again in a moment.');
  throw err;
}

/** Runs critical sections one at a time (the check-then-rename steps of this folder). */
class Lock {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/** Opens a regular file of an open folder without following links; null when it is gone, a link or not a file. */
async function openRegular(dirFd: number, name: string): Promise<{ stream: Readable; size: number } | null> {
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
async function* entriesOf(dirFd: number): AsyncGenerator<Dirent> {
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
async function* walkOpenDir(
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

/**
 * All file access of one server folder. The root stays open as a directory descriptor; every path is
 * walked one component at a time through /proc/self/fd/<dirfd>/<name> with O_NOFOLLOW (and O_DIRECTORY
 * for directories), so a symlink anywhere fails with ELOOP/ENOTDIR instead of being followed, and a
 * symlink swapped in between a check and a use cannot redirect it. Files are opened non-blocking and
 * checked with fstat, so FIFOs and devices are refused without hanging.
 *
 * Disk quota: one counter. `usedBytes` is the folder as last measured plus what this sandbox committed
 * since; `inflightBytes` is what writes in progress have written so far. Every chunk is charged before it
 * is written, so parallel writes cannot pass the quota together, and a failed write gives its charge back.
 * The folder is measured again when the figure is older than `MEASURE_MAX_AGE_MS`, because the game writes too.
 */
export class Sandbox {
  private inflightBytes = 0;
  private measuredAt = 0;
  private measuring: Promise<number> | null = null;
  /** Bytes committed while a measurement walked the folder (it may have missed them). */
  private committedDuringMeasure = 0;
  /**
   * Temporary files of writes in progress, by name, with the inode of the file itself: their bytes are in
   * `inflightBytes`, so a measurement skips exactly those files (a tenant's file of the same name elsewhere
   * is still counted).
   */
  private readonly temps = new Map<string, number>();
  private isTemp = (name: string, ino: number) => this.temps.get(name) === ino;
  /**
   * Bytes of this folder no walk sees: files its running game deleted but keeps open (ManagedServer sets
   * it while the game runs, folder-size.ts `deletedOpenBytes`).
   */
  hiddenBytes: () => Promise<number> = async () => 0;
  /** Files (inodes) an overwrite in progress counts as replaced. */
  private readonly credited = new Set<number>();
  private readonly commitLock = new Lock();
  /** Why writes are refused now (the folder is being packed for storage, or was closed), or null. */
  private writesStoppedBecause: string | null = null;
  /** Writes in progress, each stopped at once when writes stop. */
  private readonly writes = new Set<AbortController>();

  private constructor(
    readonly root: string,
    private rootHandle: FileHandle,
    /** The disk allowed; grows or shrinks with the plan and what was bought (ManagedServer updates it). */
    public quotaBytes: number,
    private usedBytes: number,
    private readonly measureMaxAgeMs: number,
    /** The node's disk and its reserve, which no write may take whatever the quota says. */
    private readonly nodeDisk: NodeDisk | null,
  ) {}

  static async open(root: string, quotaBytes: number, options: { measureMaxAgeMs?: number; nodeDisk?: NodeDisk } = {}): Promise<Sandbox> {
    await mkdir(root, { recursive: true });
    const handle = await open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    const sandbox = new Sandbox(root, handle, quotaBytes, 0, options.measureMaxAgeMs ?? MEASURE_MAX_AGE_MS, options.nodeDisk ?? null);
    await sandbox.measure().catch((err: unknown) => closeAndThrow(handle, err));
    return sandbox;
  }

  /** Ends the writes in progress (they keep nothing): a closed sandbox's folder may be swapped away next. */
  async close(): Promise<void> {
    await this.stopWrites('The server folder is being replaced. Please try again in a moment.');
    await this.rootHandle.close();
  }

  /**
   * Ends every write in progress (each keeps nothing) and refuses new ones with `why` until `resumeWrites`:
   * the folder is about to be packed for storage or swapped, and a file finished in it then would be half
   * packed or dropped with the node's copy after its writer was told it was saved. Resolves once a write
   * that was already putting its file in place is done.
   */
  async stopWrites(why: string): Promise<void> {
    this.writesStoppedBecause = why;
    for (const write of this.writes) write.abort(new SandboxError('INVALID_STATE', why));
    await this.commitLock.run(async () => undefined);
  }

  resumeWrites(): void {
    this.writesStoppedBecause = null;
  }

  /** Bytes in use, counting writes in progress. */
  get used(): number {
    return this.usedBytes + this.inflightBytes;
  }

  /** Measures the folder again (the game server writes too). Concurrent calls share one walk. */
  measure(): Promise<number> {
    this.measuring ??= (async () => {
      this.committedDuringMeasure = 0;
      // Its own descriptor of the root: one closed meanwhile (a restore) is never reused under us.
      const root = await open(fdPath(this.rootHandle.fd), O_RDONLY | O_DIRECTORY);
      try {
        // Every depth is measured (bytes hidden deeper than paths may reach still count against the quota).
        const total = (await folderBytes(root.fd, this.isTemp)) + (await this.hiddenBytes());
        // Over-counting what was committed during the walk is safe; missing it is not.
        this.usedBytes = total + this.committedDuringMeasure;
        this.measuredAt = Date.now();
        return this.used;
      } finally {
        await root.close();
        this.measuring = null;
      }
    })();
    return this.measuring;
  }

  /** Measures again when the figure is older than the allowed age. */
  private async fresh(): Promise<void> {
    if (Date.now() - this.measuredAt > this.measureMaxAgeMs) await this.measure();
  }

  /**
   * Refuses at once a write of `size` bytes that cannot fit (an upload declares its size): nothing is
   * streamed for minutes only to be refused. An overwrite needs only what it adds.
   */
  async checkFits(target: SandboxPath, size: number): Promise<void> {
    await this.fresh();
    const { dir, name } = await this.openParent(target);
    try {
      const existing = await lstat(fdPath(dir.fd, name)).catch(() => null);
      const needed = size - (existing?.isFile() ? existing.size : 0);
      const free = Math.max(0, this.quotaBytes - this.used);
      if (this.nodeDisk && needed > (await this.nodeDisk.freshRoom()))
        throw new SandboxError('DISK_LIMIT', this.nodeDisk.lowMessage(`${name} (${formatSize(size)}) cannot be saved`));
      if (needed > free)
        throw new SandboxError(
          'DISK_LIMIT',
          `${name} (${formatSize(size)}) does not fit: this server has ${formatSize(free)} free of ${formatSize(this.quotaBytes)}. Delete files or upgrade the plan, then upload it again.`,
        );
    } finally {
      await dir.close();
    }
  }

  /** Opens the directory at `parts` (all real directories, no links). The caller closes it. */
  private async openDir(parts: string[]): Promise<FileHandle> {
    let current = await open(fdPath(this.rootHandle.fd), O_RDONLY | O_DIRECTORY);
    for (const part of parts) {
      let next: FileHandle;
      try {
        next = await open(fdPath(current.fd, part), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (err) {
        await current.close();
        mapError(err, `The folder ${part}`);
      }
      await current.close();
      current = next;
    }
    return current;
  }

  /** The parent directory handle and the last name of a non-root path. */
  private async openParent(target: SandboxPath): Promise<{ dir: FileHandle; name: string; parts: string[] }> {
    const parts = toParts(target);
    const name = parts.pop();
    if (name === undefined) throw new SandboxError('INVALID_INPUT', 'This is the server folder itself.');
    return { dir: await this.openDir(parts), name, parts: [...parts, name] };
  }

  async list(target: SandboxPath): Promise<Entry[]> {
    const dir = await this.openDir(toParts(target));
    try {
      const names: string[] = [];
      for await (const entry of entriesOf(dir.fd)) if (names.push(entry.name) >= FILE_LIST_MAX) break;
      const entries: Entry[] = [];
      for (const name of names) {
        const st = await lstat(fdPath(dir.fd, name)).catch(() => null);
        if (!st) continue;
        entries.push({
          name,
          type: typeOf(st),
          size: st.isFile() ? st.size : 0,
          modifiedAt: st.mtime.toISOString(),
          mode: st.mode & 0o777,
        });
      }
      return entries.sort((a, b) =>
        (a.type === 'directory') === (b.type === 'directory') ? a.name.localeCompare(b.name) : a.type === 'directory' ? -1 : 1,
      );
    } finally {
      await dir.close();
    }
  }

  async stat(target: SandboxPath): Promise<Entry> {
    const parts = toParts(target);
    if (parts.length === 0) return { name: '', type: 'directory', size: 0, modifiedAt: new Date().toISOString(), mode: 0o755 };
    const { dir, name } = await this.openParent(parts);
    try {
      const st = await lstat(fdPath(dir.fd, name)).catch((err: unknown) => mapError(err, name));
      return { name, type: typeOf(st), size: st.size, modifiedAt: st.mtime.toISOString(), mode: st.mode & 0o777 };
    } finally {
      await dir.close();
    }
  }

  /** A read stream of a regular file; links, FIFOs and devices are refused. */
  async readStream(target: SandboxPath): Promise<{ stream: Readable; size: number }> {
    const { dir, name } = await this.openParent(target);
    try {
      // Distinguish "missing" and "a link" from "not a regular file" for the message.
      await lstat(fdPath(dir.fd, name)).catch((err: unknown) => mapError(err, name));
      const opened = await openRegular(dir.fd, name);
      if (!opened) throw new SandboxError('INVALID_INPUT', `${name} is not a regular file.`);
      return opened;
    } finally {
      await dir.close();
    }
  }

  /** Reads a small text file whole (the agent's own reads of tenant files: server.properties, …). */
  async readText(target: SandboxPath, maxBytes = 1024 * 1024): Promise<string> {
    const { stream, size } = await this.readStream(target);
    if (size > maxBytes) {
      stream.destroy();
      throw new SandboxError('INVALID_INPUT', `${toParts(target).join('/')} is larger than ${maxBytes} bytes.`);
    }
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of stream) {
      total += (chunk as Buffer).length;
      if (total > maxBytes) {
        stream.destroy();
        throw new SandboxError('INVALID_INPUT', `${toParts(target).join('/')} is larger than ${maxBytes} bytes.`);
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  /** Reads a small text file, or null when it does not exist. */
  async readTextIfExists(target: SandboxPath, maxBytes?: number): Promise<string | null> {
    try {
      return await this.readText(target, maxBytes);
    } catch (err) {
      if (err instanceof SandboxError && err.code === 'NOT_FOUND') return null;
      throw err;
    }
  }

  /**
   * Writes a file atomically: into a temporary file beside it, then renamed over it. Every chunk is charged
   * to the quota before it is written (DISK_LIMIT as soon as it would not fit, the partial file removed and
   * the charge given back); the replaced file's size is given back once the rename happened.
   */
  async writeFrom(target: SandboxPath, source: AsyncIterable<Buffer | string>, options: { overwrite: boolean }): Promise<number> {
    if (this.writesStoppedBecause) throw new SandboxError('INVALID_STATE', this.writesStoppedBecause);
    const stop = new AbortController();
    this.writes.add(stop);
    try {
      return await this.writeStoppable(target, source, options, stop.signal);
    } finally {
      this.writes.delete(stop);
    }
  }

  private async writeStoppable(
    target: SandboxPath,
    source: AsyncIterable<Buffer | string>,
    options: { overwrite: boolean },
    stopped: AbortSignal,
  ): Promise<number> {
    const { dir, name } = await this.openParent(target);
    // Fixed length, so a 255-byte name still has a valid temporary name; skipped by measurements.
    const temp = `.spawnpoint-${randomBytes(8).toString('hex')}.part`;
    let written = 0;
    // Bytes of this write charged to `inflightBytes` and not yet committed or given back.
    let charged = 0;
    // An overwrite is charged only beyond the size of the file it replaces; one write at a time may count
    // a given file that way, so parallel overwrites of one file cannot each use its room.
    let credit = 0;
    let claimed: number | null = null;
    try {
      await this.fresh();
      const existing = await lstat(fdPath(dir.fd, name)).catch(() => null);
      if (existing) {
        if (!existing.isFile()) throw new SandboxError('INVALID_INPUT', `${name} exists and is not a regular file.`);
        if (!options.overwrite) throw new SandboxError('INVALID_STATE', `${name} already exists.`);
        if (!this.credited.has(existing.ino)) {
          claimed = existing.ino;
          this.credited.add(claimed);
          credit = existing.size;
        }
      }
      const handle = await open(fdPath(dir.fd, temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644).catch((err: unknown) =>
        mapError(err, name),
      );
      this.temps.set(temp, (await statOrClose(handle)).ino);
      const meter = new Transform({
        transform: (chunk: Buffer | string, _encoding, done) => {
          const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
          const more = Math.max(0, written + buf.length - credit) - charged;
          if (more > 0 && this.used + more > this.quotaBytes) {
            done(
              new SandboxError(
                'DISK_LIMIT',
                `${name} does not fit in this server's ${formatSize(this.quotaBytes)} of disk. Delete files or upgrade the plan.`,
              ),
            );
            return;
          }
          if (more > 0 && this.nodeDisk && more > this.nodeDisk.room()) {
            done(new SandboxError('DISK_LIMIT', this.nodeDisk.lowMessage(`${name} cannot be saved`)));
            return;
          }
          written += buf.length;
          if (more > 0) {
            this.inflightBytes += more;
            charged += more;
          }
          done(null, buf);
        },
      });
      try {
        // Replacing a file's content keeps its permissions (an owner's 600, a script's exec bit); never setuid.
        if (existing) await handle.chmod(existing.mode & 0o777);
        // 1 MiB of room, not 16 KiB: while one write is on the disk, what arrives meanwhile gathers and goes
        // in one writev, instead of one write per 64 KiB network read (uploads ≈ 1.9 × faster, docs/performance.md).
        await pipeline(source, meter, handle.createWriteStream({ autoClose: true, highWaterMark: 1024 * 1024 }), { signal: stopped });
        return await this.commitLock.run(async () => {
          // Stopped after its last byte but before its turn: still nothing is put in place.
          if (stopped.aborted) throw stopped.reason;
          const replaced = await lstat(fdPath(dir.fd, name)).catch(() => null);
          if (replaced && !replaced.isFile()) throw new SandboxError('INVALID_INPUT', `${name} exists and is not a regular file.`);
          if (replaced && !options.overwrite) throw new SandboxError('INVALID_STATE', `${name} already exists.`);
          // The file counted as replaced may have been renamed or replaced meanwhile: check the real outcome.
          const delta = written - (replaced?.size ?? 0);
          if (delta > 0 && this.usedBytes + (this.inflightBytes - charged) + delta > this.quotaBytes)
            throw new SandboxError('DISK_LIMIT', 'The disk limit of this server has been reached.');
          await rename(fdPath(dir.fd, temp), fdPath(dir.fd, name)).catch((err: unknown) => mapError(err, name));
          this.inflightBytes -= charged;
          charged = 0;
          this.commit(delta);
          return written;
        });
      } catch (err) {
        // Closed by the write stream once it ran; not when the failure came before it.
        await handle.close().catch(() => undefined);
        await unlink(fdPath(dir.fd, temp)).catch(() => undefined);
        // A stopped write says why (the pipeline's own error is a bare AbortError).
        return mapError(stopped.aborted ? stopped.reason : err, name);
      } finally {
        this.temps.delete(temp);
      }
    } finally {
      this.inflightBytes -= charged;
      if (claimed !== null) this.credited.delete(claimed);
      await dir.close();
    }
  }

  private commit(delta: number): void {
    this.usedBytes += delta;
    if (this.measuring && delta > 0) this.committedDuringMeasure += delta;
  }

  /**
   * A regular file opened for random access (zip reading, downloads), with its size, inode and status-change
   * time as they were when it was opened (a download's tag); the caller closes it.
   */
  async openFile(target: SandboxPath): Promise<{ handle: FileHandle; size: number; ino: number; ctimeMs: number }> {
    const { dir, name } = await this.openParent(target);
    let handle: FileHandle;
    try {
      handle = await open(fdPath(dir.fd, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((err: unknown) => mapError(err, name));
    } finally {
      await dir.close();
    }
    const st = await statOrClose(handle);
    if (!st.isFile()) {
      await handle.close();
      throw new SandboxError('INVALID_INPUT', `${name} is not a regular file.`);
    }
    return { handle, size: st.size, ino: st.ino, ctimeMs: st.ctimeMs };
  }

  async mkdir(target: SandboxPath): Promise<void> {
    const { dir, name } = await this.openParent(target);
    try {
      await mkdir(fdPath(dir.fd, name), { mode: 0o755 }).catch((err: unknown) => mapError(err, name));
    } finally {
      await dir.close();
    }
  }

  async rename(fromPath: SandboxPath, toPath: SandboxPath): Promise<void> {
    const from = await this.openParent(fromPath);
    try {
      const to = await this.openParent(toPath);
      try {
        if (to.parts.join('/').startsWith(`${from.parts.join('/')}/`))
          throw new SandboxError('INVALID_INPUT', 'A folder cannot be moved into itself.');
        // Under the commit lock: a write finishing in between cannot be replaced by this rename.
        await this.commitLock.run(async () => {
          if (await lstat(fdPath(to.dir.fd, to.name)).catch(() => null))
            throw new SandboxError('INVALID_STATE', `${to.name} already exists.`);
          await rename(fdPath(from.dir.fd, from.name), fdPath(to.dir.fd, to.name)).catch((err: unknown) => mapError(err, from.name));
        });
      } finally {
        await to.dir.close();
      }
    } finally {
      await from.dir.close();
    }
  }

  /** Deletes a file, a link (never its target) or a folder with everything in it. */
  async remove(target: SandboxPath): Promise<void> {
    const { dir, name } = await this.openParent(target);
    try {
      await removeAt(dir.fd, name);
    } finally {
      await dir.close();
    }
    await this.measure();
  }

  /** Empties the server folder (deleting a server): through descriptors, never through a link. */
  async clear(): Promise<void> {
    await emptyFolder(this.rootHandle.fd);
    await this.measure();
  }

  /** Changes permissions through a descriptor of the file itself, never through a link. */
  async chmod(target: SandboxPath, mode: number): Promise<void> {
    const { dir, name } = await this.openParent(target);
    try {
      const file = await open(fdPath(dir.fd, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((err: unknown) => mapError(err, name));
      try {
        const st = await file.stat();
        if (!st.isFile() && !st.isDirectory()) throw new SandboxError('INVALID_INPUT', `${name} is not a regular file or folder.`);
        await file.chmod(mode & 0o777);
      } finally {
        await file.close();
      }
    } finally {
      await dir.close();
    }
  }

  /** Walks the tree (never through links) and yields paths whose name contains `query`. */
  async search(query: string, limit = 200): Promise<{ path: string; type: Entry['type']; size: number }[]> {
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
    const root = await open(fdPath(this.rootHandle.fd), O_RDONLY | O_DIRECTORY);
    try {
      await walk(root.fd, '', 0);
    } finally {
      await root.close();
    }
    return found;
  }

  /**
   * Opens a file or folder for archiving. Failures (missing, a link) surface here, before anything is
   * streamed; afterwards the walk goes through descriptors, so a folder swapped for a link midway is
   * skipped instead of followed or failing the whole stream. Items are named relative to the parent of
   * `target` (the whole folder: relative to the folder itself).
   */
  async openTree(target: SandboxPath): Promise<Tree> {
    const parts = toParts(target);
    // Writes in progress (an archive being written into the folder it archives) are not part of it.
    const skip = this.isTemp;
    if (parts.length === 0) {
      const dir = await open(fdPath(this.rootHandle.fd), O_RDONLY | O_DIRECTORY);
      return { walk: () => walkOpenDir(dir, [], skip), close: () => dir.close() };
    }
    const { dir: parent, name } = await this.openParent(parts);
    try {
      const st = await lstat(fdPath(parent.fd, name)).catch((err: unknown) => mapError(err, name));
      if (st.isFile()) {
        const file = await openRegular(parent.fd, name);
        if (!file) throw new SandboxError('INVALID_INPUT', `${name} is not a regular file.`);
        let used = false;
        return {
          async *walk() {
            used = true;
            yield { parts: [name], type: 'file', size: file.size, mtime: st.mtime, open: async () => file };
          },
          close: async () => {
            if (!used) file.stream.destroy();
          },
        };
      }
      if (!st.isDirectory()) throw new SandboxError('INVALID_INPUT', `${name} is not a regular file or folder.`);
      const dir = await open(fdPath(parent.fd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch((err: unknown) => mapError(err, name));
      return {
        async *walk() {
          yield { parts: [name], type: 'directory', size: 0, mtime: st.mtime, open: async () => null };
          yield* walkOpenDir(dir, [name], skip);
        },
        close: () => dir.close(),
      };
    } finally {
      await parent.close();
    }
  }

  /** Creates every missing folder of `target` (refusing links and files on the way). */
  async ensureDir(target: SandboxPath): Promise<void> {
    const parts = toParts(target);
    for (let i = 1; i <= parts.length; i++) {
      const sub = parts.slice(0, i);
      const st = await this.stat(sub).catch((err: unknown) => {
        if (err instanceof SandboxError && err.code === 'NOT_FOUND') return null;
        throw err;
      });
      if (!st) {
        // Another write may create it in between (parallel uploads of one folder): that is fine.
        await this.mkdir(sub).catch((err: unknown) => {
          if (!(err instanceof SandboxError && err.code === 'INVALID_STATE')) throw err;
        });
      } else if (st.type !== 'directory') throw new SandboxError('INVALID_INPUT', `${parts[i - 1]} is not a folder.`);
    }
  }
}

/**
 * Removes `name` in the open folder `dirFd`: files and links unlinked, folders emptied through descriptors
 * first. `listed`: the name came from listing a folder being removed, where the game or a write finishing
 * (its temporary file renamed into place) may take it away first: gone is then done, not a failure.
 */
async function removeAt(dirFd: number, name: string, listed = false): Promise<void> {
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
async function emptyFolder(fd: number): Promise<void> {
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
