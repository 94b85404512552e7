import type { AddressInfo } from 'node:net';
import { SOCKETS_PER_SESSION_MAX, SOCKETS_PER_USER_MAX } from '@spawnpoint/contracts';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/until.ts';
import { MemorySpentTokenIds } from './auth/socket-tokens.ts';
import { buildTestApp, cookieFrom, signedUp, uniqueEmail, uniqueIp } from './test/build-test-app.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let base: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await t.cleanup();
});

async function signUp() {
  return (await signedUp(t)).cookie;
}

async function socketToken(cookie: string): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: '/v1/user/websocket', headers: { cookie }, remoteAddress: uniqueIp() });
  return res.json().result.token;
}

function open(): Promise<Socket> {
  const socket = connect(base, { transports: ['websocket'], reconnection: false });
  sockets.push(socket);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

const disconnected = (socket: Socket) => new Promise<string>((resolve) => socket.once('disconnect', resolve));

const PASSWORD = 'long enough password';

async function account() {
  const emailAddress = uniqueEmail();
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/register',
    payload: { emailAddress, password: PASSWORD },
    remoteAddress: uniqueIp(),
  });
  return { emailAddress, cookie: cookieFrom(res.headers['set-cookie']) };
}

/** Another session of the same account. */
async function signIn(emailAddress: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/login',
    payload: { emailAddress, password: PASSWORD },
    remoteAddress: uniqueIp(),
  });
  return cookieFrom(res.headers['set-cookie']);
}

/** Emits `auth` and answers 'ok' on auth:success, else the auth:error message. */
function authenticate(socket: Socket, token: string): Promise<string> {
  return new Promise((resolve) => {
    socket.once('auth:success', () => resolve('ok'));
    socket.once('auth:error', (e: { message: string }) => resolve(e.message));
    socket.emit('auth', { token });
  });
}

/** A new socket authenticated with a fresh token of the session, and how its `auth` was answered. */
async function connectAs(cookie: string): Promise<{ socket: Socket; outcome: string }> {
  const socket = await open();
  return { socket, outcome: await authenticate(socket, await socketToken(cookie)) };
}

/** Proves a socket is still authenticated and served: an unknown server is answered with server:error, not a disconnect. */
function stillServed(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    socket.once('server:error', (e: { status: string }) => resolve(e.status));
    socket.once('disconnect', () => resolve('disconnected'));
    socket.emit('server:subscribe', { serverId: 'no-such-server' });
  });
}

describe('socket gateway', () => {
  it('accepts the auth event with a token from /v1/user/websocket', async () => {
    const cookie = await signUp();
    const socket = await open();
    const ok = new Promise<void>((resolve) => socket.once('auth:success', () => resolve()));
    socket.emit('auth', { token: await socketToken(cookie) });
    await ok;
    expect(socket.connected).toBe(true);
  });

  it('rejects a forged or malformed token', async () => {
    for (const payload of [{ token: 'abc.def' }, { token: 42 }, 'nonsense']) {
      const socket = await open();
      const gone = disconnected(socket);
      socket.emit('auth', payload);
      expect(await gone).toBe('io server disconnect');
    }
  });

  it('disconnects a socket that sends anything before authenticating', async () => {
    const socket = await open();
    const gone = disconnected(socket);
    socket.emit('server:subscribe', { serverId: 'x' });
    expect(await gone).toBe('io server disconnect');
  });

  it('cuts the live socket when its session signs out', async () => {
    const cookie = await signUp();
    const socket = await open();
    const ok = new Promise<void>((resolve) => socket.once('auth:success', () => resolve()));
    socket.emit('auth', { token: await socketToken(cookie) });
    await ok;
    const gone = disconnected(socket);
    await t.app.inject({ method: 'POST', url: '/v1/auth/logout', headers: { cookie }, remoteAddress: uniqueIp() });
    expect(await gone).toBe('io server disconnect');
  });

  it('accepts a socket token once: a second socket with the same token is refused and disconnected', async () => {
    const cookie = await signUp();
    const token = await socketToken(cookie);
    const first = await open();
    expect(await authenticate(first, token)).toBe('ok');

    const second = await open();
    const gone = disconnected(second);
    expect(await authenticate(second, token)).toBe('NOT_AUTHENTICATED');
    expect(await gone).toBe('io server disconnect');

    // Still refused once the first socket has gone, and the first socket was not disturbed meanwhile.
    expect(await stillServed(first)).toBe('NOT_FOUND');
    first.disconnect();
    const third = await open();
    expect(await authenticate(third, token)).toBe('NOT_AUTHENTICATED');
    // A fresh token (what the web app fetches on every connect) still works.
    expect((await connectAs(cookie)).outcome).toBe('ok');
  });

  it(`lets one session hold ${SOCKETS_PER_SESSION_MAX} sockets and refuses the next with TOO_MANY_CONNECTIONS`, async () => {
    const { emailAddress, cookie } = await account();
    const held = await Promise.all(Array.from({ length: SOCKETS_PER_SESSION_MAX }, () => connectAs(cookie)));
    expect(held.map((h) => h.outcome)).toEqual(Array(SOCKETS_PER_SESSION_MAX).fill('ok'));

    const extra = await open();
    const gone = disconnected(extra);
    expect(await authenticate(extra, await socketToken(cookie))).toBe('TOO_MANY_CONNECTIONS');
    expect(await gone).toBe('io server disconnect');

    // The sockets already open keep working, and another session of the account has its own allowance.
    expect(await Promise.all(held.map((h) => stillServed(h.socket)))).toEqual(Array(SOCKETS_PER_SESSION_MAX).fill('NOT_FOUND'));
    expect((await connectAs(await signIn(emailAddress))).outcome).toBe('ok');
  });

  it('accepts new sockets again as sockets of a full session disconnect', async () => {
    const cookie = await signUp();
    const held = await Promise.all(Array.from({ length: SOCKETS_PER_SESSION_MAX }, () => connectAs(cookie)));
    expect((await connectAs(cookie)).outcome).toBe('TOO_MANY_CONNECTIONS');

    const freed = 3;
    for (const h of held.slice(0, freed)) h.socket.disconnect();
    // The API sees each disconnect a moment after the client; until then a new socket may still be refused.
    for (let i = 0; i < freed; i++) {
      await until(
        async () => (await connectAs(cookie)).outcome,
        (outcome) => outcome === 'ok',
      );
    }
    // Exactly the freed places were given back: the session is full again.
    expect((await connectAs(cookie)).outcome).toBe('TOO_MANY_CONNECTIONS');
  });

  it(`caps one account at ${SOCKETS_PER_USER_MAX} sockets over all its sessions`, async () => {
    const { emailAddress, cookie } = await account();
    const sessions = [cookie];
    while (sessions.length * SOCKETS_PER_SESSION_MAX < SOCKETS_PER_USER_MAX) sessions.push(await signIn(emailAddress));
    const held = await Promise.all(
      Array.from({ length: SOCKETS_PER_USER_MAX }, (_, i) => connectAs(sessions[Math.floor(i / SOCKETS_PER_SESSION_MAX)] as string)),
    );
    expect(held.filter((h) => h.outcome === 'ok')).toHaveLength(SOCKETS_PER_USER_MAX);
    // A fresh session, well under its own cap, is refused because the account is full.
    expect((await connectAs(await signIn(emailAddress))).outcome).toBe('TOO_MANY_CONNECTIONS');
  });

  it('refuses a connection opened by a page of another site', async () => {
    const socket = connect(base, { transports: ['polling'], reconnection: false, extraHeaders: { origin: 'https://evil.example' } });
    sockets.push(socket);
    const error = await new Promise<Error>((resolve) => socket.once('connect_error', resolve));
    expect(error).toBeInstanceOf(Error);
    expect(socket.connected).toBe(false);
  });
});

describe('spent socket-token ids in memory', () => {
  it('refuses an id twice, forgets it once its token has expired, and stays bounded', async () => {
    let now = 1_000;
    const spent = new MemorySpentTokenIds(3, 0, () => now);
    expect(await spent.claim('a', 2_000)).toBe(true);
    expect(await spent.claim('a', 2_000)).toBe(false);
    expect(await spent.claim('b', 2_000)).toBe(true);
    expect(await spent.claim('c', 5_000)).toBe(true);
    // Full of live ids: a new one is refused rather than an old one forgotten (which would make its token reusable).
    expect(await spent.claim('d', 5_000)).toBe(false);
    expect(spent.size).toBe(3);
    now = 2_001; // the tokens of a and b have expired; the signature check refuses them from now on
    expect(await spent.claim('d', 5_000)).toBe(true);
    expect(spent.size).toBe(2);
    expect(await spent.claim('c', 5_000)).toBe(false);
  });
});

describe('message size', () => {
  it('cuts a browser socket whose message passes 32 KiB in bytes, though it is fewer characters', async () => {
    const cookie = await signUp();
    const socket = await open();
    expect(await authenticate(socket, await socketToken(cookie))).toBe('ok');
    const gone = disconnected(socket);
    // 12,000 characters, 36,000 bytes once encoded: over the limit only when counted in bytes.
    socket.emit('server:subscribe', { serverId: '界'.repeat(12_000) });
    expect(await gone).toBe('io server disconnect');
  });

  it('keeps a browser socket whose messages stay under the limit', async () => {
    const cookie = await signUp();
    const socket = await open();
    expect(await authenticate(socket, await socketToken(cookie))).toBe('ok');
    const refused = new Promise<{ status: string }>((resolve) => socket.once('server:error', resolve));
    socket.emit('server:subscribe', { serverId: 'no-such-server' });
    expect((await refused).status).toBe('NOT_FOUND');
    expect(socket.connected).toBe(true);
  });
});
