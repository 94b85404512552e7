import { readdir, readFile, rename, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { newestVersionFirst } from '@spawnpoint/contracts';
import { z } from 'zod';
import { installableSoftware, readCapped, type InstallableSoftware, type SoftwareMirrors } from './software-installer.ts';

/**
 * The Minecraft versions each vendor publishes, read from the vendors' own metadata (Mojang's version
 * manifest, Paper's Fill API, Purpur's API, Fabric's meta API, or the mirrors an operator names) and kept
 * on disk, so a node offers a release the day its vendor publishes it and keeps offering what it knew while
 * a vendor is unreachable. Releases (1.21.4, 26.1) are listed apart from previews: the snapshots and
 * pre-releases a vendor published after its newest release, offered only to an owner who asks for them.
 */
export type VersionLists = Record<InstallableSoftware, string[]>;
/** What the node offers: releases per software, and apart, the previews ahead of them. */
export type OfferedVersions = VersionLists & { previews: VersionLists };
/** At most this many previews per software (Mojang lists every snapshot ever made). */
const PREVIEWS_MAX = 20;

/** A release number: 1.21.4, 26.1, 26.1.2 — not 1.21.5-pre1, 25w14a or 1.21.4-rc1. */
const RELEASE = /^\d{1,3}\.\d{1,3}(?:\.\d{1,3})?$/;
/** What a preview's name may be (25w14a, 1.21.5-pre1, 26.1-snapshot-2): also a file name in the jar cache. */
const PREVIEW = /^[0-9][0-9A-Za-z.+_-]{0,31}$/;
const MAX_JSON_BYTES = 8 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 15_000;
export const VERSIONS_REFRESH_MS = 6 * 60 * 60_000;

/** A vendor's versions newest first, each marked a release or not (a snapshot, a pre-release). */
type Listed = { id: string; release: boolean }[];
const byName = (ids: string[]): Listed => ids.map((id) => ({ id, release: RELEASE.test(id) }));

const shapes = {
  // GET /v3/projects/paper: versions grouped by their family, each group newest first.
  paper: z
    .object({ versions: z.record(z.string(), z.array(z.string())) })
    .transform((a) => byName(newestVersionFirst(Object.keys(a.versions)).flatMap((family) => a.versions[family] ?? []))),
  // GET /v2/purpur: every version the project has built, oldest first.
  purpur: z.object({ versions: z.array(z.string()) }).transform((a) => byName([...a.versions].reverse())),
  // GET /mc/game/version_manifest_v2.json: every version with its type, newest first.
  vanilla: z
    .object({ versions: z.array(z.object({ id: z.string(), type: z.string() })) })
    .transform((a) =>
      a.versions.filter((v) => v.type === 'release' || v.type === 'snapshot').map((v) => ({ id: v.id, release: v.type === 'release' })),
    ),
  // GET /v2/versions/game: the game versions Fabric supports, newest first, `stable` for releases.
  fabric: z
    .array(z.object({ version: z.string(), stable: z.boolean() }))
    .transform((a) => a.map((v) => ({ id: v.version, release: v.stable }))),
} satisfies Record<InstallableSoftware, z.ZodType<Listed, unknown>>;

/** The previews a vendor lists ahead of its newest release (those behind it are superseded). */
function previewsAhead(listed: Listed): string[] {
  const first = listed.findIndex((v) => v.release);
  return listed
    .slice(0, first === -1 ? listed.length : first)
    .filter((v) => PREVIEW.test(v.id))
    .map((v) => v.id)
    .slice(0, PREVIEWS_MAX);
}

const listsShape = z.object(
  Object.fromEntries(installableSoftware.map((s) => [s, z.array(z.string()).max(2000)])) as Record<
    InstallableSoftware,
    z.ZodArray<z.ZodString>
  >,
);
const empty = (): VersionLists => ({ paper: [], purpur: [], vanilla: [], fabric: [] });
// Written before previews were kept: read as having none.
const cacheFile = listsShape.extend({ previews: listsShape.optional() });

export class SoftwareVersions {
  private lists: VersionLists = empty();
  private previews: VersionLists = empty();
  private loaded: Promise<void>;
  private refreshedAt = 0;
  private running: Promise<void> | null = null;

  constructor(
    private cacheDir: string,
    private mirrors: SoftwareMirrors,
    private log: (message: string) => void = () => undefined,
    private refreshMs = VERSIONS_REFRESH_MS,
  ) {
    this.loaded = this.load();
  }

  private get file(): string {
    return path.join(this.cacheDir, 'versions.json');
  }

  /** What was read last time, from disk: a node that starts with every vendor unreachable still offers it. */
  private async load(): Promise<void> {
    try {
      const parsed = cacheFile.safeParse(JSON.parse(await readFile(this.file, 'utf8')));
      if (parsed.success) {
        const { previews, ...lists } = parsed.data;
        this.lists = lists;
        this.previews = previews ?? empty();
      }
    } catch {
      // No list yet (a new node) or one it cannot read: the first refresh makes it.
    }
  }

  /**
   * Each software's releases a server can be made with on this node, newest first: what its vendor
   * publishes, and any version whose jar is already in the node's cache (an operator's, or one a vendor
   * withdrew since). A refresh is started when the lists are older than the refresh period.
   */
  async offered(): Promise<OfferedVersions> {
    await this.loaded;
    if (Date.now() - this.refreshedAt > this.refreshMs) void this.refresh();
    // A node that never read any list (just installed) waits for its first reading rather than offer nothing.
    if (this.running && installableSoftware.every((s) => this.lists[s].length === 0)) await this.running;
    const cached = await Promise.all(installableSoftware.map((s) => this.cachedJars(s)));
    const releases = Object.fromEntries(
      installableSoftware.map((s, i) => [s, newestVersionFirst([...this.lists[s], ...(cached[i] ?? [])])]),
    ) as VersionLists;
    return { ...releases, previews: { ...this.previews } };
  }

  /** Asks every vendor again; a vendor that fails keeps its last list. Concurrent calls share one round. */
  refresh(): Promise<void> {
    this.running ??= this.refreshAll()
      .catch((err: unknown) => this.log(`Could not keep the software versions on disk (${String(err)}).`))
      .finally(() => (this.running = null));
    return this.running;
  }

  private async refreshAll(): Promise<void> {
    await this.loaded;
    this.refreshedAt = Date.now();
    const results = await Promise.allSettled(installableSoftware.map((s) => this.read(s)));
    let changed = false;
    results.forEach((result, i) => {
      const software = installableSoftware[i] as InstallableSoftware;
      if (result.status === 'fulfilled') {
        const { releases, previews } = result.value;
        changed ||= releases.join() !== this.lists[software].join() || previews.join() !== this.previews[software].join();
        this.lists[software] = releases;
        this.previews[software] = previews;
      } else this.log(`Could not read ${software}'s versions (${String(result.reason)}); the last list stays.`);
    });
    if (!changed) return;
    await mkdir(this.cacheDir, { recursive: true });
    const temp = `${this.file}.tmp`;
    await writeFile(temp, JSON.stringify({ ...this.lists, previews: this.previews }));
    await rename(temp, this.file);
  }

  private async read(software: InstallableSoftware): Promise<{ releases: string[]; previews: string[] }> {
    const m = this.mirrors;
    const url = {
      paper: `${m.paper}/v3/projects/paper`,
      purpur: `${m.purpur}/v2/purpur`,
      vanilla: `${m.mojang}/mc/game/version_manifest_v2.json`,
      fabric: `${m.fabric}/v2/versions/game`,
    }[software];
    // A vendor's metadata never redirects: an answer that does is not the vendor's.
    const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body = await readCapped(response, MAX_JSON_BYTES, `${software}'s versions`);
    const parsed = shapes[software].safeParse(JSON.parse(body.toString('utf8')));
    if (!parsed.success) throw new Error('an answer not in the vendor’s shape');
    const releases = newestVersionFirst(parsed.data.filter((v) => v.release && RELEASE.test(v.id)).map((v) => v.id));
    if (releases.length === 0) throw new Error('no release listed');
    return { releases: releases.slice(0, 1000), previews: previewsAhead(parsed.data) };
  }

  private async cachedJars(software: InstallableSoftware): Promise<string[]> {
    const names = await readdir(path.join(this.cacheDir, software)).catch(() => [] as string[]);
    return names.filter((n) => n.endsWith('.jar') && RELEASE.test(n.slice(0, -4))).map((n) => n.slice(0, -4));
  }
}
