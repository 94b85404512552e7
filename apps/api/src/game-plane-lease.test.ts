import { randomBytes } from 'node:crypto';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import type { LiveEvent } from '@spawnpoint/contracts';
import type { FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/until.ts';
import type { GamePlane } from './game-plane.ts';
import { redisGamePlane } from './redis-game-plane.ts';

/**
 * The game plane's lease (game-plane.ts) against a real Redis, with a short lease: one holder at a time, a
 * holder that finds the lease taken stops at once, a mirror takes over when the holder goes, and requests
 * handed to the holder come back with its answer — after waiting out a takeover, or with "try again" when
 * none ends in time.
 * Runs where TEST_REDIS_URL is set.
 */
const LEASE_MS = 400;
const log = pino({ level: 'silent' });
const redis = new Redis(process.env.TEST_REDIS_URL as string);
const planes: GamePlane[] = [];
const connections: Redis[] = [];
let prefix = '';

/** One API process's game plane: a connection of its own, as each process has. */
function plane(leaseMs = LEASE_MS): GamePlane {
  const commands = new Redis(process.env.TEST_REDIS_URL as string);
  connections.push(commands);
  const made = redisGamePlane(commands, prefix, leaseMs, log);
  planes.push(made);
  return made;
}

/** A request as Fastify hands it to a route, as far as handing it on reads it. */
const request = (url: string, body?: unknown) =>
  ({
    method: 'POST',
    url,
    headers: { cookie: 'sp_session=x', 'content-length': '2' },
    body,
    ip: '203.0.113.9',
  }) as unknown as FastifyRequest;

afterEach(async () => {
  for (const p of planes.splice(0)) await p.close();
  for (const c of connections.splice(0)) c.disconnect();
});
afterAll(() => redis.disconnect());

describe('the game-plane lease', () => {
  it('is held by one process at a time, and a holder that finds it taken stops at once', async () => {
    prefix = `lease-${randomBytes(4).toString('hex')}:`;
    const [first, second] = [plane(), plane()];
    await first.start();
    await second.start();
    expect([first.held(), second.held()]).toEqual([true, false]);
    let lost = false;
    first.onLost(() => (lost = true));
    // Another process holds it now (as after a pause longer than the lease): the first must not act again.
    await redis.set(`${prefix}game-plane`, 'another-process');
    await until(
      () => lost,
      (l) => l,
    );
    expect(first.held()).toBe(false);
  });

  it('is given up by a holder that cannot renew it for a whole lease (another may hold it by then)', async () => {
    prefix = `lease-${randomBytes(4).toString('hex')}:`;
    const holder = plane();
    await holder.start();
    let lost = false;
    holder.onLost(() => (lost = true));
    // Cut off from Redis (its connection closed for good), as a holder on the wrong side of a partition.
    connections.at(-1)?.disconnect();
    await until(
      () => lost,
      (l) => l,
      5_000,
    );
    expect(holder.held()).toBe(false);
  });

  it('passes to a mirror when the holder goes, which tells the others everything at once', async () => {
    prefix = `lease-${randomBytes(4).toString('hex')}:`;
    const [first, ...mirrors] = [plane(), plane(), plane(), plane()];
    const snapshot: LiveEvent = {
      type: 'snapshot',
      servers: [],
      nodes: [{ nodeId: 'n1', connected: true, javaMajors: [21], javaInstalled: [21], storage: null }],
      proxies: true,
    };
    const heard = new Map<GamePlane, LiveEvent[]>();
    for (const mirror of mirrors) {
      mirror.snapshot(() => snapshot);
      heard.set(mirror, []);
      mirror.onLive((event) => heard.get(mirror)?.push(event));
    }
    for (const p of [first, ...mirrors]) await p.start();
    // Each mirror waits a lease before it may take over (the holder renews first after Redis comes back).
    await first.close();
    const taker = await until(
      () => mirrors.find((m) => m.held()),
      (m) => m !== undefined,
      5_000,
    );
    expect(mirrors.filter((m) => m.held())).toEqual([taker]);
    // The new holder tells the others all it has, so they need not wait for changes to know it.
    for (const other of mirrors.filter((m) => m !== taker))
      await until(
        () => heard.get(other) ?? [],
        (events) => events.some((e) => e.type === 'snapshot'),
      );
  });

  it('answers every request handed to it while it takes over, none left waiting', async () => {
    prefix = `lease-${randomBytes(4).toString('hex')}:`;
    const [first, taker] = [plane(), plane()];
    // Another mirror that hands requests on; with a long lease of its own it waits a minute before it would
    // take the lease, so the taker is the one that does.
    const asker = plane(60_000);
    taker.serve(async (call) => ({ id: call.id, statusCode: 200, headers: {}, body: '' }));
    for (const p of [first, taker, asker]) await p.start();
    await first.close();
    // Requests handed on without pause while the lease moves, the event loop busy between them (as under
    // load, so what Redis sends the taker arrives together): one that reached the taker as it began to
    // listen, before it called itself the holder, was dropped, and its browser waited for 15 minutes.
    const statuses: (number | 'unanswered' | 'ran here')[] = [];
    const asked: Promise<void>[] = [];
    const deadline = Date.now() + 10_000;
    while (!statuses.includes(200) && Date.now() < deadline) {
      asked.push(
        Promise.race([
          asker.forward(request('/v1/server/abc/start')).then((answer) => answer?.statusCode ?? 'ran here'),
          sleep(3_000).then(() => 'unanswered' as const),
        ]).then((status) => void statuses.push(status)),
      );
      const busyUntil = performance.now() + 0.5;
      while (performance.now() < busyUntil);
      await setImmediate();
    }
    await Promise.all(asked);
    expect(taker.held()).toBe(true);
    // Each waited for the new holder and got its answer: never "try again", never nothing.
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });

  it('hands a request to the holder and returns its answer; with no holder, waits for the next one', async () => {
    prefix = `lease-${randomBytes(4).toString('hex')}:`;
    const [holder, mirror] = [plane(), plane()];
    holder.serve(async (call) => ({
      id: call.id,
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(
        JSON.stringify({
          url: call.url,
          ip: call.remoteAddress,
          cookie: call.headers.cookie,
          length: call.headers['content-length'] ?? null,
          body: Buffer.from(call.body, 'base64').toString(),
        }),
      ).toString('base64'),
    }));
    await holder.start();
    await mirror.start();
    const answer = await mirror.forward(request('/v1/server/abc/start', { a: 1 }));
    expect(answer?.statusCode).toBe(200);
    // The client's address, its cookie and its body go along; the hop's own headers do not.
    expect(JSON.parse(Buffer.from(answer?.body ?? '', 'base64').toString())).toEqual({
      url: '/v1/server/abc/start',
      ip: '203.0.113.9',
      cookie: 'sp_session=x',
      length: null,
      body: '{"a":1}',
    });
    // A request that is not one the holder can run (a method the game plane never takes) is answered too.
    const odd = await mirror.forward({ ...request('/v1/server/abc/start'), method: 'OPTIONS' } as unknown as FastifyRequest);
    expect(odd?.statusCode).toBe(400);
    // The holder goes: the request waits for the next holder — here the mirror itself, which then runs it.
    await holder.close();
    expect(await mirror.forward(request('/v1/server/abc/start'))).toBeNull();
    expect(mirror.held()).toBe(true);
  });

  it('says "try again" once a takeover has taken longer than it can, never leaving a request waiting', async () => {
    prefix = `lease-${randomBytes(4).toString('hex')}:`;
    // A holder that holds the lease and never listens (hung): nobody takes requests, nobody may take over.
    await redis.set(`${prefix}game-plane`, 'hung-process');
    const mirror = plane();
    await mirror.start();
    const began = Date.now();
    const refused = await mirror.forward(request('/v1/server/abc/start'));
    expect(refused?.statusCode).toBe(503);
    expect(JSON.parse(Buffer.from(refused?.body ?? '', 'base64').toString()).status).toBe('TEMPORARILY_DISABLED');
    // It waited out two leases before saying so (a takeover's time), not 15 minutes.
    expect(Date.now() - began).toBeGreaterThanOrEqual(2 * LEASE_MS);
  });
});
