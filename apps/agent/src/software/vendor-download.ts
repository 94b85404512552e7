import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { z } from 'zod';

/**
 * Asking a vendor's API and downloading what it names, for server software (software-installer.ts) and
 * Java runtimes (java-installer.ts) alike: every answer is read up to a cap and checked against a schema,
 * every file is streamed to disk while hashed, with progress in tenths, a stall timer and a size cap. The
 * caller compares the digests with the vendor's published checksum before using the file.
 */

/** A failure the server's owner reads in the console ("Could not start: …"). */
export class InstallError extends Error {}

export interface VendorClient {
  userAgent: string;
  /** No byte for this long: the vendor (or a mirror) stalled, and the download is given up. */
  stallMs: number;
}

export const DEFAULT_USER_AGENT = 'Spawnpoint-agent (+https://spawnpoint.gg/contact)';
const MAX_JSON_BYTES = 8 * 1024 * 1024;

export type Digests = Record<'sha256' | 'sha1' | 'md5', string>;

/** A vendor's file to download: where, what the console calls it, and the most it may weigh. */
export interface VendorFile {
  url: string;
  label: string;
  maxBytes: number;
  /** What a file past `maxBytes` is told as ("is larger than a server jar can be"). */
  tooLarge: string;
  /** No checksum vouches for it: it must not arrive over plain HTTP after asking over HTTPS. */
  unchecked: boolean;
}

export async function vendorFetch(client: VendorClient, url: string, what: string): Promise<Response> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InstallError(`The vendor gave an address for ${what} that is not one.`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new InstallError(`The vendor gave an address for ${what} that is not one.`);
  let response: Response;
  try {
    // fetch follows at most 20 redirects and then fails: a redirect loop ends here.
    response = await fetch(parsed, {
      // Identity: the checksum and Content-Length are of the file itself, never of a compressed copy.
      headers: { 'user-agent': client.userAgent, 'accept-encoding': 'identity' },
      redirect: 'follow',
      signal: AbortSignal.timeout(10 * 60_000),
    });
  } catch (err) {
    const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : err instanceof Error ? err.message : String(err);
    throw new InstallError(`Could not reach the download server for ${what} (${cause}). Try again later.`);
  }
  if (response.status === 404) throw new InstallError(`The vendor has no ${what} (404).`);
  if (!response.ok) throw new InstallError(`The download server answered ${response.status} for ${what}. Try again later.`);
  return response;
}

export async function vendorJson<T>(client: VendorClient, url: string, schema: z.ZodType<T>, what: string): Promise<T> {
  const response = await vendorFetch(client, url, what);
  const text = await readCapped(response, MAX_JSON_BYTES, what);
  let data: unknown;
  try {
    data = JSON.parse(text.toString('utf8'));
  } catch {
    throw new InstallError(`The vendor's answer about ${what} was not JSON.`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new InstallError(`The vendor's answer about ${what} was not in the expected shape.`);
  return parsed.data;
}

/** Streams `file` to `target` while hashing it; returns its digests. */
export async function downloadHashed(
  client: VendorClient,
  file: VendorFile,
  target: string,
  progress: (line: string) => void,
): Promise<Digests> {
  const response = await vendorFetch(client, file.url, file.label);
  if (file.unchecked && new URL(file.url).protocol === 'https:' && new URL(response.url).protocol !== 'https:')
    throw new InstallError(`The download of ${file.label} was redirected away from HTTPS, so it was not used.`);
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > file.maxBytes) throw new InstallError(`${file.label} ${file.tooLarge}.`);
  if (!response.body) throw new InstallError(`The download of ${file.label} was empty.`);
  const hashes = { sha256: createHash('sha256'), sha1: createHash('sha1'), md5: createHash('md5') };
  let bytes = 0;
  let lastTenth = 0;
  let stall: NodeJS.Timeout | undefined;
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  const armStall = () => {
    clearTimeout(stall);
    stall = setTimeout(() => body.destroy(new InstallError(`The download of ${file.label} stalled. Try again later.`)), client.stallMs);
  };
  armStall();
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      armStall();
      bytes += chunk.length;
      if (bytes > file.maxBytes) return done(new InstallError(`${file.label} ${file.tooLarge}.`));
      for (const h of Object.values(hashes)) h.update(chunk);
      if (declared > 0) {
        const tenth = Math.floor((bytes / declared) * 10);
        if (tenth > lastTenth && tenth < 10) {
          lastTenth = tenth;
          progress(`Downloading ${file.label}: ${tenth * 10} % of ${(declared / 1024 / 1024).toFixed(1)} MB`);
        }
      }
      done(null, chunk);
    },
  });
  try {
    await pipeline(body, count, createWriteStream(target, { mode: 0o644 }));
  } catch (err) {
    if (err instanceof InstallError) throw err;
    throw new InstallError(
      `The download of ${file.label} broke off (${err instanceof Error ? err.message : String(err)}). Try again later.`,
    );
  } finally {
    clearTimeout(stall);
  }
  if (Number.isFinite(declared) && declared >= 0 && bytes !== declared)
    throw new InstallError(`The download of ${file.label} was cut short (${bytes} of ${declared} bytes). Try again later.`);
  return { sha256: hashes.sha256.digest('hex'), sha1: hashes.sha1.digest('hex'), md5: hashes.md5.digest('hex') };
}

export async function readCapped(response: Response, max: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (!response.body) return Buffer.alloc(0);
  for await (const chunk of Readable.fromWeb(response.body as WebReadableStream<Uint8Array>)) {
    size += (chunk as Buffer).length;
    if (size > max) throw new InstallError(`The vendor's answer about ${what} was too large.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
