import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { Server } from 'socket.io';
import { io as connect } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../test-support/free-port.ts';
import { until } from '../../../test-support/until.ts';
import { redisCluster } from './cluster.ts';
import { buildTestApp, requester, verifiedOwner, type TestApp } from './test/build-test-app.ts';

/**
 * Redis restarted under a running API (the reliability suite, many machines item 4): a Redis server of the
 * test's own (`redis-server` from PATH, on a free port, keeping nothing on disk) is killed and started
 * again. Meanwhile sign-ins are answered and still limited, and browsers' sockets still sign in; once
 * Redis is back the API uses it again by itself. Runs where TEST_REDIS_URL is set (a machine with Redis).
 */
let port: number;
let dir: string;
let redis: ChildProcess | null = null;
let t: TestApp & { cleanup: () => Promise<void> };
let base: string;
const prefix = `outage-${randomBytes(4).toString('hex')}:`;
// A promise failing with nobody waiting: the Socket.IO adapter's publishes did that while Redis was away.
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

async function startRedis(): Promise<void> {
  if (redis && redis.exitCode === null && redis.signalCode === null) return;
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  await until(
    () =>
      probe.connect().then(
        () => true,
        () => false,
      ),
    (up) => up,
  );
  probe.disconnect();
}
async function killRedis(): Promise<void> {
  const running = redis;
  if (!running || running.exitCode !== null || running.signalCode !== null) return;
  const exited = new Promise((resolve) => running.once('exit', resolve));
  running.kill('SIGKILL');
  await exited;
}

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  port = await freePort();
  dir = await mkdtemp(path.join(os.tmpdir(), 'spawnpoint-redis-outage-'));
  await startRedis();
  t = await buildTestApp({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_PREFIX: prefix });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  // Closing the app while Redis is away (the second test leaves it so) must not leave failing promises
  // either: watched until everything is closed.
  await t?.cleanup();
  await killRedis();
  await rm(dir, { recursive: true, force: true });
  await new Promise((resolve) => setImmediate(resolve));
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

const send = (...args: Parameters<ReturnType<typeof requester>>) => requester(t.app)(...args);

/** A browser socket signing in with a fresh token; resolves with how it ended. */
async function socketSignsIn(cookie: string): Promise<'signed in' | string> {
  const token = (await send('GET', '/v1/user/websocket', cookie)).json().result.token as string;
  const socket = connect(base, { transports: ['websocket'], reconnection: false });
  try {
    return await new Promise<string>((resolve) => {
      socket.once('auth:success', () => resolve('signed in'));
      socket.once('auth:error', (e: { message: string }) => resolve(e.message));
      socket.once('connect', () => socket.emit('auth', { token }));
    });
  } finally {
    socket.disconnect();
  }
}

describe('Redis restarted under a running API', () => {
  it(
    'keeps answering sign-ins, still limited, and sockets, while it is away; uses it again once it is back',
    { timeout: 60_000 },
    async () => {
      const cookie = await verifiedOwner(t, 'outage');
      const email = `outage-${randomBytes(4).toString('hex')}@example.com`;
      await send('POST', '/v1/auth/register', undefined, { emailAddress: email, password: 'long enough password' });
      const login = (password: string, remoteAddress: string) =>
        t.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { emailAddress: email, password }, remoteAddress });

      await killRedis();
      // Live events broadcast while Redis is away (a server's state to its owner's tabs) cannot reach other
      // processes; that must not leave failing promises behind (logged as errors in production). Sent first,
      // so their publishes have failed by the time Redis is back.
      for (let i = 0; i < 5; i++) t.io.to(`outage-room-${i}`).emit('server:state', { serverId: 'none', state: 'offline' });
      // Ten wrong passwords from one address: each answered (no 5xx), then the right one is refused.
      for (let i = 0; i < 10; i++) {
        const res = await login('wrong password!', '203.0.113.90');
        expect(res.statusCode).toBeLessThan(500);
        expect(res.json().status).toBe('INVALID_CREDENTIALS');
      }
      expect((await login('long enough password', '203.0.113.90')).json().status).toBe('RATE_LIMIT');
      // Another address signs in, and a browser's socket still signs in.
      expect((await login('long enough password', '203.0.113.91')).json().status).toBe('SUCCESS');
      expect(await socketSignsIn(cookie)).toBe('signed in');

      await startRedis();
      // Back by itself: the counters go to Redis again.
      const check = new Redis(port, '127.0.0.1');
      try {
        await until(
          async () => {
            await login('wrong password!', '203.0.113.92');
            return check.keys(`${prefix}*`);
          },
          (keys) => keys.some((k) => k.includes('203.0.113.92')),
          20_000,
        );
      } finally {
        check.disconnect();
      }
      expect(await socketSignsIn(cookie)).toBe('signed in');
      expect(unhandled).toEqual([]);
    },
  );

  it('closes while Redis is away without leaving a failing promise behind', async () => {
    await startRedis();
    const cluster = await redisCluster(`redis://127.0.0.1:${port}`, `${prefix}closing:`, pino({ level: 'silent' }), 10_000);
    const http = createServer();
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const io = new Server(http);
    cluster.attach(io);
    await killRedis();
    // Socket.IO's adapter unsubscribes on close without waiting; the connection under it is gone.
    await io.close();
    await cluster.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });
});
