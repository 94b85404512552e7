import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LOG_FORMATS, LOG_LEVELS, resolveLogFormat, type LogFormat } from '@spawnpoint/logging';
import { z } from 'zod';
import { parseTrustedProxies } from './http/client-address.ts';
import { apiRoot } from './install-root.ts';

/** One game-server node: where its agent listens, the token both sides share, and its game ports. */
const agentNodeConfig = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/),
  url: z.url(),
  /**
   * Where browsers reach this node's signed downloads (`/v1/downloads/…`); the agent's `url` when absent.
   * Behind a reverse proxy (TLS, a public name), this is the proxy's address.
   */
  downloadUrl: z.url().optional(),
  token: z.string().min(32),
  publicHost: z.string().min(1),
  capacity: z.number().int().min(1).default(50),
  portRange: z
    .string()
    .regex(/^\d+-\d+$/)
    .default('25600-25699'),
});
export type AgentNodeConfig = z.infer<typeof agentNodeConfig>;

/** Every environment variable the API reads. The README's configuration table mirrors this. */
const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  PUBLIC_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Spawnpoint <no-reply@spawnpoint.localhost>'),
  APP_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  OPERATOR_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * Redis shared by several API processes (Socket.IO rooms, rate limits, spent socket tokens, the cluster
   * channel: cluster.ts). Unset: one API process keeps all of it in memory.
   */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
    .optional(),
  /** Starts every key and channel name this service uses in Redis, so several services can share one. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be 1–64 letters, digits, ":", "_" or "-"')
    .default('spawnpoint:'),
  /**
   * With REDIS_URL: how long the API process running the game plane holds it without renewing (it renews
   * every quarter of this). When that process dies, another takes over after at most this long.
   */
  GAME_PLANE_LEASE_SECONDS: z.coerce.number().min(1).max(120).default(10),
  /** Bearer token of the Prometheus scraper for `/metrics`; without it the page does not exist. */
  METRICS_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  SUPPORT_URL: z.url().default('https://help.spawnpoint.gg'),
  ROUTE_RULES: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (!value) return {} as Record<string, string>;
      try {
        return z.record(z.string().startsWith('/'), z.string().min(1)).parse(JSON.parse(value));
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object of "/path": "target" pairs' });
        return z.NEVER;
      }
    }),
  WEB_DIST: z.string().optional(),
  AGENTS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (!value) return [] as AgentNodeConfig[];
      try {
        return z.array(agentNodeConfig).parse(JSON.parse(value));
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a JSON array of nodes (${err instanceof Error ? err.message.slice(0, 200) : 'invalid'})`,
        });
        return z.NEVER;
      }
    }),
  PLAY_DOMAIN: z.string().min(1).default('play.spawnpoint.localhost'),
  /** The port players reach the join proxy on (join addresses show `:PORT` unless it is 25565). */
  PROXY_PORT: z.coerce.number().int().min(0).max(65535).default(25565),
  /** Authenticates join proxies on the `/proxy` namespace; generated into DATA_DIR/proxy-token when unset. */
  PROXY_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * Minutes without players before a free server stops and sleeps (the plan says 5). Fractions are
   * allowed, so tests can use seconds (0.05 = 3 s).
   */
  IDLE_STOP_MINUTES: z.coerce.number().positive().max(10_080).optional(),
  /** Minutes a server stays up after a start before it may sleep, so a player joining a little late finds it up. */
  MIN_ONLINE_MINUTES: z.coerce.number().min(0).max(1440).default(2),
  /** Minutes of play time per UTC day of a free account (the plan says 240); fractions allowed for tests. */
  DAILY_PLAY_TIME_MINUTES: z.coerce.number().min(0).max(1440).optional(),
  /**
   * Seconds a Start (or a join) that fetches a sleeping server's folder from shared storage keeps its caller
   * waiting before it is answered; the fetch and the start go on, shown live ("Fetching files").
   */
  FETCH_ANSWER_SECONDS: z.coerce.number().min(0).max(600).default(5),
  /** Starts that may wait in one node's start queue; one more is NO_SERVERS_AVAILABLE. */
  START_QUEUE_MAX: z.coerce.number().int().min(0).max(100_000).default(100),
  /** The Java plugin catalogues (docs/guide.md, Plugins): their API addresses (a mirror or a test server) and optional keys. */
  MODRINTH_API_URL: z.url().default('https://api.modrinth.com'),
  MODRINTH_TOKEN: z.string().optional(),
  HANGAR_API_URL: z.url().default('https://hangar.papermc.io'),
  HANGAR_API_KEY: z.string().optional(),
  /** Seconds a catalogue's answer is kept (searches repeat as people type). */
  PLUGIN_CATALOGUE_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
  /**
   * Who takes card payments for top-ups: `sandbox` (embedded; a page of ours completes or declines a payment,
   * the default outside production and refused in it), `stripe` (Checkout; needs the two keys below), or
   * `none` (top-ups say they are not available; the default in production).
   */
  PAYMENT_PROVIDER: z.enum(['sandbox', 'stripe', 'none']).optional(),
  STRIPE_SECRET_KEY: z.string().optional(),
  /** The webhook endpoint's signing secret (`whsec_…`), from the Stripe dashboard. */
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  /** Another address for Stripe's API (a test server in Stripe's shapes); Stripe's own by default. */
  STRIPE_API_URL: z.url().optional(),
  /** Affiliate programme: the share of each purchase by a referred account credited to the referrer's balance. */
  AFFILIATE_COMMISSION_PERCENT: z.coerce.number().int().min(0).max(50).default(20),
  ANALYTICS_KEY: z.string().optional(),
  CHAT_WIDGET_ID: z.string().optional(),
  TAG_MANAGER_ID: z.string().optional(),
  ADS_CLIENT: z.string().optional(),
  GIVEAWAY_DEADLINE: z.iso.datetime({ offset: true }).default('2027-01-31T23:59:59Z'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  /** `pretty` (readable lines) or `json`; by default JSON in production and pretty otherwise. */
  LOG_FORMAT: z.enum(LOG_FORMATS).optional(),
  /**
   * The load balancers whose X-Forwarded-For is believed: comma-separated addresses or CIDRs (http/client-address.ts).
   * Unset or `false`: none, every address is the connection's. `true` (any client) is refused.
   */
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return parseTrustedProxies(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: err instanceof Error ? err.message : 'invalid' });
        return z.NEVER;
      }
    }),
  SESSION_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /**
   * What `GET /v1/localization` answers. Plan prices, the ledger, receipts and top-ups are all in US
   * dollars and nothing converts them, so another code would only relabel dollar amounts.
   */
  CURRENCY: z
    .literal('USD', { error: 'prices and balances are kept in US dollars with no conversion, so only USD is supported' })
    .default('USD'),
  /** Multiplies every rate limit; only for load tests and benchmarks. */
  RATE_LIMIT_FACTOR: z.coerce.number().min(1).default(1),
});

export type Env = z.infer<typeof envSchema>;

export interface Config extends Env {
  publicUrl: string;
  dataDir: string;
  webDist: string;
  appSecret: string;
  operatorToken: string;
  proxyToken: string;
  production: boolean;
  logFormat: LogFormat;
  paymentProvider: 'sandbox' | 'stripe' | 'none';
}

export class ConfigError extends Error {}

export function loadConfig(source: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const env = parsed.data;
  const dataDir = path.resolve(overrides.dataDir ?? env.DATA_DIR);
  const config: Config = {
    ...env,
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, ''),
    dataDir,
    webDist: path.resolve(env.WEB_DIST ?? path.join(apiRoot, '../web/build/client')),
    appSecret: env.APP_SECRET ?? '',
    operatorToken: env.OPERATOR_TOKEN ?? '',
    proxyToken: env.PROXY_TOKEN ?? '',
    production: env.NODE_ENV === 'production',
    logFormat: resolveLogFormat(env.LOG_FORMAT, env.NODE_ENV),
    paymentProvider: env.PAYMENT_PROVIDER ?? (env.NODE_ENV === 'production' ? 'none' : 'sandbox'),
    ...overrides,
  };
  // The sandbox credits a balance without any money moving: never where real users pay.
  if (config.paymentProvider === 'sandbox' && config.production)
    throw new ConfigError(
      'Invalid configuration:\n  PAYMENT_PROVIDER: the sandbox lets anyone top up without paying, so it never runs in production. Set PAYMENT_PROVIDER=stripe with STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET (or none).',
    );
  if (config.paymentProvider === 'stripe' && (!config.STRIPE_SECRET_KEY || !config.STRIPE_WEBHOOK_SECRET))
    throw new ConfigError('Invalid configuration:\n  PAYMENT_PROVIDER=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET.');
  if (!config.appSecret) config.appSecret = readOrCreateSecret(dataDir, 'app-secret');
  if (!config.operatorToken) config.operatorToken = readOrCreateSecret(dataDir, 'operator-token');
  if (!config.proxyToken) config.proxyToken = readOrCreateSecret(dataDir, 'proxy-token');
  return config;
}

/** Embedded mode keeps a generated secret in DATA_DIR so sessions survive restarts. */
function readOrCreateSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  return secret;
}
