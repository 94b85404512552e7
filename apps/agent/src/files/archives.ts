import type { Readable } from 'node:stream';
import { PassThrough, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { pathParts, SandboxError, type Sandbox, type SandboxPath, type Tree } from './sandbox.ts';

export interface ExtractLimits {
  maxEntries: number;
  /** Bytes the archive may expand to (counted while writing, never taken from headers). */
  maxBytes: number;
}

export interface ExtractResult {
  files: number;
  folders: number;
  bytes: number;
  /** Links and special files are never created. */
  skipped: number;
}

export const defaultExtractLimits = (sandbox: Sandbox): ExtractLimits => ({
  maxEntries: 20_000,
  maxBytes: Math.max(0, sandbox.quotaBytes - sandbox.used),
});

/**
 * Opens every root for archiving before a byte is streamed, so a missing path or a link is a clear
 * refusal and not a broken download. The caller passes the trees to `packTarGz`, which closes them.
 */
export async function openTrees(sandbox: Sandbox, roots: SandboxPath[]): Promise<Tree[]> {
  const trees: Tree[] = [];
  try {
    for (const root of roots) trees.push(await sandbox.openTree(root));
  } catch (err) {
    await Promise.all(trees.map((t) => t.close()));
    throw err;
  }
  return trees;
}

/**
 * zlib's output buffer. Node's default (16 KiB) makes a round trip to the thread pool and back for every
 * 16 KiB it writes: packing a 200 MB world took 1.2–1.3 × `tar -czf` (gzip -1) for that alone, and
 * 0.75–0.8 × with 256 KiB, and unpacking it (a restore, an uploaded archive) 1.0–1.2 s before, 0.5–0.7 s
 * after (docs/performance.md, "Backups"). 1 MiB gains little more, and each buffer is held until its last
 * slice is written.
 */
const ZLIB_CHUNK = 256 * 1024;

/**
 * Streams the trees as tar.gz into `output` (gzip level 1 by default). Entries are named relative to the
 * folder each tree was chosen in. Every stream is awaited: a reader that goes away (a cancelled download,
 * a full disk on the other side) ends this with a rejection the caller handles, never an unhandled one.
 */
/**
 * What a packing may read in all: twice the server's disk quota (at least 1 GiB over it). A running game is
 * not held to its quota (it is checked at start), so a world that grew past it must still back up; but sizes
 * are what the files claim, so a sparse file of terabytes (it costs the game no disk) stops the packing
 * before its bytes are read, rather than keeping a core busy for hours and filling the storage.
 */
export const packLimitOf = (quotaBytes: number) => Math.max(2 * quotaBytes, quotaBytes + 1024 ** 3);
export const packLimitMessage = (maxBytes: number) =>
  `The files add up to more than ${Math.round(maxBytes / (1024 * 1024))} MB, far beyond the server's disk, so they were not packed. Delete or shrink the largest (a file can claim far more than it stores), then try again.`;

export async function packTarGz(
  trees: Tree[],
  output: Writable,
  level = 1,
  onBytes?: (n: number) => void,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<void> {
  const pack = tar.pack();
  const gzip = createGzip({ level, chunkSize: ZLIB_CHUNK });
  const abort = new AbortController();
  let claimed = 0;
  const feed = async () => {
    try {
      for (const tree of trees) {
        for await (const item of tree.walk()) {
          const name = item.parts.join('/');
          if (item.type === 'directory') {
            pack.entry({ name: `${name}/`, type: 'directory', mtime: item.mtime, mode: 0o755 });
            continue;
          }
          const file = await item.open();
          if (!file) continue; // went away or became a link while we walked
          try {
            abort.signal.throwIfAborted();
            claimed += file.size;
            if (claimed > maxBytes) throw new SandboxError('INVALID_STATE', packLimitMessage(maxBytes));
            const entry = pack.entry({ name, size: file.size, mtime: item.mtime, mode: 0o644 });
            const count = new Transform({
              transform(chunk: Buffer, _encoding, done) {
                onBytes?.(chunk.length);
                done(null, chunk);
              },
            });
            await pipeline(file.stream, count, entry, { signal: abort.signal });
          } finally {
            file.stream.destroy(); // closes the file however this ended
          }
        }
      }
      pack.finalize();
    } catch (err) {
      pack.destroy(err as Error);
      throw err;
    }
  };
  try {
    const writing = pipeline(pack, gzip, output).catch((err: unknown) => {
      abort.abort(); // the reader is gone: stop reading files
      throw err;
    });
    await Promise.all([writing, feed()]);
  } finally {
    await Promise.all(trees.map((t) => t.close().catch(() => undefined)));
  }
}

/**
 * Joins an archive entry name under `destination`. Archives users upload follow the rules of every user
 * path; our own backups (`literal`) restore whatever names the game created (backslashes, `C:x`, control
 * characters), refusing only what can never be a name inside the folder.
 */
function entryParts(destination: string[], name: string, literal: boolean): string[] {
  if (name.startsWith('/')) throw new SandboxError('INVALID_INPUT', `The archive holds an absolute path (${name}).`);
  if (literal) {
    const parts = name.split('/').filter((p) => p !== '' && p !== '.');
    if (parts.includes('..')) throw new SandboxError('INVALID_INPUT', 'The archive holds a path that leaves the folder.');
    return [...destination, ...parts];
  }
  return [...destination, ...pathParts(name)];
}

class Budget {
  entries = 0;
  bytes = 0;
  constructor(private limits: ExtractLimits) {}
  entry(): void {
    if (++this.entries > this.limits.maxEntries)
      throw new SandboxError('INVALID_INPUT', `The archive has more than ${this.limits.maxEntries} entries.`);
  }
  counter(): (chunk: Buffer) => void {
    return (chunk) => {
      this.bytes += chunk.length;
      if (this.bytes > this.limits.maxBytes)
        throw new SandboxError('DISK_LIMIT', 'The archive expands to more than the free disk space of this server.');
    };
  }
}

async function* counted(source: AsyncIterable<Buffer>, count: (chunk: Buffer) => void): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    count(chunk);
    yield chunk;
  }
}

/**
 * Reads past an entry that is not written (a folder, a link, a device) counting its bytes as written ones:
 * a header may claim any size for them, and gigabytes of zeros compressed into an upload would otherwise be
 * decompressed for nothing, uncounted.
 */
async function skip(entry: AsyncIterable<Buffer>, count: (chunk: Buffer) => void): Promise<void> {
  for await (const chunk of entry) count(chunk);
}

/** A damaged or truncated archive is the user's input, not our failure: say so. */
function damaged(err: unknown): SandboxError {
  if (err instanceof SandboxError) return err;
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new SandboxError('DISK_LIMIT', 'The disk is full.');
  const detail = err instanceof Error ? err.message : String(err);
  return new SandboxError('INVALID_INPUT', `The archive is damaged or incomplete and could not be extracted (${detail}).`);
}

/** Extracts a .tar, .tar.gz/.tgz or .zip entry by entry through the sandbox. */
export async function extractArchive(
  sandbox: Sandbox,
  archivePath: string,
  destinationPath: string | undefined,
  limits = defaultExtractLimits(sandbox),
): Promise<ExtractResult & { destination: string }> {
  const destination = destinationPath === undefined ? await freshFolderFor(sandbox, archivePath) : pathParts(destinationPath);
  const made = await extractInto(sandbox, archivePath, destination, limits);
  return { destination: `/${destination.join('/')}`, ...made };
}

/** Beside the archive, a folder named after it that does not exist yet: `world`, else `world (2)`, `world (3)`… */
async function freshFolderFor(sandbox: Sandbox, archivePath: string): Promise<string[]> {
  const parts = pathParts(archivePath);
  const name = parts.at(-1) ?? 'archive';
  const base = name.replace(/\.(zip|tar\.gz|tgz|tar)$/i, '') || 'archive';
  for (let n = 1; n < 1000; n++) {
    const candidate = [...parts.slice(0, -1), n === 1 ? base : `${base} (${n})`];
    const taken = await sandbox.stat(candidate).then(
      () => true,
      (err: unknown) => !(err instanceof SandboxError && err.code === 'NOT_FOUND'),
    );
    if (!taken) return candidate;
  }
  throw new SandboxError('INVALID_STATE', `Too many folders named ${base} already: choose where to extract it.`);
}

async function extractInto(sandbox: Sandbox, archivePath: string, destination: string[], limits: ExtractLimits): Promise<ExtractResult> {
  const lower = archivePath.toLowerCase();
  const zip = lower.endsWith('.zip');
  if (!zip && !lower.endsWith('.tar.gz') && !lower.endsWith('.tgz') && !lower.endsWith('.tar'))
    throw new SandboxError('INVALID_INPUT', 'Only .zip, .tar, .tar.gz and .tgz archives can be extracted.');
  // Refusals come before any folder is made: a missing archive, or a destination that is a file.
  await sandbox.stat(archivePath);
  const made = await firstMissing(sandbox, destination);
  await sandbox.ensureDir(destination);
  try {
    if (zip) return await extractZip(sandbox, archivePath, destination, limits);
    const { stream } = await sandbox.readStream(archivePath);
    return await extractTar(sandbox, stream, { gzip: !lower.endsWith('.tar'), destination, limits, literal: false });
  } catch (err) {
    // A refused or damaged archive leaves nothing behind in folders it made; in a folder that was already
    // there, what was written before the refusal stays (it may sit among the owner's own files).
    if (made) await sandbox.remove(made).catch(() => undefined);
    throw err;
  }
}

/** The outermost folder of `parts` that does not exist yet (what `ensureDir` would make), or null. */
async function firstMissing(sandbox: Sandbox, parts: string[]): Promise<string[] | null> {
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i);
    const found = await sandbox.stat(prefix).then(
      () => true,
      (err: unknown) => {
        if (err instanceof SandboxError && err.code === 'NOT_FOUND') return false;
        throw err;
      },
    );
    if (!found) return prefix;
  }
  return null;
}

export interface TarExtractOptions {
  gzip: boolean;
  destination: string[];
  limits: ExtractLimits;
  /** Names as they are (restoring our own backups); otherwise the rules of user paths. */
  literal: boolean;
}

/** Extracts a tar (or tar.gz) stream entry by entry through the sandbox; `input` is always consumed or destroyed. */
export async function extractTar(sandbox: Sandbox, input: Readable, options: TarExtractOptions): Promise<ExtractResult> {
  const result: ExtractResult = { files: 0, folders: 0, bytes: 0, skipped: 0 };
  const budget = new Budget(options.limits);
  const extract = tar.extract();
  // Its failure reaches the loop below through `extract`; the promise itself is awaited at the end.
  const feeding = (options.gzip ? pipeline(input, createGunzip({ chunkSize: ZLIB_CHUNK }), extract) : pipeline(input, extract)).catch(
    (err: unknown) => {
      extract.destroy(err as Error);
      return err;
    },
  );
  try {
    for await (const entry of extract) {
      budget.entry();
      const header = entry.header;
      if (header.type === 'directory') {
        await sandbox.ensureDir(entryParts(options.destination, header.name, options.literal));
        result.folders++;
        await skip(entry as AsyncIterable<Buffer>, budget.counter());
      } else if (header.type === 'file' || header.type === 'contiguous-file') {
        const parts = entryParts(options.destination, header.name, options.literal);
        if (parts.length === options.destination.length)
          throw new SandboxError('INVALID_INPUT', 'The archive holds an entry without a name.');
        await sandbox.ensureDir(parts.slice(0, -1));
        result.bytes += await sandbox.writeFrom(parts, counted(entry as AsyncIterable<Buffer>, budget.counter()), { overwrite: true });
        result.files++;
      } else {
        // Symlinks, hard links, devices and FIFOs are never created.
        result.skipped++;
        await skip(entry as AsyncIterable<Buffer>, budget.counter());
      }
    }
  } catch (err) {
    input.destroy();
    throw damaged(err);
  }
  const failed = await feeding;
  if (failed) throw damaged(failed);
  return result;
}

/**
 * One of our own archives of a whole server folder (a backup, a sleeping server's folder from storage)
 * into a staging folder: names restored as they are, within the folder's quota.
 */
export function extractFolderArchive(staging: Sandbox, input: Readable): Promise<ExtractResult> {
  return extractTar(staging, input, {
    gzip: true,
    destination: [],
    limits: { maxEntries: 1_000_000, maxBytes: staging.quotaBytes },
    literal: true,
  });
}

async function extractZip(sandbox: Sandbox, archivePath: string, destination: string[], limits: ExtractLimits): Promise<ExtractResult> {
  const result: ExtractResult = { files: 0, folders: 0, bytes: 0, skipped: 0 };
  const budget = new Budget(limits);
  const { handle } = await sandbox.openFile(archivePath);
  try {
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.fromFd(handle.fd, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (err, z) =>
        err || !z ? reject(damaged(err ?? new Error('unreadable'))) : resolve(z),
      ),
    );
    await new Promise<void>((resolve, reject) => {
      // The descriptor belongs to `handle`, closed below; yauzl must not close it.
      const fail = (err: unknown) => reject(damaged(err));
      zip.on('error', fail);
      zip.on('end', resolve);
      zip.on('entry', (entry: yauzl.Entry) => {
        void (async () => {
          budget.entry();
          const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
          if (entry.fileName.endsWith('/')) {
            await sandbox.ensureDir(entryParts(destination, entry.fileName, false));
            result.folders++;
          } else if (mode === 0o120000 || (mode !== 0 && mode !== 0o100000)) {
            result.skipped++;
          } else {
            const parts = entryParts(destination, entry.fileName, false);
            await sandbox.ensureDir(parts.slice(0, -1));
            const stream = await new Promise<Readable>((res, rej) =>
              zip.openReadStream(entry, (err, s) => (err || !s ? rej(err ?? new Error('zip')) : res(s))),
            );
            result.bytes += await sandbox.writeFrom(parts, counted(stream as AsyncIterable<Buffer>, budget.counter()), {
              overwrite: true,
            });
            result.files++;
          }
          zip.readEntry();
        })().catch(fail);
      });
      zip.readEntry();
    });
  } finally {
    await handle.close();
  }
  return result;
}

/** A PassThrough whose consumer is `sandbox.writeFrom` — for writing a new archive into the server folder. */
export function sandboxSink(sandbox: Sandbox, userPath: string): { stream: PassThrough; done: Promise<number> } {
  const stream = new PassThrough();
  const done = sandbox.writeFrom(userPath, stream, { overwrite: false });
  // Refused before reading (the name exists, a bad folder): nobody would read the stream and the packer
  // would wait on it forever, holding every file it opened.
  done.catch((err: unknown) => stream.destroy(err as Error));
  return { stream, done };
}
