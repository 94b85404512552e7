import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';

const SUBSCRIBING = ['subscribe', 'psubscribe', 'ssubscribe'] as const;

/**
 * ioredis subscribes a connection's channels again by itself once Redis is back (`autoResubscribe`), and
 * does not wait for the answer. When the connection drops again before that answer (Redis restarting
 * twice, or going away just after it came back), the call fails after its retries with nobody waiting: an
 * unhandled rejection, which ends a process run with --unhandled-rejections=throw. Each subscribing call
 * on `client`, ioredis's own included, is given a handler here; a caller that waits still sees the failure,
 * and ioredis subscribes again on the next reconnect.
 */
export function noteFailedSubscriptions(client: Redis, log: FastifyBaseLogger): Redis {
  for (const name of SUBSCRIBING) {
    const call = (client[name] as (...args: unknown[]) => Promise<unknown>).bind(client);
    const noted = (...args: unknown[]) => {
      const answer = call(...args);
      answer.catch((err: unknown) => log.debug({ err, call: name }, 'a Redis subscription call failed (Redis is away or closing)'));
      return answer;
    };
    Object.defineProperty(client, name, { value: noted, configurable: true, writable: true });
  }
  return client;
}
