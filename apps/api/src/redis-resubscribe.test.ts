import { Redis } from 'ioredis';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../test-support/free-port.ts';
import { until } from '../../../test-support/until.ts';
import { noteFailedSubscriptions } from './redis-resubscribe.ts';

/**
 * ioredis's own resubscription after a reconnect is a call nobody waits for. Made the same way here (the
 * promise dropped) on a connection whose Redis is gone: it fails after its retries, and must not be an
 * unhandled rejection.
 */
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
const clients: Redis[] = [];

afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  for (const client of clients.splice(0)) client.disconnect();
});

async function goneRedis(): Promise<Redis> {
  // Nothing listens on a port just found free: every connection attempt is refused.
  const client = new Redis(await freePort(), '127.0.0.1', { maxRetriesPerRequest: 1, retryStrategy: () => 20, lazyConnect: true });
  client.on('error', () => undefined);
  clients.push(client);
  client.connect().catch(() => undefined);
  return client;
}

describe('subscription calls nobody waits for', () => {
  it('fail without an unhandled rejection, and a caller that waits still sees the failure', async () => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
    const client = noteFailedSubscriptions(await goneRedis(), pino({ level: 'silent' }));
    const failures: unknown[] = [];
    void client.subscribe('spawnpoint-test-channel');
    void client.psubscribe('spawnpoint-test-*');
    client.subscribe('spawnpoint-test-awaited').catch((err: unknown) => failures.push(err));
    await until(
      () => failures,
      (seen) => seen.length === 1,
      10_000,
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(String(failures[0])).toMatch(/max retries per request/);
    expect(unhandled).toEqual([]);
  });
});
