import { z } from 'zod';
import { serverState } from './api.ts';
import { permissionKey } from './permissions.ts';
import { joinStart } from './proxy.ts';
import { validationMessages } from './validation.ts';
import { serverSummary } from './api.ts';

const noVersions: readonly string[] = [];

/** Software a server can run. The built-in runtime needs nothing installed; jars come from the node's software cache. */
export const softwareCatalogue = [
  {
    id: 'flying-squid',
    name: 'Built-in (flying-squid)',
    runtime: 'flying-squid',
    // The versions flying-squid 1.12 is tested with, newest first.
    versions: ['1.21.4', '1.21.3', '1.21.1', '1.20.5', '1.20.4', '1.19.4', '1.18.2', '1.17.1', '1.16.5', '1.12.2', '1.8.8'],
  },
  // Java servers: their versions are what the vendors publish, read by the nodes (agent
  // software-versions.ts; the API's servers/software-offer.ts); a node downloads one at its first start.
  { id: 'paper', name: 'Paper', runtime: 'java-jar', versions: noVersions },
  { id: 'purpur', name: 'Purpur', runtime: 'java-jar', versions: noVersions },
  { id: 'vanilla', name: 'Vanilla', runtime: 'java-jar', versions: noVersions },
  { id: 'fabric', name: 'Fabric', runtime: 'java-jar', versions: noVersions },
] as const;

export type SoftwareId = (typeof softwareCatalogue)[number]['id'];
export type RuntimeId = (typeof softwareCatalogue)[number]['runtime'];
export const softwareIds = softwareCatalogue.map((s) => s.id) as [SoftwareId, ...SoftwareId[]];
export const DEFAULT_SOFTWARE: SoftwareId = 'flying-squid';
export const DEFAULT_VERSION = softwareCatalogue[0].versions[0];

export function findSoftware(id: string) {
  return softwareCatalogue.find((s) => s.id === id);
}

/** The software's name in a sentence ("Paper server", "Built-in server"): the catalogue's, capitalised as vendors write it. */
export function softwareTitle(id: string): string {
  return id === 'flying-squid' ? 'Built-in' : (findSoftware(id)?.name ?? id);
}

/** Minecraft versions newest first, by each dotted number in turn (26.1 before 1.21.11, 1.21.10 before 1.21.9). */
export function newestVersionFirst(versions: Iterable<string>): string[] {
  const parts = (v: string) => v.split('.').map((n) => Number.parseInt(n, 10) || 0);
  return [...new Set(versions)].sort((a, b) => {
    const [pa, pb] = [parts(a), parts(b)];
    for (let i = 0; i < Math.max(pa.length, pb.length); i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pb[i] ?? 0) - (pa[i] ?? 0);
    return 0;
  });
}

/** Whether servers of this software run a Java jar (they need a Java runtime and the Minecraft EULA). */
export function isJavaSoftware(id: string): boolean {
  return findSoftware(id)?.runtime === 'java-jar';
}

/**
 * The Java major version a Minecraft version needs at least: 25 from 26.1, 21 from 1.20.5, 17 from 1.18, 16 for 1.17,
 * 8 before (Mojang's own requirements). A node runs it on the smallest installed Java at or above that.
 */
export function javaMajorFor(minecraftVersion: string): number {
  const [major = 0, minor = 0, patch = 0] = minecraftVersion.split('.').map((n) => Number.parseInt(n, 10) || 0);
  const at = (mi: number, pa = 0) => major > 1 || minor > mi || (minor === mi && patch >= pa);
  // Year-numbered releases (26.1 on) need Java 25.
  if (major >= 26) return 25;
  if (at(20, 5)) return 21;
  if (at(18)) return 17;
  if (at(17)) return 16;
  return 8;
}

/** The Java releases a node downloads for itself (long-term ones, from Adoptium), smallest first. */
export const downloadableJava = [8, 11, 17, 21, 25] as const;
/** The Java a node downloads for a program needing at least Java `needed`: the smallest that fits, or null. */
export const javaFeatureFor = (needed: number): number | null => downloadableJava.find((major) => major >= needed) ?? null;

/** The words of the Minecraft EULA gate; the link is Mojang's. */
export const MINECRAFT_EULA_URL = 'https://aka.ms/MinecraftEULA';
export const eulaMessages = {
  required: 'Accept the Minecraft EULA for this server before starting it (Start asks you).',
} as const;

export const SERVER_NAME_MIN = 3;
export const SERVER_NAME_MAX = 16;

export const serverNameMessage = `The server name must be ${SERVER_NAME_MIN} to ${SERVER_NAME_MAX} characters of lowercase letters, digits and dashes, and may not start or end with a dash.`;

export const serverName = z
  .string({ error: 'The server name field is required' })
  .trim()
  .toLowerCase()
  .min(SERVER_NAME_MIN, serverNameMessage)
  .max(SERVER_NAME_MAX, serverNameMessage)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, serverNameMessage);

export const createServerRequest = z.object({
  serverName,
  software: z.enum(softwareIds).optional(),
  version: z.string().max(32).optional(),
});
export type CreateServerRequest = z.infer<typeof createServerRequest>;

// Checked while the user types: a name too long to ever be valid is answered in the form rule's words.
export const nameAvailabilityQuery = z.object({
  name: z.string({ error: validationMessages.required('server name') }).max(64, validationMessages.max('server name', SERVER_NAME_MAX)),
});
export const nameAvailabilityResult = z.object({
  name: z.string(),
  available: z.boolean(),
  /** Why not, in words a user can act on. */
  reason: z.string().optional(),
});

export const serverIdParams = z.object({
  serverId: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/),
});
export const powerAction = z.enum(['start', 'stop', 'restart', 'kill']);
export type PowerAction = z.infer<typeof powerAction>;
/** What a power action answers: the state the server is in once the action was accepted. */
export const powerResult = z.object({ serverId: z.string(), state: serverState });

/**
 * A console command as typed: one line of at most 256 characters without control characters. A line break
 * would run a second command unseen (one message, one command, one entry in the activity log), and a NUL
 * could not be kept in that log.
 */
export const consoleCommand = z
  .string()
  .trim()
  .min(1, 'The command field is required')
  .max(256, 'The command field may not be greater than 256 characters')
  .refine((command) => !/\p{Cc}/u.test(command), 'A command is one line without control characters.');
export const commandRequest = z.object({ command: consoleCommand });

/**
 * The names a server's status ping lists (its `sample`), as far as they are kept. The game answers that ping,
 * so they are the tenant's words: at most this many, each cut to this length.
 */
export const PLAYERS_LISTED_MAX = 100;
/** The longest reason a node gives for a server going offline on its own (`stoppedBecause`). */
export const STOPPED_BECAUSE_MAX = 2000;
export const PLAYER_NAME_SHOWN_MAX = 64;
export const serverStats = z.object({
  cpu: z.number(),
  memory: z.number(),
  disk: z.number(),
  players: z.object({
    online: z.number().int(),
    max: z.number().int(),
    list: z.array(z.string().max(PLAYER_NAME_SHOWN_MAX)).max(PLAYERS_LISTED_MAX),
  }),
});
export type ServerStats = z.infer<typeof serverStats>;

/**
 * An account's play time today (UTC day), counted while any of its servers runs (starting, waking, online
 * or stopping). `counting`: it is being used now, so a page counts `remainingSeconds` down by itself.
 */
export const playTimeStatus = z.object({
  allowanceSeconds: z.number().int().min(0),
  usedSeconds: z.number().int().min(0),
  remainingSeconds: z.number().int().min(0),
  counting: z.boolean(),
  /** When the allowance starts again: the next midnight UTC. */
  resetsAt: z.string(),
});
export type PlayTimeStatus = z.infer<typeof playTimeStatus>;

export const serverDetails = serverSummary.extend({
  software: z.string(),
  version: z.string(),
  /** The direct connection a player uses in the embedded default. */
  host: z.string(),
  port: z.number().int(),
  stats: serverStats.nullable(),
  memoryLimit: z.number().int(),
  /** The player slots its plan gives: `max-players` in server.properties may be lower, never higher. */
  playerSlots: z.number().int(),
  /** Whether the server is shown on the public server list. */
  publicListing: z.boolean(),
  /** A join proxy is running, so `joinAddress` works in Minecraft (a stopped server starts when a player joins). */
  joinByName: z.boolean(),
  /** The keys the caller holds on this server (their role's): the web app offers only what these allow. */
  permissions: z.array(permissionKey),
  /** Minutes without players after which the server stops and sleeps (its owner's plan); null: never. */
  sleepsAfterMinutes: z.number().nullable(),
  /**
   * Why the server last went offline without being asked — a start that failed, a crash, its disk or memory
   * limit — in the node's words (they say what to do); null once it starts again, or when it was stopped.
   */
  stoppedBecause: z.string().nullable(),
  /** Place in the start queue of its node (1 = next), while `queued` there; null otherwise. */
  queuePosition: z.number().int().min(1).nullable(),
  /** The owner's play time today; null when the plan has no daily allowance. */
  playTime: playTimeStatus.nullable(),
  /** Java servers: whether the Minecraft EULA was accepted for it (Start asks first); null: not needed. */
  eulaAccepted: z.boolean().nullable(),
  /**
   * Java servers: the join proxy opens each connection with a PROXY protocol v2 header, so a server that
   * expects it (Paper's `proxies.proxy-protocol`) sees players' real addresses; null: not offered.
   */
  proxyProtocol: z.boolean().nullable(),
  /** When a player joining by name starts the server (see `joinStartModes`). */
  joinStart,
});
export type ServerDetails = z.infer<typeof serverDetails>;
export const proxyProtocolRequest = z.object({ enabled: z.boolean() });

/** `POST /v1/server/{id}/eula`: the owner (or an administrator) accepts the Minecraft EULA for the server. */
export const eulaAcceptRequest = z.object({ accept: z.literal(true, { error: 'Tick that you accept the Minecraft EULA.' }) });

/**
 * `POST /v1/server/{id}/appearance` (`appearance.update`): how the server presents itself publicly. For
 * now whether it is on the public server list; its page name, icon and description come with the
 * appearance page.
 */
export const serverAppearanceRequest = z.object({
  publicListing: z.boolean({ error: 'The public listing field must be true or false' }),
});

/** One server of the public list (`GET /v1/servers/list`): only what a player needs to pick and join. */
export const publicServerEntry = z.object({
  name: z.string(),
  software: z.string(),
  version: z.string(),
  state: serverState,
  players: z.object({ online: z.number().int(), max: z.number().int() }),
  /** The message of the day as saved (`§` codes; the page draws it with the MOTD renderer). */
  motd: z.string(),
  /** The icon's address (`GET /v1/servers/list/{name}/icon?v=…`, cached for good), or null for the default. */
  icon: z.string().nullable(),
  /** host:port, the direct connection. */
  address: z.string(),
  /** `NAME.<PLAY_DOMAIN>` while a join proxy runs (joining wakes a sleeping server), else null. */
  joinAddress: z.string().nullable(),
  createdAt: z.string(),
});
export type PublicServerEntry = z.infer<typeof publicServerEntry>;

/** Servers per page of the public list. */
export const PUBLIC_SERVER_LIST_PAGE = 24;
export const publicServerSorts = ['players', 'newest'] as const;
export const publicServerListQuery = z.object({
  /** Part of the name. */
  q: z.string().trim().max(32).optional(),
  software: z.enum(softwareIds).optional(),
  version: z.string().max(16).optional(),
  /** `players`: online first, then by players; `newest`: most recently created first. */
  sort: z.enum(publicServerSorts).default('players'),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
});
export type PublicServerListQuery = z.infer<typeof publicServerListQuery>;
export const publicServerListResult = z.object({
  servers: z.array(publicServerEntry),
  /** Servers matching the search and filters, on all pages. */
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  /** The versions listed servers of the chosen software run, newest first (the version filter's choices). */
  versions: z.array(z.string()).default([]),
});
export type PublicServerList = z.infer<typeof publicServerListResult>;
export const publicServerNameParams = z.object({ name: z.string().min(1).max(64) });

/**
 * `PUT /v1/server/{id}/version`: another Minecraft version of the server's software, applied at its next
 * start after a backup. Going to an older version needs `confirmDowngrade` (worlds saved by a newer version
 * may not load in an older one).
 */
export const serverVersionRequest = z.object({
  version: z.string({ error: 'Choose a version' }).min(1, 'Choose a version').max(32),
  confirmDowngrade: z.boolean().default(false),
});
export const downgradeMessage = (from: string, to: string) =>
  `Worlds saved by Minecraft ${from} may not load in ${to}: the backup made first is how you go back. Confirm the downgrade to go on.`;

export const softwareResult = z.array(
  z.object({
    id: z.enum(softwareIds),
    name: z.string(),
    versions: z.array(z.string()),
    available: z.boolean(),
    /** Snapshots and pre-releases ahead of the newest release: offered only when the owner asks for them. */
    previews: z.array(z.string()),
    /** Of `versions` and `previews`, those whose Java no connected node has yet: the node downloads it at the first start. */
    javaDownloads: z.array(z.string()),
  }),
);

/**
 * Which states allow which power action (docs/product.md, Server states). Kill is always allowed. A
 * sleeping server starts as an offline one does; stopping a server that waits in the start queue takes it
 * out of the queue.
 */
export const powerPreconditions: Record<PowerAction, readonly z.infer<typeof serverState>[] | 'any'> = {
  start: ['offline', 'sleeping'],
  stop: ['queued', 'installing', 'starting', 'waking', 'online'],
  restart: ['online'],
  kill: 'any',
};

export const FREE_SERVER_LIMIT = 2;
/**
 * SERVER_LIMIT_REACHED when creating: the catalogue's text is about servers running at once (hibernating
 * frees that), but an owned server only stops counting once it is deleted.
 */
export const OWNED_SERVER_LIMIT_MESSAGE = `An account can own at most ${FREE_SERVER_LIMIT} servers. Delete one of yours to create another.`;
/** The same refusal for an account whose servers' plans allow `limit` (a paid plan raises it: plans.ts `servers`). */
export const ownedServerLimitMessage = (limit: number) =>
  limit === FREE_SERVER_LIMIT
    ? `${OWNED_SERVER_LIMIT_MESSAGE} A server on a paid plan raises the limit.`
    : `An account can own at most ${limit} servers on its plans. Delete one of yours to create another.`;
/**
 * SERVER_LIMIT_REACHED when starting: the account already runs as many servers as its plans allow; names
 * them and how to free a slot.
 */
export function activeServerLimitMessage(limit: number, running: string[]): string {
  const names = running.length ? running.join(', ') : 'another of your servers';
  const verb = running.length > 1 ? 'are' : 'is';
  return `Your plan runs ${limit === 1 ? 'one server' : `${limit} servers`} at a time, and ${names} ${verb} running. Stop ${running.length > 1 ? 'one of them' : 'it'} (or let it sleep), or upgrade to a plan that runs more, then start this one.`;
}
export const FREE_MEMORY_MB = 1024;
