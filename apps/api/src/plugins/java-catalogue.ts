import {
  CATALOGUE_ICON_ORIGINS,
  JAVA_CATALOGUE_PAGE,
  javaPluginSourceNames,
  jarFileName,
  type JavaPluginSource,
  type JavaPluginVersion,
} from '@spawnpoint/contracts';
import { z } from 'zod';
import { ApiError } from '../http/errors.ts';

/** What a Java server loads, for a catalogue's filters. */
export interface CatalogueTarget {
  /** Modrinth loaders (categories) the server's software runs. */
  loaders: string[];
  gameVersion: string;
  kind: 'plugins' | 'mods';
}

export interface CatalogueProject {
  projectId: string;
  name: string;
  summary: string;
  author: string;
  icon: string | null;
  downloads: number;
  gameVersions: string[];
}

export interface CatalogueFile {
  projectId: string;
  versionId: string;
  version: string;
  fileName: string;
  url: string;
  size: number | null;
  sha512: string | null;
  sha256: string | null;
  /** `release`, `beta` or `alpha`, as the catalogue marks the version. */
  channel: JavaPluginVersion['channel'];
  published: string | null;
}

export interface JavaCatalogue {
  readonly source: JavaPluginSource;
  search(q: string, target: CatalogueTarget, page: number): Promise<{ entries: CatalogueProject[]; total: number }>;
  project(projectId: string): Promise<CatalogueProject>;
  /** A project's versions for the target with a file the node can check (a hash), newest first. */
  versions(projectId: string, target: CatalogueTarget): Promise<CatalogueFile[]>;
}

/** The version a one-click install takes: the newest release, or the newest of any channel when there is none. */
export function newestOf(files: CatalogueFile[]): CatalogueFile | null {
  return files.find((f) => f.channel === 'release') ?? files[0] ?? null;
}

const channelOf = (value: string | undefined): JavaPluginVersion['channel'] => {
  const lower = (value ?? '').toLowerCase();
  return lower === 'beta' || lower === 'alpha' ? lower : lower === 'snapshot' ? 'alpha' : 'release';
};

const CACHE_MAX = 500;
/** Versions of one project offered to choose from (newest first). */
const VERSIONS_MAX = 25;
const TIMEOUT_MS = 8000;
// Only icons on the catalogues' own image hosts reach the page (its CSP allows no others).
const httpsOrNull = (value: string | null | undefined) => {
  if (!value) return null;
  try {
    return (CATALOGUE_ICON_ORIGINS as readonly string[]).includes(new URL(value).origin) ? value : null;
  } catch {
    return null;
  }
};

/**
 * A catalogue's HTTP API: JSON answers checked with a schema (a catalogue's answer is input from outside),
 * a short timeout, 429 said with its Retry-After, and answers kept for a minute (searches repeat as people type).
 */
class CatalogueClient {
  private cache = new Map<string, { at: number; value: unknown }>();
  constructor(
    private name: string,
    private base: string,
    private headers: Record<string, string>,
    private cacheMs: number,
  ) {}

  async get<S extends z.ZodType>(path: string, schema: S): Promise<z.infer<S> | null> {
    const url = `${this.base.replace(/\/$/, '')}${path}`;
    const hit = this.cache.get(url);
    if (hit && Date.now() - hit.at < this.cacheMs) return hit.value as z.infer<S> | null;
    let response: Response;
    try {
      // No redirects: a catalogue (or a mirror) answering 3xx must not send the API to another address (an
      // internal one, say); its API never redirects.
      response = await fetch(url, {
        headers: { accept: 'application/json', ...this.headers },
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'manual',
      });
    } catch {
      throw new ApiError('TEMPORARILY_DISABLED', undefined, `${this.name} did not answer in time. Try again in a minute.`);
    }
    if (response.status === 429) {
      const wait = Number(response.headers.get('retry-after') ?? response.headers.get('x-ratelimit-reset') ?? 'NaN');
      await response.body?.cancel();
      throw new ApiError(
        'RATE_LIMIT',
        undefined,
        `${this.name} is busy right now. Try again in ${Number.isFinite(wait) && wait > 0 ? `${Math.ceil(wait)} seconds` : 'a minute'}.`,
      );
    }
    if (response.status === 404) {
      await response.body?.cancel();
      this.remember(url, null);
      return null;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new ApiError('TEMPORARILY_DISABLED', undefined, `${this.name} answered ${response.status}. Try again in a minute.`);
    }
    const parsed = schema.safeParse(await boundedJson(response));
    if (!parsed.success)
      throw new ApiError('TEMPORARILY_DISABLED', undefined, `${this.name} answered in a way we do not understand. Try again later.`);
    this.remember(url, parsed.data);
    return parsed.data;
  }

  private remember(url: string, value: unknown): void {
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(url, { at: Date.now(), value });
  }
}

// --- Modrinth (API v2) ---------------------------------------------------------------------------------

const modrinthHit = z.object({
  project_id: z.string(),
  title: z.string(),
  description: z.string().default(''),
  author: z.string().default(''),
  icon_url: z.string().nullable().optional(),
  downloads: z.number().int().default(0),
  versions: z.array(z.string()).default([]),
});
const modrinthSearch = z.object({ hits: z.array(modrinthHit), total_hits: z.number().int() });
const modrinthProject = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string().default(''),
  icon_url: z.string().nullable().optional(),
  downloads: z.number().int().default(0),
});
const modrinthVersion = z.object({
  id: z.string(),
  version_number: z.string(),
  version_type: z.string().default('release'),
  date_published: z.string().optional(),
  files: z.array(
    z.object({
      url: z.string(),
      filename: z.string(),
      size: z.number().int().optional(),
      primary: z.boolean().default(false),
      hashes: z.object({ sha512: z.string().optional(), sha1: z.string().optional() }),
    }),
  ),
});

/** Bytes of one catalogue answer at most (a page of search results is a few tens of KB). */
const ANSWER_MAX_BYTES = 2 * 1024 * 1024;

/** The answer's JSON, read up to ANSWER_MAX_BYTES; undefined when it is larger or not JSON. */
async function boundedJson(response: Response): Promise<unknown> {
  if (!response.body) return undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > ANSWER_MAX_BYTES) {
        await reader.cancel();
        return undefined;
      }
      chunks.push(value);
    }
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export class ModrinthCatalogue implements JavaCatalogue {
  readonly source = 'modrinth' as const;
  private client: CatalogueClient;
  constructor(base: string, userAgent: string, cacheMs: number, token?: string) {
    this.client = new CatalogueClient(
      javaPluginSourceNames.modrinth,
      `${base.replace(/\/$/, '')}/v2`,
      { 'user-agent': userAgent, ...(token ? { authorization: token } : {}) },
      cacheMs,
    );
  }

  async search(q: string, target: CatalogueTarget, page: number) {
    const facets = [target.loaders.map((l) => `categories:${l}`), [`versions:${target.gameVersion}`]];
    if (target.kind === 'mods') facets.push(['project_type:mod']);
    const params = new URLSearchParams({
      query: q,
      facets: JSON.stringify(facets),
      limit: String(JAVA_CATALOGUE_PAGE),
      offset: String((page - 1) * JAVA_CATALOGUE_PAGE),
      index: q ? 'relevance' : 'downloads',
    });
    const found = await this.client.get(`/search?${params}`, modrinthSearch);
    return {
      total: found?.total_hits ?? 0,
      entries: (found?.hits ?? []).map((h) => ({
        projectId: h.project_id,
        name: h.title,
        summary: h.description,
        author: h.author,
        icon: httpsOrNull(h.icon_url),
        downloads: h.downloads,
        gameVersions: h.versions.slice(-200),
      })),
    };
  }

  async project(projectId: string): Promise<CatalogueProject> {
    const p = await this.client.get(`/project/${encodeURIComponent(projectId)}`, modrinthProject);
    if (!p) throw new ApiError('NOT_FOUND', undefined, 'Modrinth has no such project.');
    return {
      projectId: p.id,
      name: p.title,
      summary: p.description,
      author: '',
      icon: httpsOrNull(p.icon_url),
      downloads: p.downloads,
      gameVersions: [],
    };
  }

  async versions(projectId: string, target: CatalogueTarget): Promise<CatalogueFile[]> {
    const params = new URLSearchParams({ loaders: JSON.stringify(target.loaders), game_versions: JSON.stringify([target.gameVersion]) });
    const versions = (await this.client.get(`/project/${encodeURIComponent(projectId)}/version?${params}`, z.array(modrinthVersion))) ?? [];
    // Newest first, as Modrinth lists them; only versions whose primary file has a hash the node can check.
    return versions.slice(0, VERSIONS_MAX).flatMap((version) => {
      const file = version.files.find((f) => f.primary) ?? version.files[0];
      if (!file?.hashes.sha512) return [];
      return [
        {
          projectId,
          versionId: version.id,
          version: version.version_number.slice(0, 40),
          fileName: file.filename,
          url: file.url,
          size: file.size ?? null,
          sha512: file.hashes.sha512.toLowerCase(),
          sha256: null,
          channel: channelOf(version.version_type),
          published: version.date_published ?? null,
        },
      ];
    });
  }
}

// --- Hangar (API v1, Paper plugins) -------------------------------------------------------------------

const hangarProject = z.object({
  name: z.string(),
  namespace: z.object({ owner: z.string(), slug: z.string() }),
  description: z.string().default(''),
  avatarUrl: z.string().nullable().optional(),
  stats: z.object({ downloads: z.number().int().default(0) }).default({ downloads: 0 }),
  supportedPlatforms: z.record(z.string(), z.array(z.string())).default({}),
});
const hangarSearch = z.object({ pagination: z.object({ count: z.number().int() }), result: z.array(hangarProject) });
const hangarVersions = z.object({
  result: z.array(
    z.object({
      id: z.union([z.number(), z.string()]),
      name: z.string(),
      createdAt: z.string().optional(),
      channel: z.object({ name: z.string() }).optional(),
      downloads: z.record(
        z.string(),
        z.object({
          fileInfo: z.object({ name: z.string(), sizeBytes: z.number().int().optional(), sha256Hash: z.string() }).nullable().optional(),
          downloadUrl: z.string().nullable().optional(),
          externalUrl: z.string().nullable().optional(),
        }),
      ),
    }),
  ),
});

export class HangarCatalogue implements JavaCatalogue {
  readonly source = 'hangar' as const;
  private client: CatalogueClient;
  constructor(base: string, userAgent: string, cacheMs: number, apiKey?: string) {
    this.client = new CatalogueClient(
      javaPluginSourceNames.hangar,
      `${base.replace(/\/$/, '')}/api/v1`,
      { 'user-agent': userAgent, ...(apiKey ? { authorization: apiKey } : {}) },
      cacheMs,
    );
  }

  private entry = (p: z.infer<typeof hangarProject>): CatalogueProject => ({
    projectId: p.namespace.slug,
    name: p.name,
    summary: p.description,
    author: p.namespace.owner,
    icon: httpsOrNull(p.avatarUrl),
    downloads: p.stats.downloads,
    gameVersions: (p.supportedPlatforms.PAPER ?? []).slice(-200),
  });

  async search(q: string, target: CatalogueTarget, page: number) {
    if (target.kind !== 'plugins') return { entries: [], total: 0 };
    const params = new URLSearchParams({
      limit: String(JAVA_CATALOGUE_PAGE),
      offset: String((page - 1) * JAVA_CATALOGUE_PAGE),
      platform: 'PAPER',
      version: target.gameVersion,
      sort: '-downloads',
      ...(q ? { q } : {}),
    });
    const found = await this.client.get(`/projects?${params}`, hangarSearch);
    return { total: found?.pagination.count ?? 0, entries: (found?.result ?? []).map(this.entry) };
  }

  async project(projectId: string): Promise<CatalogueProject> {
    const p = await this.client.get(`/projects/${encodeURIComponent(projectId)}`, hangarProject);
    if (!p) throw new ApiError('NOT_FOUND', undefined, 'Hangar has no such project.');
    return this.entry(p);
  }

  async versions(projectId: string, target: CatalogueTarget): Promise<CatalogueFile[]> {
    const params = new URLSearchParams({
      limit: String(VERSIONS_MAX),
      offset: '0',
      platform: 'PAPER',
      platformVersion: target.gameVersion,
    });
    const versions = await this.client.get(`/projects/${encodeURIComponent(projectId)}/versions?${params}`, hangarVersions);
    return (versions?.result ?? []).flatMap((version) => {
      const download = version.downloads.PAPER;
      // Hosted elsewhere (externalUrl only): nothing Hangar vouches for with a hash.
      if (!download?.fileInfo || !download.downloadUrl) return [];
      return [
        {
          projectId,
          versionId: String(version.id),
          version: version.name.slice(0, 40),
          fileName: download.fileInfo.name,
          url: download.downloadUrl,
          size: download.fileInfo.sizeBytes ?? null,
          sha512: null,
          sha256: download.fileInfo.sha256Hash.toLowerCase(),
          channel: channelOf(version.channel?.name),
          published: version.createdAt ?? null,
        },
      ];
    });
  }
}

/** What a server's software loads from the Java catalogues (none for the built-in runtime and Vanilla). */
export function catalogueTarget(software: string, version: string): CatalogueTarget | null {
  switch (software) {
    case 'paper':
      return { loaders: ['paper', 'spigot', 'bukkit'], gameVersion: version, kind: 'plugins' };
    case 'purpur':
      return { loaders: ['purpur', 'paper', 'spigot', 'bukkit'], gameVersion: version, kind: 'plugins' };
    case 'fabric':
      return { loaders: ['fabric'], gameVersion: version, kind: 'mods' };
    default:
      return null;
  }
}

/** A catalogue file name that would not be a plain jar name in the server folder is refused. */
export function fileNameProblem(fileName: string): string | null {
  return jarFileName.safeParse(fileName).success
    ? null
    : `The catalogue's file name ${JSON.stringify(fileName.slice(0, 80))} is not a plain .jar name.`;
}
