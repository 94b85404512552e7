import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { FILE_LIST_MAX } from '@spawnpoint/contracts';
import { Lock, writeAtomically } from './atomic-write.ts';
import { closeAndThrow, fdPath, statOrClose } from './descriptors.ts';
import { emptyFolder, entriesOf, openRegular, removeAt, searchFolder, walkOpenDir, type Tree } from './folder-walk.ts';
import { FolderQuota } from './folder-quota.ts';
import type { NodeDisk } from './node-disk.ts';
import { mapError, SandboxError, toParts, typeOf, type Entry, type SandboxPath } from './sandbox-paths.ts';

export { closingOnError } from './descriptors.ts';
export { removeTree, type Tree, type TreeItem } from './folder-walk.ts';
export { MAX_DEPTH, pathParts, SandboxError, type Entry, type SandboxPath } from './sandbox-paths.ts';

const { O_RDONLY, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = constants;

/** How old the measured folder size may be before a write measures it again (the game writes too). */
export const MEASURE_MAX_AGE_MS = 3_000;

/**
 * All file access of one server folder. The root stays open as a directory descriptor; every path is
 * walked one component at a time through /proc/self/fd/<dirfd>/<name> with O_NOFOLLOW (and O_DIRECTORY
 * for directories), so a symlink anywhere fails with ELOOP/ENOTDIR instead of being followed, and a
 * symlink swapped in between a check and a use cannot redirect it. Files are opened non-blocking and
 * checked with fstat, so FIFOs and devices are refused without hanging.
 *
 * Disk quota: a FolderQuota (folder-quota.ts); writes go through writeAtomically (atomic-write.ts).
 */
export class Sandbox {
  private readonly commitLock = new Lock();
  /** Why writes are refused now (the folder is being packed for storage, or was closed), or null. */
  private writesStoppedBecause: string | null = null;
  /** Writes in progress, each stopped at once when writes stop. */
  private readonly writes = new Set<AbortController>();

  private constructor(
    readonly root: string,
    private rootHandle: FileHandle,
    private readonly quota: FolderQuota,
  ) {}

  static async open(root: string, quotaBytes: number, options: { measureMaxAgeMs?: number; nodeDisk?: NodeDisk } = {}): Promise<Sandbox> {
    await mkdir(root, { recursive: true });
    const handle = await open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    const quota = new FolderQuota(quotaBytes, options.measureMaxAgeMs ?? MEASURE_MAX_AGE_MS, options.nodeDisk ?? null);
    const sandbox = new Sandbox(root, handle, quota);
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

  /** The disk allowed; grows or shrinks with the plan and what was bought (ManagedServer updates it). */
  get quotaBytes(): number {
    return this.quota.quotaBytes;
  }
  set quotaBytes(bytes: number) {
    this.quota.quotaBytes = bytes;
  }

  /** Bytes no walk of the folder sees (FolderQuota.hiddenBytes): set by ManagedServer while the game runs. */
  set hiddenBytes(count: () => Promise<number>) {
    this.quota.hiddenBytes = count;
  }

  /** Bytes in use, counting writes in progress. */
  get used(): number {
    return this.quota.used;
  }

  /** Measures the folder again (the game server writes too). Concurrent calls share one walk. */
  measure(): Promise<number> {
    return this.quota.measure(this.openRoot);
  }

  private fresh(): Promise<void> {
    return this.quota.fresh(this.openRoot);
  }

  // Its own descriptor of the root: one closed meanwhile (a restore) is never reused under us.
  private openRoot = () => open(fdPath(this.rootHandle.fd), O_RDONLY | O_DIRECTORY);

  /**
   * Refuses at once a write of `size` bytes that cannot fit (an upload declares its size): nothing is
   * streamed for minutes only to be refused. An overwrite needs only what it adds.
   */
  async checkFits(target: SandboxPath, size: number): Promise<void> {
    await this.fresh();
    const { dir, name } = await this.openParent(target);
    try {
      const existing = await lstat(fdPath(dir.fd, name)).catch(() => null);
      await this.quota.checkFits(name, size, existing?.isFile() ? existing.size : 0);
    } finally {
      await dir.close();
    }
  }

  /** Opens the directory at `parts` (all real directories, no links). The caller closes it. */
  private async openDir(parts: string[]): Promise<FileHandle> {
    let current = await this.openRoot();
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

  /** Writes a file atomically (writeAtomically), charged to the quota as it goes; refused while writes are stopped. */
  async writeFrom(target: SandboxPath, source: AsyncIterable<Buffer | string>, options: { overwrite: boolean }): Promise<number> {
    if (this.writesStoppedBecause) throw new SandboxError('INVALID_STATE', this.writesStoppedBecause);
    const stop = new AbortController();
    this.writes.add(stop);
    try {
      const { dir, name } = await this.openParent(target);
      try {
        await this.fresh();
        const write = { quota: this.quota, lock: this.commitLock, dir, name, source, overwrite: options.overwrite, stopped: stop.signal };
        return await writeAtomically(write);
      } finally {
        await dir.close();
      }
    } finally {
      this.writes.delete(stop);
    }
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

  /** Walks the tree (never through links) for paths whose name contains `query`. */
  async search(query: string, limit = 200): Promise<{ path: string; type: Entry['type']; size: number }[]> {
    const root = await this.openRoot();
    try {
      return await searchFolder(root.fd, query, limit);
    } finally {
      await root.close();
    }
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
    const skip = this.quota.isTemp;
    if (parts.length === 0) {
      const dir = await this.openRoot();
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
