/**
 * What several API processes share when REDIS_URL is set (one process needs none of it):
 * - Socket.IO's Redis adapter, so an event emitted to a room on one process reaches sockets on every one;
 * - the rate limits' counters (`@fastify/rate-limit`'s Redis store), so a budget is one budget;
 * - spent socket-token ids (`SET … NX PXAT`), so a token authenticates one socket across all processes;
 * - a channel of `ClusterEvent`s (contracts) for what each process keeps in memory: ended sessions,
 *   changed accounts, changed server lists, changed member access.
 * Without REDIS_URL all of it stays in this process's memory, as `npm start` runs it.
 */
import { randomBytes } from 'node:crypto';
import { createAdapter } from '@socket.io/redis-adapter';
import { clusterMessage, type ClusterEvent } from '@spawnpoint/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import type { Server } from 'socket.io';
import { MemorySpentTokenIds, type SpentTokenIds } from './auth/socket-tokens.ts';

/** Every name below starts with REDIS_PREFIX (`spawnpoint:` by default). */
const names = (prefix: string) => ({
  channel: `${prefix}cluster`,
  spentToken: `${prefix}spent-socket-token:`,
  rateLimits: `${prefix}rate:`,
  socketRooms: `${prefix}socket.io`,
});

export interface Cluster {
  /** `redis` when REDIS_URL is set, else `single`. */
  readonly mode: 'single' | 'redis';
  /** The store of the rate limits, or null when each process counts alone. */
  readonly redis: Redis | null;
  /** Where the rate limits' keys live in that store. */
  readonly rateLimitNamespace: string;
  readonly spentTokens: SpentTokenIds;
  /** Tells the other API processes; this one has acted on the change already. */
  publish(event: ClusterEvent): void;
  /** What to do when another process publishes. */
  onEvent(listener: (event: ClusterEvent) => void): void;
  /** Makes Socket.IO rooms span every process. */
  attach(io: Server): void;
  close(): Promise<void>;
}

export function singleProcess(): Cluster {
  return {
    mode: 'single',
    redis: null,
    rateLimitNamespace: '',
    spentTokens: new MemorySpentTokenIds(),
    publish: () => undefined,
    onEvent: () => undefined,
    attach: () => undefined,
    close: async () => undefined,
  };
}

/** A spent token id is a key that lives exactly as long as its token could be accepted. */
class RedisSpentTokenIds implements SpentTokenIds {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async claim(id: string, expiresAt: number): Promise<boolean> {
    // A Redis that cannot answer refuses the token: better a socket that retries than one token spent twice.
    const set = await this.redis.set(`${this.prefix}${id}`, '1', 'PXAT', expiresAt, 'NX').catch(() => null);
    return set === 'OK';
  }
}

/**
 * Connects to Redis (the start fails, naming REDIS_URL, when it does not answer) with one connection for
 * commands and publishing and one each for the channel and the Socket.IO adapter's subscriptions.
 */
export async function redisCluster(url: string, prefix: string, log: FastifyBaseLogger): Promise<Cluster> {
  const origin = randomBytes(8).toString('hex');
  const name = names(prefix);
  const options = { lazyConnect: true, maxRetriesPerRequest: 2, connectTimeout: 5_000 };
  const commands = new Redis(url, options);
  const channel = commands.duplicate();
  const adapterSub = commands.duplicate();
  const clients = [commands, channel, adapterSub];
  for (const client of clients) client.on('error', (err: Error) => log.warn({ err }, 'Redis connection error (it reconnects)'));
  try {
    await Promise.all(clients.map((c) => c.connect()));
    await commands.ping();
  } catch (err) {
    clients.forEach((c) => c.disconnect());
    throw new Error(`REDIS_URL: Redis does not answer at ${new URL(url).host} (${err instanceof Error ? err.message : String(err)}).`, {
      cause: err,
    });
  }
  const listeners: ((event: ClusterEvent) => void)[] = [];
  channel.on('message', (_channel: string, text: string) => {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return;
    }
    const message = clusterMessage.safeParse(raw);
    if (!message.success) return log.warn('dropped a message on the cluster channel that is not a cluster event');
    if (message.data.origin === origin) return;
    for (const listener of listeners) listener(message.data.event);
  });
  await channel.subscribe(name.channel);
  return {
    mode: 'redis',
    redis: commands,
    rateLimitNamespace: name.rateLimits,
    spentTokens: new RedisSpentTokenIds(commands, name.spentToken),
    publish(event) {
      commands
        .publish(name.channel, JSON.stringify({ origin, event }))
        .catch((err: unknown) => log.error({ err, event: event.type }, 'could not tell the other API processes'));
    },
    onEvent: (listener) => void listeners.push(listener),
    attach: (io) => void io.adapter(createAdapter(commands, adapterSub, { key: name.socketRooms })),
    async close() {
      await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}
