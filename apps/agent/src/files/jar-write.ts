import { createHash, randomBytes } from 'node:crypto';
import { pipeline, Transform, type Readable } from 'node:stream';
import { SandboxError, type Sandbox } from './sandbox.ts';

/** What arrived, for the caller's checks before the file takes its name. */
export interface ReceivedJar {
  /** The hidden temporary file it was written to. */
  temp: string[];
  bytes: number;
  /** Hex digest of every byte, with the algorithm asked for. */
  digest: string;
  /** The first four bytes (a jar is a zip: `PK\3\4`). */
  head: Buffer;
}

/**
 * Writes a plugin or mod jar into `folder` under a hidden temporary name through the sandbox (the disk
 * quota counts it), at most `limit` bytes, hashed as it arrives; `check` looks at what arrived, and only
 * once it passed is the file renamed to `fileName` (replacing that jar and its `.disabled` twin). Any
 * failure removes the temporary file, so nothing half-written stays. The catalogue downloads and the
 * owner's uploads both come through here.
 */
export async function writeCheckedJar<T>(
  sandbox: Sandbox,
  target: { folder: string; fileName: string },
  source: Readable,
  options: { limit: number; tooLarge: string; algorithm: 'sha256' | 'sha512'; onChunk?: () => void },
  check: (received: ReceivedJar) => Promise<T>,
): Promise<T> {
  const hash = createHash(options.algorithm);
  let bytes = 0;
  let head = Buffer.alloc(0);
  const counted = new Transform({
    transform(chunk: Buffer, _enc, done) {
      options.onChunk?.();
      bytes += chunk.length;
      if (bytes > options.limit) return done(new SandboxError('INVALID_INPUT', options.tooLarge));
      if (head.length < 4) head = Buffer.concat([head, chunk.subarray(0, 4 - head.length)]);
      hash.update(chunk);
      done(null, chunk);
    },
  });
  // pipeline listens for errors on both streams: a refusal raised while the sandbox is not reading yet
  // (opening the file) must reach this write, never escape as an uncaught error that ends the node.
  pipeline(source, counted, () => undefined);
  const temp = [target.folder, `.spawnpoint-${randomBytes(6).toString('hex')}.part`];
  try {
    await sandbox.ensureDir(target.folder);
    await sandbox.writeFrom(temp, counted, { overwrite: false });
    const result = await check({ temp, bytes, digest: hash.digest('hex'), head });
    await sandbox.remove([target.folder, `${target.fileName}.disabled`]).catch(() => undefined);
    await sandbox.remove([target.folder, target.fileName]).catch(() => undefined);
    await sandbox.rename(temp, [target.folder, target.fileName]);
    return result;
  } catch (err) {
    source.destroy();
    counted.destroy();
    await sandbox.remove(temp).catch(() => undefined);
    throw err;
  }
}
