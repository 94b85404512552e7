import type { Readable } from 'node:stream';
import { PassThrough, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { pathParts, SandboxError, type Sandbox } from './sandbox.ts';

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

/** Streams the given paths of the sandbox as tar.gz into `output` (gzip level 1 by default). */
export async function packTarGz(
  sandbox: Sandbox,
  roots: string[],
  output: Writable,
  level = 1,
  onBytes?: (n: number) => void,
): Promise<void> {
  const pack = tar.pack();
  const gzip = createGzip({ level });
  const done = pipeline(pack, gzip, output);
  try {
    for (const root of roots) {
      for await (const item of sandbox.walkFiles(root)) {
        if (item.type === 'directory') {
          pack.entry({ name: `${item.path}/`, type: 'directory', mtime: item.mtime, mode: 0o755 });
          continue;
        }
        const { stream, size } = await sandbox.readStream(item.path);
        const entry = pack.entry({ name: item.path, size, mtime: item.mtime, mode: 0o644 });
        stream.on('data', (chunk: string | Buffer) => onBytes?.(chunk.length));
        await pipeline(stream, entry);
      }
    }
    pack.finalize();
  } catch (err) {
    pack.destroy(err as Error);
  }
  await done;
}

/** Joins an archive entry name under `destination`, through the same rules as every user path. */
function entryParts(destination: string[], name: string): string[] {
  const clean = name.replace(/\\/g, '/');
  if (clean.startsWith('/') || /^[A-Za-z]:/.test(clean))
    throw new SandboxError('INVALID_INPUT', `The archive holds an absolute path (${name}).`);
  return [...destination, ...pathParts(clean)];
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

/** Extracts a .tar, .tar.gz/.tgz or .zip entry by entry through the sandbox. */
export async function extractArchive(
  sandbox: Sandbox,
  archivePath: string,
  destinationPath: string,
  limits = defaultExtractLimits(sandbox),
): Promise<ExtractResult> {
  const destination = pathParts(destinationPath);
  await sandbox.ensureDir(destination);
  const lower = archivePath.toLowerCase();
  if (lower.endsWith('.zip')) return extractZip(sandbox, archivePath, destination, limits);
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz') || lower.endsWith('.tar')) {
    const { stream } = await sandbox.readStream(archivePath);
    return extractTarStream(sandbox, lower.endsWith('.tar') ? stream : stream.pipe(createGunzip()), destination, limits);
  }
  throw new SandboxError('INVALID_INPUT', 'Only .zip, .tar, .tar.gz and .tgz archives can be extracted.');
}

export async function extractTarStream(
  sandbox: Sandbox,
  input: Readable,
  destination: string[],
  limits: ExtractLimits,
): Promise<ExtractResult> {
  const result: ExtractResult = { files: 0, folders: 0, bytes: 0, skipped: 0 };
  const budget = new Budget(limits);
  const extract = tar.extract();
  const feeding = pipeline(input, extract).catch((err: unknown) => {
    extract.destroy(err as Error);
  });
  for await (const entry of extract) {
    budget.entry();
    const header = entry.header;
    if (header.type === 'directory') {
      await sandbox.ensureDir(entryParts(destination, header.name));
      result.folders++;
      entry.resume();
    } else if (header.type === 'file' || header.type === 'contiguous-file') {
      const parts = entryParts(destination, header.name);
      await sandbox.ensureDir(parts.slice(0, -1));
      result.bytes += await sandbox.writeFrom(parts.join('/'), counted(entry as AsyncIterable<Buffer>, budget.counter()), {
        overwrite: true,
      });
      result.files++;
    } else {
      // Symlinks, hard links, devices and FIFOs are never created.
      result.skipped++;
      entry.resume();
    }
  }
  await feeding;
  return result;
}

async function extractZip(sandbox: Sandbox, archivePath: string, destination: string[], limits: ExtractLimits): Promise<ExtractResult> {
  const result: ExtractResult = { files: 0, folders: 0, bytes: 0, skipped: 0 };
  const budget = new Budget(limits);
  const { handle } = await sandbox.openFile(archivePath);
  try {
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.fromFd(handle.fd, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (err, z) =>
        err || !z ? reject(err ?? new Error('zip')) : resolve(z),
      ),
    );
    await new Promise<void>((resolve, reject) => {
      const fail = (err: unknown) => {
        // The descriptor belongs to `handle`, closed below; yauzl must not close it.
        reject(
          err instanceof SandboxError
            ? err
            : new SandboxError('INVALID_INPUT', `The archive could not be read: ${err instanceof Error ? err.message : String(err)}`),
        );
      };
      zip.on('error', fail);
      zip.on('end', resolve);
      zip.on('entry', (entry: yauzl.Entry) => {
        void (async () => {
          budget.entry();
          const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
          if (entry.fileName.endsWith('/')) {
            await sandbox.ensureDir(entryParts(destination, entry.fileName));
            result.folders++;
          } else if (mode === 0o120000 || (mode !== 0 && mode !== 0o100000)) {
            result.skipped++;
          } else {
            const parts = entryParts(destination, entry.fileName);
            await sandbox.ensureDir(parts.slice(0, -1));
            const stream = await new Promise<Readable>((res, rej) =>
              zip.openReadStream(entry, (err, s) => (err || !s ? rej(err ?? new Error('zip')) : res(s))),
            );
            result.bytes += await sandbox.writeFrom(parts.join('/'), counted(stream as AsyncIterable<Buffer>, budget.counter()), {
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
  return { stream, done };
}
