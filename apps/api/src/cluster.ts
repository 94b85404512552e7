/**
 * What several API processes share when REDIS_URL is set (one process needs none of it):
 * - Socket.IO's Redis adapter, so an event emitted to a room on one process reaches sockets on every one;
 * - the rate limits' counters, so a budget is one budget (in this process's memory while Redis is away);
 * - spent socket-token ids (`SET … NX PXAT`), so a token authenticates one socket across all processes;
 * - a channel of `ClusterEvent`s (contracts) for what each process keeps in memory: ended sessions,
 *   changed accounts, changed server lists, changed member access.
 * Without REDIS_URL all of it stays in this process's memory, as `npm start` runs it.
 */
import { randomBytes } from 'node:crypto';
import { createAdapter } from '@socket.io/redis-adapter';
import { clusterMessage, type ClusterEvent } from '@spawnpoint/contracts';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import type { Server } from 'socket.io';
import { MemorySpentTokenIds, type SpentTokenIds } from './auth/socket-tokens.ts';
import { singleGamePlane, type GamePlane } from './game-plane.ts';
import { redisGamePlane } from './redis-game-plane.ts';
import { noteFailedSubscriptions } from './redis-resubscribe.ts';

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
  /** The store of the named rate limits (`@fastify/rate-limit`), or null when each process counts alone. */
  readonly limitStore: FastifyRateLimitStoreCtor | null;
  readonly spentTokens: SpentTokenIds;
  /** Tells the other API processes; this one has acted on the change already. */
  publish(event: ClusterEvent): void;
  /** What to do when another process publishes. */
  onEvent(listener: (event: ClusterEvent) => void): void;
  /** Makes Socket.IO rooms span every process. */
  attach(io: Server): void;
  /** Which process runs the game plane (game-plane.ts). */
  readonly gamePlane: GamePlane;
  close(): Promise<void>;
}

export function singleProcess(): Cluster {
  return {
    mode: 'single',
    limitStore: null,
    spentTokens: new MemorySpentTokenIds(),
    publish: () => undefined,
    onEvent: () => undefined,
    attach: () => undefined,
    gamePlane: singleGamePlane(),
    close: async () => undefined,
  };
}

/**
 * A spent token id is a key that lives exactly as long as its token could be accepted. While Redis does
 * not answer, ids are spent in this process's memory instead (and also checked there once it is back), so
 * browsers keep their live updates through a Redis restart; the cost is that a token could then be used
 * once on each process within its minute — it is still bound to its session, which every process checks.
 */
class RedisSpentTokenIds implements SpentTokenIds {
  private memory = new MemorySpentTokenIds();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async claim(id: string, expiresAt: number): Promise<boolean> {
    if (!(await this.memory.claim(id, expiresAt))) return false;
    if (this.redis.status !== 'ready') return true;
    const set = await this.redis.set(`${this.prefix}${id}`, '1', 'PXAT', expiresAt, 'NX').catch(() => 'away' as const);
    return set === 'OK' || set === 'away';
  }
}

// One fixed window per key: the count, and the window's time left in ms (set when the key is new).
const COUNT_IN_WINDOW = `
local current = redis.call('INCR', KEYS[1])
if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {current, redis.call('PTTL', KEYS[1])}
`;

/** Fixed windows in this process's memory: what the named limits count in while Redis does not answer. */
class MemoryWindows {
  private windows = new Map<string, { current: number; endsAt: number }>();

  incr(key: string, windowMs: number): { current: number; ttl: number } {
    const now = Date.now();
    // Ended windows go once the map grows (an outage is short; this keeps it from growing with addresses).
    if (this.windows.size > 10_000) for (const [k, w] of this.windows) if (w.endsAt <= now) this.windows.delete(k);
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) this.windows.set(key, (window = { current: 0, endsAt: now + windowMs }));
    window.current++;
    return { current: window.current, ttl: window.endsAt - now };
  }
}

/**
 * The named limits' store with REDIS_URL: a fixed window per key in Redis, so every process counts one
 * budget. While Redis does not answer (restarting, unreachable) each process counts in its own memory
 * instead — a budget per process, as without Redis — so a sign-in never fails because Redis is away and the
 * limits still hold; once Redis answers again it counts there again.
 */
function sharedLimitStore(redis: Redis, prefix: string, log: FastifyBaseLogger): FastifyRateLimitStoreCtor {
  const memory = new MemoryWindows();
  let away = false;
  const fallBack = (err: unknown) => {
    if (!away) log.warn({ err }, 'Redis does not answer: rate limits count in this process until it does');
    away = true;
  };
  class SharedLimitStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      const local = () => callback(null, memory.incr(key, timeWindow));
      // Not waiting for a reconnection: the request is answered now, from memory.
      if (redis.status !== 'ready') return void (fallBack(new Error(`connection ${redis.status}`)), local());
      redis.eval(COUNT_IN_WINDOW, 1, `${prefix}${key}`, timeWindow).then(
        (result) => {
          const [current, ttl] = result as [number, number];
          if (away) log.info('Redis answers again: rate limits count there again');
          away = false;
          callback(null, { current, ttl });
        },
        (err: unknown) => {
          fallBack(err);
          local();
        },
      );
    }
    // Every limit's keys already start with its name (http/rate-limits.ts): one store serves them all.
    child(): FastifyRateLimitStore {
      return this;
    }
  }
  return SharedLimitStore;
}

/**
 * The command connection as the Socket.IO adapter's publisher. The adapter publishes every room broadcast
 * without awaiting it, so while Redis is away (restarting, unreachable) each broadcast was a promise failing
 * with nobody waiting. Here a failed publish is one warning per outage: the event has already reached this
 * process's own sockets (the adapter emits locally first); browsers on other processes miss it, as they miss
 * every cluster message while Redis is away.
 */
function adapterPublisher(commands: Redis, log: FastifyBaseLogger): Redis {
  let away = false;
  const publish = (channel: string, message: string | Buffer) =>
    commands.publish(channel, message).then(
      (receivers) => {
        away = false;
        return receivers;
      },
      (err: unknown) => {
        if (!away) log.warn({ err }, 'Redis does not answer: live events reach only this process until it does');
        away = true;
        return 0;
      },
    );
  return withCalls(commands, { publish });
}

/**
 * The subscription connection as the Socket.IO adapter's subscriber. The adapter subscribes when it is made
 * and unsubscribes when Socket.IO closes, without awaiting either; closing while Redis is away (or while
 * this connection is still reconnecting) fails those calls with "Connection is closed", a promise nobody
 * waits for. Subscriptions are made again by ioredis itself when it reconnects, so a failure is only noted.
 */
function adapterSubscriber(subscriber: Redis, log: FastifyBaseLogger): Redis {
  const quietly =
    (name: 'subscribe' | 'unsubscribe' | 'psubscribe' | 'punsubscribe') =>
    (...channels: string[]) =>
      subscriber[name](...channels).catch((err: unknown) => {
        log.debug({ err, call: name }, 'a Socket.IO adapter subscription call failed (Redis is away or closing)');
        return 0;
      });
  return withCalls(subscriber, {
    subscribe: quietly('subscribe'),
    unsubscribe: quietly('unsubscribe'),
    psubscribe: quietly('psubscribe'),
    punsubscribe: quietly('punsubscribe'),
  });
}

/** A client whose named methods are replaced and whose other methods stay bound to it. */
function withCalls(client: Redis, calls: Record<string, (...args: never[]) => unknown>): Redis {
  return new Proxy(client, {
    get(target, property) {
      if (typeof property === 'string' && Object.hasOwn(calls, property)) return calls[property];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * Connects to Redis (the start fails, naming REDIS_URL, when it does not answer) with one connection for
 * commands and publishing and one each for the channel and the Socket.IO adapter's subscriptions.
 */
export async function redisCluster(url: string, prefix: string, log: FastifyBaseLogger, leaseMs: number): Promise<Cluster> {
  const origin = randomBytes(8).toString('hex');
  const name = names(prefix);
  const options = { lazyConnect: true, maxRetriesPerRequest: 2, connectTimeout: 5_000 };
  const commands = new Redis(url, options);
  const channel = noteFailedSubscriptions(commands.duplicate(), log);
  const adapterSub = noteFailedSubscriptions(commands.duplicate(), log);
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
  const gamePlane = redisGamePlane(commands, prefix, leaseMs, log);
  return {
    gamePlane,
    mode: 'redis',
    limitStore: sharedLimitStore(commands, name.rateLimits, log),
    spentTokens: new RedisSpentTokenIds(commands, name.spentToken),
    publish(event) {
      commands
        .publish(name.channel, JSON.stringify({ origin, event }))
        .catch((err: unknown) => log.error({ err, event: event.type }, 'could not tell the other API processes'));
    },
    onEvent: (listener) => void listeners.push(listener),
    attach: (io) =>
      void io.adapter(createAdapter(adapterPublisher(commands, log), adapterSubscriber(adapterSub, log), { key: name.socketRooms })),
    async close() {
      await gamePlane.close();
      await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}
