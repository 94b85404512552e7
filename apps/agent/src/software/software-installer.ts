import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_USER_AGENT, downloadHashed, InstallError, vendorJson, type VendorClient } from './vendor-download.ts';

export { InstallError, readCapped } from './vendor-download.ts';

/**
 * Downloads server software into the node's shared cache: each vendor's documented API is
 * asked which file is current for a Minecraft version and what its checksum is, the file is streamed to a
 * temporary name while hashed, and only a file whose checksum matches is renamed into the cache. So a
 * wrong, truncated or garbage download is refused and never cached, and a half-written file is never
 * seen by a start. Two starts that need the same version at once share one download.
 */

/** Where each vendor's API lives; an operator may point these at a mirror (SOFTWARE_MIRROR_*). */
export interface SoftwareMirrors {
  paper: string;
  purpur: string;
  mojang: string;
  fabric: string;
}

export const defaultMirrors: SoftwareMirrors = {
  paper: 'https://fill.papermc.io',
  purpur: 'https://api.purpurmc.org',
  mojang: 'https://piston-meta.mojang.com',
  fabric: 'https://meta.fabricmc.net',
};

/** The software the installer knows, by catalogue id. */
export const installableSoftware = ['paper', 'purpur', 'vanilla', 'fabric'] as const;
export type InstallableSoftware = (typeof installableSoftware)[number];

interface Resolved {
  url: string;
  /** How the vendor publishes the file's digest; null when it publishes none (Fabric's launcher). */
  digest: { algorithm: 'sha256' | 'sha1' | 'md5'; hex: string } | null;
  /** What the console says it is (with the vendor's build). */
  label: string;
}

// Server jars are tens of MB; anything past this is not one.
const MAX_JAR_BYTES = 512 * 1024 * 1024;
// No byte for this long: the vendor (or a mirror) stalled.
const STALL_MS = 30_000;
const VERSION = /^[0-9][0-9A-Za-z.+_-]{0,31}$/;
const hex = (n: number) => z.string().regex(new RegExp(`^[0-9a-fA-F]{${n}}$`));

const paperBuilds = z.array(
  z.object({
    id: z.number(),
    channel: z.string(),
    downloads: z.record(z.string(), z.object({ name: z.string(), url: z.string(), checksums: z.object({ sha256: hex(64) }) })),
  }),
);
const purpurVersion = z.object({ builds: z.object({ latest: z.union([z.string(), z.number()]) }) });
const purpurBuild = z.object({ md5: hex(32) });
const mojangManifest = z.object({ versions: z.array(z.object({ id: z.string(), url: z.string(), sha1: hex(40).optional() })) });
const mojangVersion = z.object({ downloads: z.object({ server: z.object({ url: z.string(), sha1: hex(40) }) }) });
const fabricList = z.array(z.object({ version: z.string(), stable: z.boolean() }));
const fabricLoaders = z.array(z.object({ loader: z.object({ version: z.string(), stable: z.boolean() }) }));

export class SoftwareInstaller {
  private inFlight = new Map<string, Promise<string>>();
  private client: VendorClient;

  constructor(
    private cacheDir: string,
    private mirrors: SoftwareMirrors = defaultMirrors,
    userAgent = DEFAULT_USER_AGENT,
    /** No byte for this long: the vendor (or a mirror) stalled, and the download is given up. */
    stallMs = STALL_MS,
  ) {
    this.client = { userAgent, stallMs };
    // Half-written downloads of an agent that stopped midway: nothing may be left of them.
    void sweepParts(cacheDir);
  }

  /** The cached jar of a version (what the runtime launches), whether or not it is there yet. */
  jarPath(software: string, version: string): string {
    return path.join(this.cacheDir, software, `${version}.jar`);
  }

  isInstallable(software: string): software is InstallableSoftware {
    return (installableSoftware as readonly string[]).includes(software);
  }

  /**
   * The jar of `software` `version`, downloaded and checked first if the cache lacks it. `progress` gets
   * lines for the console. Concurrent calls for one version share one download.
   */
  ensure(software: InstallableSoftware, version: string, progress: (line: string) => void = () => undefined): Promise<string> {
    if (!VERSION.test(version)) return Promise.reject(new InstallError(`"${version}" is not a Minecraft version.`));
    const jar = this.jarPath(software, version);
    if (existsSync(jar)) return Promise.resolve(jar);
    const key = `${software}/${version}`;
    let running = this.inFlight.get(key);
    if (!running) {
      running = this.install(software, version, jar, progress).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, running);
    } else progress(`Another server is downloading ${software} ${version}; waiting for it.`);
    return running;
  }

  private async install(software: InstallableSoftware, version: string, jar: string, progress: (line: string) => void): Promise<string> {
    progress(`Looking up ${software} ${version}…`);
    const resolved = await this.resolve(software, version);
    progress(`Downloading ${resolved.label}…`);
    await mkdir(path.dirname(jar), { recursive: true });
    const part = `${jar}.${randomBytes(6).toString('hex')}.part`;
    try {
      const file = {
        url: resolved.url,
        label: resolved.label,
        maxBytes: MAX_JAR_BYTES,
        tooLarge: 'is larger than a server jar can be',
        unchecked: !resolved.digest,
      };
      const digest = await downloadHashed(this.client, file, part, progress);
      if (resolved.digest && digest[resolved.digest.algorithm] !== resolved.digest.hex.toLowerCase())
        throw new InstallError(
          `The download of ${resolved.label} did not match the vendor's ${resolved.digest.algorithm.toUpperCase()} checksum, so it was not used. Try again later.`,
        );
      await rename(part, jar);
      progress(`${resolved.label} is ready (SHA-256 ${digest.sha256.slice(0, 16)}…).`);
      return jar;
    } finally {
      await rm(part, { force: true });
    }
  }

  private async resolve(software: InstallableSoftware, version: string): Promise<Resolved> {
    const m = this.mirrors;
    const v = encodeURIComponent(version);
    switch (software) {
      case 'paper': {
        const builds = await this.json(`${m.paper}/v3/projects/paper/versions/${v}/builds`, paperBuilds, `Paper ${version}`);
        // Newest first; a stable build when there is one.
        const build = builds.find((b) => b.channel.toUpperCase() === 'STABLE') ?? builds[0];
        const file = build?.downloads['server:default'];
        if (!build || !file) throw new InstallError(`Paper has no build for Minecraft ${version}.`);
        return {
          url: this.onMirror(file.url, m.paper, defaultMirrors.paper),
          digest: { algorithm: 'sha256', hex: file.checksums.sha256 },
          label: `Paper ${version} build ${build.id}`,
        };
      }
      case 'purpur': {
        const info = await this.json(`${m.purpur}/v2/purpur/${v}`, purpurVersion, `Purpur ${version}`);
        const build = encodeURIComponent(String(info.builds.latest));
        const detail = await this.json(`${m.purpur}/v2/purpur/${v}/${build}`, purpurBuild, `Purpur ${version}`);
        return {
          url: `${m.purpur}/v2/purpur/${v}/${build}/download`,
          digest: { algorithm: 'md5', hex: detail.md5 },
          label: `Purpur ${version} build ${info.builds.latest}`,
        };
      }
      case 'vanilla': {
        const manifest = await this.json(`${m.mojang}/mc/game/version_manifest_v2.json`, mojangManifest, 'the Minecraft version list');
        const entry = manifest.versions.find((e) => e.id === version);
        if (!entry) throw new InstallError(`Mojang lists no Minecraft ${version}.`);
        const detail = await this.json(this.onMirror(entry.url, m.mojang, defaultMirrors.mojang), mojangVersion, `Minecraft ${version}`);
        return {
          url: this.onMirror(detail.downloads.server.url, m.mojang, defaultMirrors.mojang),
          digest: { algorithm: 'sha1', hex: detail.downloads.server.sha1 },
          label: `Vanilla ${version}`,
        };
      }
      case 'fabric': {
        const loaders = await this.json(`${m.fabric}/v2/versions/loader/${v}`, fabricLoaders, `Fabric for ${version}`);
        const installers = await this.json(`${m.fabric}/v2/versions/installer`, fabricList, 'the Fabric installers');
        const loader = (loaders.find((l) => l.loader.stable) ?? loaders[0])?.loader.version;
        const installer = (installers.find((i) => i.stable) ?? installers[0])?.version;
        if (!loader || !installer) throw new InstallError(`Fabric has no loader for Minecraft ${version}.`);
        const seg = (s: string) => encodeURIComponent(s);
        return {
          url: `${m.fabric}/v2/versions/loader/${v}/${seg(loader)}/${seg(installer)}/server/jar`,
          // Fabric's meta API publishes no checksum for the launcher it builds.
          digest: null,
          label: `Fabric ${version} (loader ${loader})`,
        };
      }
    }
  }

  private json<T>(url: string, schema: z.ZodType<T>, what: string): Promise<T> {
    return vendorJson(this.client, url, schema, what);
  }

  /**
   * Vendors' answers name their own download hosts; with a mirror configured, the same path on the
   * mirror (a mirror answers in the vendor's shapes and paths), so every byte comes from it.
   */
  private onMirror(url: string, mirror: string, vendor: string): string {
    if (mirror === vendor) return url;
    const parsed = new URL(url);
    return `${mirror}${parsed.pathname}`;
  }
}

async function sweepParts(cacheDir: string): Promise<void> {
  try {
    for (const file of await readdir(cacheDir, { recursive: true, encoding: 'utf8' }))
      if (file.endsWith('.part')) await rm(path.join(cacheDir, file), { force: true });
  } catch {
    // No cache yet.
  }
}
