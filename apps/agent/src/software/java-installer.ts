import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, realpath, rename, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract, type Header } from 'tar-stream';
import { downloadableJava, javaFeatureFor } from '@spawnpoint/contracts';
import { z } from 'zod';
import { javaHomeMajor, type JavaRuntime } from './java-runtimes.ts';
import { DEFAULT_USER_AGENT, downloadHashed, InstallError, vendorJson, type VendorClient } from './vendor-download.ts';

/**
 * Java runtimes the node downloads for itself when a Minecraft version needs a Java it does not have
 * (docs/guide.md, "The Java each version needs"): Eclipse Temurin's JRE, as Adoptium's API v3 names it for this machine's
 * architecture, with the SHA-256 it publishes. The archive is streamed to a temporary file while hashed,
 * refused unless the checksum matches, unpacked (nothing outside its folder, no device or link out of it),
 * checked to be the Java it claims (its `release` file, a `bin/java` program for Linux), and only then renamed to
 * `<javaDir>/<major>`, where every later start finds it. Two starts needing one Java share one download.
 */

const adoptiumArch: Partial<Record<NodeJS.Architecture, string>> = { x64: 'x64', arm64: 'aarch64' };

/**
 * What a node tells the API about its Java: the majors it can run servers on (`javaMajors`: those it has,
 * and with downloads on, every one it can download) and those it has now (`javaInstalled`).
 */
export function javaOffer(
  installed: JavaRuntime[],
  installer: JavaInstaller | undefined,
): { javaMajors: number[]; javaInstalled: number[] } {
  const have = installed.map((r) => r.major);
  // Adoptium builds for some processors only: elsewhere nothing can be downloaded.
  const downloads = installer && adoptiumArch[process.arch] ? downloadableJava : [];
  const can = [...new Set([...have, ...downloads])].sort((a, b) => a - b);
  return { javaMajors: can, javaInstalled: have };
}

export const ADOPTIUM_API = 'https://api.adoptium.net';

// A JRE is 40–70 MB packed and about three times that unpacked.
const MAX_ARCHIVE_BYTES = 400 * 1024 * 1024;
const MAX_UNPACKED_BYTES = 1024 * 1024 * 1024;
const MAX_ENTRIES = 20_000;
const STALL_MS = 30_000;

const adoptiumAssets = z.array(
  z.object({
    release_name: z.string().max(100),
    binary: z.object({
      package: z.object({
        name: z.string().max(200),
        link: z.string().max(2000),
        checksum: z.string().regex(/^[0-9a-fA-F]{64}$/),
      }),
    }),
  }),
);

export class JavaInstaller {
  private inFlight = new Map<number, Promise<JavaRuntime>>();
  private client: VendorClient;

  constructor(
    /** Where downloaded runtimes live: `<javaDir>/<major>/bin/java`. */
    readonly javaDir: string,
    private mirror = ADOPTIUM_API,
    userAgent = DEFAULT_USER_AGENT,
    stallMs = STALL_MS,
  ) {
    this.client = { userAgent, stallMs };
    // Half-unpacked runtimes of an agent that stopped midway: nothing of them may be used.
    void sweep(javaDir);
  }

  /**
   * A runtime of at least Java `needed`, downloaded first if this node's folder has none. `progress` gets the
   * console's lines.
   */
  ensure(needed: number, progress: (line: string) => void = () => undefined): Promise<JavaRuntime> {
    const major = javaFeatureFor(needed);
    if (major === null) return Promise.reject(new InstallError(`No Java runtime that can be downloaded runs Java ${needed} programs.`));
    const home = path.join(this.javaDir, String(major));
    if (existsSync(path.join(home, 'bin', 'java'))) return Promise.resolve({ major, bin: path.join(home, 'bin', 'java') });
    let running = this.inFlight.get(major);
    if (!running) {
      running = this.install(major, home, progress).finally(() => this.inFlight.delete(major));
      this.inFlight.set(major, running);
    } else progress(`Another server is downloading Java ${major}; waiting for it.`);
    return running;
  }

  private async install(major: number, home: string, progress: (line: string) => void): Promise<JavaRuntime> {
    const arch = adoptiumArch[process.arch];
    if (!arch) throw new InstallError(`Adoptium builds no Java for this node's processor (${process.arch}).`);
    progress(
      `This server needs Java ${major}, which this node does not have yet: downloading Eclipse Temurin ${major} once for every server here.`,
    );
    const query = new URLSearchParams({ architecture: arch, image_type: 'jre', os: 'linux', vendor: 'eclipse' });
    const assets = await vendorJson(
      this.client,
      `${this.mirror}/v3/assets/latest/${major}/hotspot?${query}`,
      adoptiumAssets,
      `Java ${major}`,
    );
    const asset = assets[0];
    if (!asset) throw new InstallError(`Adoptium publishes no Java ${major} runtime for this node (Linux, ${arch}).`);
    const label = `Eclipse Temurin ${asset.release_name} (Java runtime)`;
    await mkdir(this.javaDir, { recursive: true, mode: 0o755 });
    const part = path.join(this.javaDir, `.${major}.${randomBytes(6).toString('hex')}.part`);
    try {
      const url = this.onMirror(asset.binary.package.link);
      const file = { url, label, maxBytes: MAX_ARCHIVE_BYTES, tooLarge: 'is larger than a Java runtime can be', unchecked: false };
      const digest = await downloadHashed(this.client, file, `${part}.tar.gz`, progress);
      if (digest.sha256 !== asset.binary.package.checksum.toLowerCase())
        throw new InstallError(`The download of ${label} did not match Adoptium's SHA-256 checksum, so it was not used. Try again later.`);
      progress(`Unpacking ${label}…`);
      await unpackTarGz(`${part}.tar.gz`, part, label);
      await this.check(part, major, label);
      // A folder left there without a usable runtime (cut short by hand, emptied) is replaced.
      await rm(home, { recursive: true, force: true });
      await rename(part, home);
      progress(`${label} is ready (SHA-256 ${digest.sha256.slice(0, 16)}…).`);
      return { major, bin: path.join(home, 'bin', 'java') };
    } finally {
      await rm(`${part}.tar.gz`, { force: true });
      await rm(part, { recursive: true, force: true });
    }
  }

  /**
   * The unpacked runtime is the Java it was asked for: its `release` file says so and `bin/java` is a Linux
   * program inside it (no link on its way leads elsewhere). It is not run here: the agent runs nothing
   * downloaded outside the cage.
   */
  private async check(home: string, major: number, label: string): Promise<void> {
    const release = await lstat(path.join(home, 'release')).catch(() => null);
    const found = release?.isFile() ? javaHomeMajor(home) : null;
    if (found !== major)
      throw new InstallError(
        `${label} turned out to be ${found === null ? 'no Java runtime' : `Java ${found}`}, not Java ${major}, so it was not used.`,
      );
    const java = await realpath(path.join(home, 'bin', 'java')).catch(() => null);
    const inside = java !== null && java.startsWith((await realpath(home)) + path.sep);
    if (!inside || !(await isElfFile(java)))
      throw new InstallError(`${label} has no Java program for Linux inside it, so it was not used.`);
  }

  /** With a mirror configured, the archive comes from the same path on it (as for server software). */
  private onMirror(link: string): string {
    if (this.mirror === ADOPTIUM_API) return link;
    try {
      return `${this.mirror}${new URL(link).pathname}`;
    } catch {
      throw new InstallError(`Adoptium gave an address for the Java runtime that is not one.`);
    }
  }
}

/**
 * Unpacks a runtime's archive into `target`, dropping its one top folder (`jdk-21.0.5+11-jre/`). Only files,
 * folders and links that stay inside are written; anything else (devices, hard links, a path with `..`)
 * refuses the archive, as does one past MAX_UNPACKED_BYTES or MAX_ENTRIES.
 */
async function unpackTarGz(archive: string, target: string, label: string): Promise<void> {
  await mkdir(target, { recursive: true, mode: 0o755 });
  const refuse = (why: string) => new InstallError(`${label} could not be unpacked (${why}), so it was not used.`);
  let bytes = 0;
  let entries = 0;
  // Links are made once every file is written, so no file of the archive is ever written through one.
  const links: { at: string; to: string }[] = [];
  const reader = extract();
  reader.on('entry', (header: Header, stream, next) => {
    const done = (err?: unknown) => (err ? reader.destroy(err instanceof Error ? err : new Error(String(err))) : next());
    entries += 1;
    if (entries > MAX_ENTRIES) return done(refuse('too many files'));
    const parts = header.name.split('/').filter((p) => p !== '' && p !== '.');
    if (parts.some((p) => p === '..') || header.name.startsWith('/')) return done(refuse(`a path leaves its folder: ${header.name}`));
    const inner = parts.slice(1);
    if (inner.length === 0) return void stream.resume().on('end', () => done());
    const destination = path.join(target, ...inner);
    const write = async () => {
      await mkdir(path.dirname(destination), { recursive: true, mode: 0o755 });
      if (header.type === 'directory') await mkdir(destination, { recursive: true, mode: 0o755 });
      else if (header.type === 'symlink') {
        const to = header.linkname ?? '';
        const resolved = path.resolve(path.dirname(destination), to);
        if (path.isAbsolute(to) || !resolved.startsWith(target + path.sep)) throw refuse(`a link leaves its folder: ${header.name}`);
        links.push({ at: destination, to });
      } else if (header.type === 'file') {
        bytes += header.size ?? 0;
        if (bytes > MAX_UNPACKED_BYTES) throw refuse('it is larger than a Java runtime can be');
        // Executable bits as packed; never set-id, never writable by others.
        await pipeline(stream, createWriteStream(destination, { mode: (header.mode ?? 0o644) & 0o755 }));
        await chmod(destination, ((header.mode ?? 0o644) & 0o755) | 0o444);
        return;
      } else throw refuse(`${header.type ?? 'unknown'} entry ${header.name}`);
      stream.resume();
      await new Promise<void>((resolve) => stream.on('end', () => resolve()));
    };
    write().then(() => done(), done);
  });
  try {
    await pipeline(createReadStream(archive), createGunzip(), reader);
  } catch (err) {
    if (err instanceof InstallError) throw err;
    throw refuse(err instanceof Error ? err.message : String(err));
  }
  try {
    for (const link of links) await symlink(link.to, link.at);
  } catch (err) {
    throw refuse(`a link could not be made: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Each link checked where the system really takes it: through other links of the archive (`a -> ..`,
  // then `b -> a/../x`) a link whose own text stays inside can lead out.
  const inside = (await realpath(target)) + path.sep;
  for (const link of links) {
    const leads = await realpath(link.at).catch(() => null);
    if (leads === null || !leads.startsWith(inside))
      throw refuse(`a link leads out of its folder or nowhere: ${path.relative(target, link.at)}`);
  }
}

async function isElfFile(file: string): Promise<boolean> {
  const stat = await lstat(file).catch(() => null);
  if (!stat?.isFile()) return false;
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    await handle.read(head, 0, 4, 0);
    return head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } finally {
    await handle.close();
  }
}

async function sweep(javaDir: string): Promise<void> {
  try {
    for (const name of await readdir(javaDir))
      if (name.endsWith('.part') || name.endsWith('.part.tar.gz')) await rm(path.join(javaDir, name), { recursive: true, force: true });
  } catch {
    // No folder yet.
  }
}
