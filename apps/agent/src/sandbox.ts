import { constants, type ReadStream, type WriteStream } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = constants;

export class SandboxError extends Error {
  constructor(
    readonly code: 'INVALID_INPUT' | 'NOT_FOUND' | 'INVALID_STATE' | 'DISK_LIMIT',
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

const MAX_DEPTH = 64;
const MAX_NAME = 255;

/**
 * Splits a user path ("/world/level.dat", "world/level.dat") into safe components. Refuses `..`, NUL and
 * control characters, and over-long names; `.` and empty parts are dropped. The root is `[]`.
 */
export function pathParts(userPath: string): string[] {
  if (typeof userPath !== 'string' || userPath.length > 4096) throw new SandboxError('INVALID_INPUT', 'The path is too long.');
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(userPath)) throw new SandboxError('INVALID_INPUT', 'The path contains characters that are not allowed.');
  const parts = userPath.split('/').filter((p) => p !== '' && p !== '.');
  for (const part of parts) {
    if (part === '..') throw new SandboxError('INVALID_INPUT', 'The path may not leave the server folder.');
    if (Buffer.byteLength(part) > MAX_NAME) throw new SandboxError('INVALID_INPUT', 'A name in the path is too long.');
  }
  if (parts.length > MAX_DEPTH) throw new SandboxError('INVALID_INPUT', 'The path is too deep.');
  return parts;
}

function fdPath(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

function mapError(err: unknown, what: string): never {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (err instanceof SandboxError) throw err;
  if (code === 'ENOENT') throw new SandboxError('NOT_FOUND', `${what} does not exist.`);
  if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'EMLINK')
    throw new SandboxError('INVALID_INPUT', `${what} goes through a link or a file, which is not allowed.`);
  if (code === 'EEXIST' || code === 'ENOTEMPTY') throw new SandboxError('INVALID_STATE', `${what} already exists.`);
  if (code === 'ENXIO' || code === 'EISDIR') throw new SandboxError('INVALID_INPUT', `${what} is not a regular file.`);
  if (code === 'ENOSPC' || code === 'EDQUOT') throw new SandboxError('DISK_LIMIT', 'The disk is full.');
  throw err;
}

/**
 * All file access of one server folder. The root stays open as a directory descriptor; every path is
 * walked one component at a time through /proc/self/fd/<dirfd>/<name> with O_NOFOLLOW (and O_DIRECTORY
 * for directories), so a symlink anywhere fails with ELOOP/ENOTDIR instead of being followed, and a
 * symlink swapped in between a check and a use cannot redirect it. Files are opened non-blocking and
 * checked with fstat, so FIFOs and devices are refused without hanging.
 */
export class Sandbox {
  private constructor(
    readonly root: string,
    private rootHandle: FileHandle,
    readonly quotaBytes: number,
    private usedBytes: number,
  ) {}

  static async open(root: string, quotaBytes: number): Promise<Sandbox> {
    await mkdir(root, { recursive: true });
    const handle = await open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    const sandbox = new Sandbox(root, handle, quotaBytes, 0);
    sandbox.usedBytes = await sandbox.measure();
    return sandbox;
  }

  async close(): Promise<void> {
    await this.rootHandle.close();
  }

  get used(): number {
    return this.usedBytes;
  }

  /** Re-measures the folder (the game server writes too). */
  async measure(): Promise<number> {
    const walk = async (dirFd: number): Promise<number> => {
      let total = 0;
      for (const entry of await readdir(fdPath(dirFd), { withFileTypes: true })) {
        if (entry.isDirectory()) {
          const child = await open(fdPath(dirFd, entry.name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch(() => null);
          if (!child) continue;
          try {
            total += await walk(child.fd);
          } finally {
            await child.close();
          }
        } else {
          total += (await lstat(fdPath(dirFd, entry.name)).catch(() => ({ size: 0 }))).size;
        }
      }
      return total;
    };
    this.usedBytes = await walk(this.rootHandle.fd);
    return this.usedBytes;
  }

  /** Throws DISK_LIMIT when `bytes` more would not fit. */
  reserve(bytes: number): void {
    if (this.usedBytes + bytes > this.quotaBytes) {
      throw new SandboxError('DISK_LIMIT', 'The disk limit of this server has been reached.');
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
  private async openParent(userPath: string): Promise<{ dir: FileHandle; name: string; parts: string[] }> {
    const parts = pathParts(userPath);
    const name = parts.pop();
    if (name === undefined) throw new SandboxError('INVALID_INPUT', 'This is the server folder itself.');
    return { dir: await this.openDir(parts), name, parts: [...parts, name] };
  }

  async list(userPath: string): Promise<Entry[]> {
    const dir = await this.openDir(pathParts(userPath));
    try {
      const names = await readdir(fdPath(dir.fd));
      const entries: Entry[] = [];
      for (const name of names) {
        const st = await lstat(fdPath(dir.fd, name)).catch(() => null);
        if (!st) continue;
        entries.push({
          name,
          type: st.isFile() ? 'file' : st.isDirectory() ? 'directory' : st.isSymbolicLink() ? 'symlink' : 'other',
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

  async stat(userPath: string): Promise<Entry> {
    const parts = pathParts(userPath);
    if (parts.length === 0) return { name: '', type: 'directory', size: 0, modifiedAt: new Date().toISOString(), mode: 0o755 };
    const { dir, name } = await this.openParent(userPath);
    try {
      const st = await lstat(fdPath(dir.fd, name)).catch((err: unknown) => mapError(err, name));
      return {
        name,
        type: st.isFile() ? 'file' : st.isDirectory() ? 'directory' : st.isSymbolicLink() ? 'symlink' : 'other',
        size: st.size,
        modifiedAt: st.mtime.toISOString(),
        mode: st.mode & 0o777,
      };
    } finally {
      await dir.close();
    }
  }

  /** A read stream of a regular file; links, FIFOs and devices are refused. */
  async readStream(userPath: string): Promise<{ stream: ReadStream; size: number }> {
    const { dir, name } = await this.openParent(userPath);
    let file: FileHandle;
    try {
      file = await open(fdPath(dir.fd, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((err: unknown) => mapError(err, name));
    } finally {
      await dir.close();
    }
    const st = await file.stat();
    if (!st.isFile()) {
      await file.close();
      throw new SandboxError('INVALID_INPUT', `${name} is not a regular file.`);
    }
    // 1 MiB reads: fewer, larger chunks through the agent and the API (downloads, backups to storage).
    return { stream: file.createReadStream({ autoClose: true, highWaterMark: 1024 * 1024 }), size: st.size };
  }

  /**
   * Writes a file atomically: into a temporary file beside it, then renamed over it. Counts bytes against
   * the quota while writing and stops with DISK_LIMIT (removing the partial file) when it would not fit.
   */
  async writeFrom(userPath: string, source: AsyncIterable<Buffer | string>, options: { overwrite: boolean }): Promise<number> {
    const { dir, name } = await this.openParent(userPath);
    const temp = `.${name.slice(0, 200)}.${randomBytes(6).toString('hex')}.uploading`;
    let written = 0;
    let previous = 0;
    try {
      const existing = await lstat(fdPath(dir.fd, name)).catch(() => null);
      if (existing) {
        if (!existing.isFile()) throw new SandboxError('INVALID_INPUT', `${name} exists and is not a regular file.`);
        if (!options.overwrite) throw new SandboxError('INVALID_STATE', `${name} already exists.`);
        previous = existing.size;
      }
      const handle = await open(fdPath(dir.fd, temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644).catch((err: unknown) =>
        mapError(err, name),
      );
      const out: WriteStream = handle.createWriteStream({ autoClose: true });
      try {
        for await (const chunk of source) {
          const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
          written += buf.length;
          this.reserve(written - previous);
          if (!out.write(buf))
            await new Promise<void>((resolve, reject) => {
              out.once('drain', resolve);
              out.once('error', reject);
            });
        }
        await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
      } catch (err) {
        out.destroy();
        await unlink(fdPath(dir.fd, temp)).catch(() => undefined);
        throw err;
      }
      await rename(fdPath(dir.fd, temp), fdPath(dir.fd, name)).catch(async (err: unknown) => {
        await unlink(fdPath(dir.fd, temp)).catch(() => undefined);
        mapError(err, name);
      });
      this.usedBytes += written - previous;
      return written;
    } finally {
      await dir.close();
    }
  }

  /** A handle of a regular file for random access (zip reading); the caller closes it. */
  async openFile(userPath: string): Promise<{ handle: FileHandle; size: number }> {
    const { dir, name } = await this.openParent(userPath);
    let handle: FileHandle;
    try {
      handle = await open(fdPath(dir.fd, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((err: unknown) => mapError(err, name));
    } finally {
      await dir.close();
    }
    const st = await handle.stat();
    if (!st.isFile()) {
      await handle.close();
      throw new SandboxError('INVALID_INPUT', `${name} is not a regular file.`);
    }
    return { handle, size: st.size };
  }

  async mkdir(userPath: string): Promise<void> {
    const { dir, name } = await this.openParent(userPath);
    try {
      await mkdir(fdPath(dir.fd, name), { mode: 0o755 }).catch((err: unknown) => mapError(err, name));
    } finally {
      await dir.close();
    }
  }

  async rename(fromPath: string, toPath: string): Promise<void> {
    const from = await this.openParent(fromPath);
    try {
      const to = await this.openParent(toPath);
      try {
        if (to.parts.join('/').startsWith(`${from.parts.join('/')}/`))
          throw new SandboxError('INVALID_INPUT', 'A folder cannot be moved into itself.');
        if (await lstat(fdPath(to.dir.fd, to.name)).catch(() => null))
          throw new SandboxError('INVALID_STATE', `${to.name} already exists.`);
        await rename(fdPath(from.dir.fd, from.name), fdPath(to.dir.fd, to.name)).catch((err: unknown) => mapError(err, from.name));
      } finally {
        await to.dir.close();
      }
    } finally {
      await from.dir.close();
    }
  }

  /** Deletes a file, a link (never its target) or a folder with everything in it. */
  async remove(userPath: string): Promise<void> {
    const { dir, name } = await this.openParent(userPath);
    try {
      await this.removeAt(dir.fd, name);
    } finally {
      await dir.close();
    }
    await this.measure();
  }

  private async removeAt(dirFd: number, name: string): Promise<void> {
    const st = await lstat(fdPath(dirFd, name)).catch((err: unknown) => mapError(err, name));
    if (!st.isDirectory()) {
      await unlink(fdPath(dirFd, name));
      return;
    }
    const child = await open(fdPath(dirFd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch((err: unknown) => mapError(err, name));
    try {
      for (const entry of await readdir(fdPath(child.fd))) await this.removeAt(child.fd, entry);
    } finally {
      await child.close();
    }
    await rmdir(fdPath(dirFd, name));
  }

  /** Changes permissions through a descriptor of the file itself, never through a link. */
  async chmod(userPath: string, mode: number): Promise<void> {
    const { dir, name } = await this.openParent(userPath);
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
      for (const entry of await readdir(fdPath(dirFd), { withFileTypes: true })) {
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
    await walk(this.rootHandle.fd, '', 0);
    return found;
  }

  /** Every regular file and folder under `userPath`, depth first, for archiving. Links are skipped. */
  async *walkFiles(userPath: string): AsyncGenerator<{ path: string; type: 'file' | 'directory'; size: number; mtime: Date }> {
    const parts = pathParts(userPath);
    const start = await this.stat(userPath);
    if (start.type === 'file') {
      yield { path: parts.join('/'), type: 'file', size: start.size, mtime: new Date(start.modifiedAt) };
      return;
    }
    if (start.type !== 'directory') return;
    const stack: string[] = [parts.join('/')];
    while (stack.length) {
      const rel = stack.pop() as string;
      const entries = await this.list(rel);
      for (const entry of entries) {
        const child = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.type === 'directory') {
          yield { path: child, type: 'directory', size: 0, mtime: new Date(entry.modifiedAt) };
          stack.push(child);
        } else if (entry.type === 'file') {
          yield { path: child, type: 'file', size: entry.size, mtime: new Date(entry.modifiedAt) };
        }
      }
    }
  }

  /** Creates every missing folder of `parts` (refusing links) and returns nothing. */
  async ensureDir(parts: string[]): Promise<void> {
    for (let i = 1; i <= parts.length; i++) {
      const sub = parts.slice(0, i).join('/');
      const st = await this.stat(sub).catch(() => null);
      if (!st) await this.mkdir(sub);
      else if (st.type !== 'directory') throw new SandboxError('INVALID_INPUT', `${parts[i - 1]} is not a folder.`);
    }
  }
}
