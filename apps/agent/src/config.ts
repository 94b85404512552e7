import path from 'node:path';
import { apiUrlList } from '@spawnpoint/contracts';
import { LOG_FORMATS, LOG_LEVELS, resolveLogFormat, type LogFormat } from '@spawnpoint/logging';
import { z } from 'zod';
import { parseAllowList } from './cage/game-network.ts';

const portRange = z
  .string()
  .regex(/^\d+-\d+$/, 'must look like 25600-25699')
  .transform((v) => v.split('-').map(Number) as [number, number]);

/** Every environment variable the agent reads (see the README's configuration table). */
/** A vendor's API address or a mirror of it, without a trailing slash (paths are appended to it). */
const mirror = (vendor: string) =>
  z
    .url()
    .default(vendor)
    .transform((u) => u.replace(/\/+$/, ''));

const envSchema = z.object({
  AGENT_NODE_ID: z.string().min(1).max(64).default('local'),
  AGENT_TOKEN: z.string().min(32, 'must be at least 32 characters'),
  /** Bearer token of the Prometheus scraper for the node's `/metrics` (never the node token); without it the page does not exist. */
  METRICS_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  AGENT_HOST: z.string().default('127.0.0.1'),
  AGENT_PORT: z.coerce.number().int().min(0).max(65535).default(3101),
  /** The API, or every API process separated by commas: the agent reports to whichever holds the game plane. */
  API_URL: z.string().default('http://127.0.0.1:3000').pipe(apiUrlList),
  DATA_DIR: z.string().default('./data'),
  /** Address game servers listen on. */
  GAME_BIND_HOST: z.string().default('0.0.0.0'),
  GAME_PORT_RANGE: portRange.default([25600, 25699]),
  /**
   * IPv4 the games' own networks are cut from (a /30 each: game-network.ts). It must not be in use on the
   * node's networks.
   */
  GAME_SUBNET: z.string().default('10.189.0.0/16'),
  /** Destinations games may reach although they are private (`203.0.113.5:3306,10.0.0.0/24`); none by default. */
  GAME_NETWORK_ALLOW: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const parsed = parseAllowList(v);
      if (typeof parsed === 'string') {
        ctx.addIssue({ code: 'custom', message: parsed });
        return z.NEVER;
      }
      return parsed;
    }),
  /** Resolvers games use (comma-separated IPv4); by default the node's own that are not on loopback. */
  GAME_DNS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.ipv4())),
  /** S3-compatible bucket for backups: s3://KEY:SECRET@host:port/bucket?region=…&tls=false. */
  S3_URL: z
    .string()
    .regex(/^s3:\/\/[^:@/]+:[^@/]+@[^/]+\/[^/?]+/, 'must look like s3://KEY:SECRET@host:port/bucket')
    .optional(),
  /**
   * Disk of DATA_DIR's filesystem kept free for the node itself (node-disk.ts): below it, writes are
   * refused, no server starts, and games still writing are stopped.
   */
  DISK_RESERVE_MB: z.coerce.number().int().min(0).default(1024),
  STOP_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
  /**
   * Development only: where bubblewrap is missing, run game servers without the cage (loudly) instead of
   * refusing to start them. Refused with NODE_ENV=production.
   */
  ALLOW_UNCAGED_GAMES: z.enum(['true', 'false']).default('false'),
  /** The unprivileged user game processes run as when the agent runs as root; created when missing. */
  GAME_USER: z
    .string()
    .regex(/^[a-z_][a-z0-9_-]{0,31}$/, 'must be a user name')
    .default('spawnpoint-game'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  /** `pretty` (readable lines) or `json`; by default JSON when NODE_ENV is `production` and pretty otherwise. */
  LOG_FORMAT: z.enum(LOG_FORMATS).optional(),
  NODE_ENV: z.string().optional(),
  /**
   * Hosts (host or host:port) the node downloads catalogue plugins from; every redirect is checked too, so a
   * catalogue's answer cannot make the node fetch from its own network.
   */
  PLUGIN_DOWNLOAD_HOSTS: z
    .string()
    .default('cdn.modrinth.com,hangarcdn.papermc.io,hangar.papermc.io')
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
  /** Tests and local mirrors only: allow plain HTTP from those hosts. */
  PLUGIN_DOWNLOAD_ALLOW_HTTP: z.enum(['true', 'false']).default('false'),
  // Where server software comes from (software-installer.ts): the vendors, or an operator's mirror of them.
  SOFTWARE_MIRROR_PAPER: mirror('https://fill.papermc.io'),
  SOFTWARE_MIRROR_PURPUR: mirror('https://api.purpurmc.org'),
  SOFTWARE_MIRROR_MOJANG: mirror('https://piston-meta.mojang.com'),
  SOFTWARE_MIRROR_FABRIC: mirror('https://meta.fabricmc.net'),
  // Java runtimes (java-installer.ts): Adoptium's API, or a mirror of it.
  SOFTWARE_MIRROR_ADOPTIUM: mirror('https://api.adoptium.net'),
  /** Download a Java runtime when a server needs one the node lacks (`false`: the operator installs them). */
  JAVA_DOWNLOAD: z.enum(['true', 'false']).default('true'),
  /** Use the Java runtimes installed on the machine (`false`: only those the node downloaded itself). */
  JAVA_USE_INSTALLED: z.enum(['true', 'false']).default('true'),
});

export type AgentConfig = z.infer<typeof envSchema> & {
  dataDir: string;
  serversDir: string;
  softwareDir: string;
  /** Java runtimes the node downloaded (java-installer.ts). */
  javaDir: string;
  storageDir: string;
  runDir: string;
  logFormat: LogFormat;
};

export function loadAgentConfig(source: NodeJS.ProcessEnv = process.env): AgentConfig {
  const parsed = envSchema
    .refine((c) => !(c.ALLOW_UNCAGED_GAMES === 'true' && c.NODE_ENV === 'production'), {
      path: ['ALLOW_UNCAGED_GAMES'],
      message: 'game servers never run without the cage in production (NODE_ENV=production)',
    })
    .safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid agent configuration:\n${lines.join('\n')}`);
  }
  const dataDir = path.resolve(parsed.data.DATA_DIR);
  return {
    ...parsed.data,
    dataDir,
    serversDir: path.join(dataDir, 'servers'),
    softwareDir: path.join(dataDir, 'software'),
    javaDir: path.join(dataDir, 'java'),
    storageDir: path.join(dataDir, 'storage'),
    // Process records, logs and command FIFOs of running servers; never inside a user's server folder.
    runDir: path.join(dataDir, 'run'),
    logFormat: resolveLogFormat(parsed.data.LOG_FORMAT, parsed.data.NODE_ENV),
  };
}
