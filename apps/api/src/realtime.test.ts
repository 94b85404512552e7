import type { AddressInfo } from 'node:net';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, cookieFrom, uniqueEmail, uniqueIp } from './test/build-test-app.ts';

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
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/register',
    payload: { emailAddress: uniqueEmail(), password: 'long enough password' },
    remoteAddress: uniqueIp(),
  });
  return cookieFrom(res.headers['set-cookie']);
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

  it('refuses a connection opened by a page of another site', async () => {
    const socket = connect(base, { transports: ['polling'], reconnection: false, extraHeaders: { origin: 'https://evil.example' } });
    sockets.push(socket);
    const error = await new Promise<Error>((resolve) => socket.once('connect_error', resolve));
    expect(error).toBeInstanceOf(Error);
    expect(socket.connected).toBe(false);
  });
});
