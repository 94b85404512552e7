import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { apiUrlList, MINECRAFT_DEFAULT_PORT } from '@spawnpoint/contracts';
import { LOG_FORMATS, LOG_LEVELS, resolveLogFormat, type LogFormat } from '@spawnpoint/logging';
import { z } from 'zod';

/** Every environment variable the join proxy reads (the README's configuration table lists them). */
const envSchema = z.object({
  PROXY_PORT: z.coerce.number().int().min(1).max(65535).default(MINECRAFT_DEFAULT_PORT),
  PROXY_HOST: z.string().min(1).default('0.0.0.0'),
  /** The API, or every API process separated by commas: the proxy follows whichever holds the game plane. */
  API_URL: z.string().default('http://127.0.0.1:3000').pipe(apiUrlList),
  /** Shared with the API; read from DATA_DIR/proxy-token (written by the API) when unset. */
  PROXY_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  PROXY_HOLD_SECONDS: z.coerce.number().int().min(1).max(29).default(25),
  PROXY_CONNECTIONS_PER_SECOND: z.coerce.number().int().min(1).max(10_000).default(20),
  PROXY_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).max(10_000).default(32),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  LOG_FORMAT: z.enum(LOG_FORMATS).optional(),
  NODE_ENV: z.string().optional(),
});

export type ProxyConfig = z.infer<typeof envSchema> & { dataDir: string; logFormat: LogFormat };

export class ProxyConfigError extends Error {}

export function loadProxyConfig(source: NodeJS.ProcessEnv = process.env): ProxyConfig {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ProxyConfigError(`Invalid join proxy configuration:\n${lines.join('\n')}`);
  }
  return {
    ...parsed.data,
    dataDir: path.resolve(parsed.data.DATA_DIR),
    logFormat: resolveLogFormat(parsed.data.LOG_FORMAT, parsed.data.NODE_ENV),
  };
}

/** The proxy token: PROXY_TOKEN, or the one the API wrote into DATA_DIR (null until it has). */
export function proxyToken(config: ProxyConfig): string | null {
  if (config.PROXY_TOKEN) return config.PROXY_TOKEN;
  const file = path.join(config.dataDir, 'proxy-token');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() || null : null;
}
