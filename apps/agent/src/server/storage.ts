import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';

/** A pass-through that hashes (SHA-256) and counts what flows through it: archives are checked by it. */
export function sha256Tap(): { tap: Transform; digest: () => string; bytes: () => number } {
  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { tap, digest: () => hash.digest('hex'), bytes: () => bytes };
}

/** `source` passed through a hashing tap (its failure ends the tap too): what is read is what is hashed. */
export function readHashed(source: Readable): { stream: Readable; digest: () => string; bytes: () => number } {
  const { tap, digest, bytes } = sha256Tap();
  source.once('error', (err) => tap.destroy(err));
  return { stream: source.pipe(tap), digest, bytes };
}

/** Where backups live: the node's disk by default, an S3-compatible bucket with S3_URL. */
export interface BackupStorage {
  /** Stores `source` under `key`; the key exists only once the whole stream is stored. */
  put(key: string, source: Readable): Promise<void>;
  get(key: string): Promise<{ stream: Readable; size: number } | null>;
  /** The stored file itself, opened for reading (the caller closes it), where the storage is the node's disk. */
  openFile?(key: string): Promise<{ handle: FileHandle; size: number; ino: number; ctimeMs: number } | null>;
  exists(key: string): Promise<boolean>;
  remove(key: string): Promise<void>;
  removePrefix(prefix: string): Promise<void>;
  /** Removes what a crash left half-written. */
  cleanup(): Promise<void>;
}

export function localStorage(dir: string): BackupStorage {
  const file = (key: string) => path.join(dir, ...key.split('/'));
  return {
    async put(key, source) {
      const target = file(key);
      await mkdir(path.dirname(target), { recursive: true });
      const partial = `${target}.partial`;
      try {
        await pipeline(source, createWriteStream(partial, { flags: 'wx' }));
        await rename(partial, target);
      } catch (err) {
        await unlink(partial).catch(() => undefined);
        throw err;
      }
    },
    async get(key) {
      const st = await stat(file(key)).catch(() => null);
      return st ? { stream: createReadStream(file(key)), size: st.size } : null;
    },
    async openFile(key) {
      const handle = await open(file(key), 'r').catch(() => null);
      if (!handle) return null;
      try {
        const { size, ino, ctimeMs } = await handle.stat();
        return { handle, size, ino, ctimeMs };
      } catch (err) {
        await handle.close();
        throw err;
      }
    },
    exists: async (key) => existsSync(file(key)),
    remove: (key) => rm(file(key), { force: true }),
    removePrefix: (prefix) => rm(file(prefix), { recursive: true, force: true }),
    async cleanup() {
      const walk = async (d: string): Promise<void> => {
        for (const entry of await readdir(d, { withFileTypes: true }).catch(() => [])) {
          const full = path.join(d, entry.name);
          if (entry.isDirectory()) await walk(full);
          else if (entry.name.endsWith('.partial')) await unlink(full).catch(() => undefined);
        }
      };
      await walk(dir);
    },
  };
}

/**
 * Which shared storage an S3_URL names, without its credentials (`s3://host:port/bucket`): the node says it
 * in its hello, and a sleeping server moves only between nodes that name the same one.
 */
export function storageName(url: string): string {
  const u = new URL(url);
  return `s3://${u.host}/${u.pathname.replace(/^\/+/, '').split('/')[0] ?? ''}`;
}

/** `s3://KEY:SECRET@host:port/bucket?region=…&tls=false` (path-style, any S3-compatible server). */
export function s3Storage(url: string): BackupStorage {
  const u = new URL(url);
  const bucket = u.pathname.replace(/^\/+/, '').split('/')[0] ?? '';
  if (!bucket) throw new Error('S3_URL must name a bucket: s3://key:secret@host/bucket');
  const tls = u.searchParams.get('tls') !== 'false';
  const client = new S3Client({
    endpoint: `${tls ? 'https' : 'http'}://${u.host}`,
    region: u.searchParams.get('region') ?? 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: decodeURIComponent(u.username), secretAccessKey: decodeURIComponent(u.password) },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const missing = (err: unknown) => ['NoSuchKey', 'NotFound'].includes((err as { name?: string }).name ?? '');
  return {
    async put(key, source) {
      // A multipart upload becomes visible only when completed; a failed one is aborted.
      await new Upload({ client, params: { Bucket: bucket, Key: key, Body: source }, leavePartsOnError: false }).done();
    },
    async get(key) {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return { stream: res.Body as Readable, size: res.ContentLength ?? 0 };
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
    },
    async exists(key) {
      const found = await this.get(key);
      found?.stream.destroy();
      return found !== null;
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async removePrefix(prefix) {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/` }));
      const keys = (listed.Contents ?? []).map((o) => ({ Key: o.Key as string }));
      if (keys.length) await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
    },
    async cleanup() {
      // Nothing to do: incomplete multipart uploads are never listed as objects.
    },
  };
}
