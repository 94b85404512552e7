import type { AddressInfo } from 'node:net';
import { PUBLIC_LIST_NAMESPACE, PUBLIC_SOCKETS_PER_ADDRESS_MAX } from '@spawnpoint/contracts';
import { io as connect, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../../test-support/until.ts';
import { loadConfig } from '../config.ts';
import { buildTestApp, cookieFrom, uniqueEmail } from '../test/build-test-app.ts';
import { clientAddress } from './client-address.ts';

// The load balancers: this machine (the sockets below connect from 127.0.0.1), a documentation network and
// one IPv6 address. Clients are in 203.0.113.0/24; 127.0.0.2 is a client reaching the API directly.
const TRUSTED = '127.0.0.1, 198.51.100.0/24,2001:db8::1';
const LB = '198.51.100.7';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let base: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  t = await buildTestApp({ TRUST_PROXY: TRUSTED });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await t.cleanup();
});

const secrets = { APP_SECRET: 'a'.repeat(32), OPERATOR_TOKEN: 'o'.repeat(32), PROXY_TOKEN: 'p'.repeat(32) };

describe('TRUST_PROXY', () => {
  it.each(['true', 'TRUE', '1', 'yes', '*', '0.0.0.0/0', '10.0.0.5,::/0'])(
    'refuses %s at start, asking for the load balancers',
    (value) => {
      expect(() => loadConfig({ ...secrets, TRUST_PROXY: value })).toThrow(
        /TRUST_PROXY: .* would believe X-Forwarded-For from any client.*List the load balancers' addresses instead/,
      );
    },
  );

  it.each(['loopback', 'uniquelocal', '10.0.0.5,proxy.internal', '10.0.0.0/33', '10.0.0.5,,10.0.0.6', '10.0.0.0/8/8'])(
    'refuses %s, which is not a list of addresses or CIDRs',
    (value) => {
      expect(() => loadConfig({ ...secrets, TRUST_PROXY: value })).toThrow(/TRUST_PROXY: ".*" is not an IP address or CIDR/);
    },
  );

  it('reads a list of addresses and CIDRs; unset or false trusts nobody', () => {
    expect(loadConfig({ ...secrets, TRUST_PROXY: '10.0.0.5, 10.1.0.0/16,::1' }).TRUST_PROXY).toEqual(['10.0.0.5', '10.1.0.0/16', '::1']);
    expect(loadConfig({ ...secrets }).TRUST_PROXY).toEqual([]);
    expect(loadConfig({ ...secrets, TRUST_PROXY: 'false' }).TRUST_PROXY).toEqual([]);
    expect(t.config.TRUST_PROXY).toEqual(['127.0.0.1', '198.51.100.0/24', '2001:db8::1']);
  });
});

/** Signs up through the real app from `peer` with this X-Forwarded-For, and answers the address its session records (`request.ip`). */
async function addressSeen(peer: string, forwardedFor?: string): Promise<string> {
  const headers = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  const registered = await t.app.inject({
    method: 'POST',
    url: '/v1/auth/register',
    headers,
    payload: { emailAddress: uniqueEmail('proxied'), password: 'long enough password' },
    remoteAddress: peer,
  });
  expect(registered.json().status).toBe('SUCCESS');
  const sessions = await t.app.inject({
    method: 'GET',
    url: '/v1/user/sessions',
    headers: { cookie: cookieFrom(registered.headers['set-cookie']) },
    remoteAddress: peer,
  });
  return sessions.json().result[0].ip;
}

describe('the client address over HTTP and sockets', () => {
  const cases: { peer: string; forwardedFor?: string; client: string; why: string }[] = [
    { peer: LB, forwardedFor: '203.0.113.1', client: '203.0.113.1', why: 'a trusted load balancer names the client' },
    { peer: LB, forwardedFor: '6.6.6.6, 203.0.113.2', client: '203.0.113.2', why: 'what the client wrote on the left is not believed' },
    {
      peer: LB,
      forwardedFor: '6.6.6.6, 203.0.113.3, 198.51.100.9',
      client: '203.0.113.3',
      why: 'the walk goes through trusted proxies to the first untrusted address',
    },
    { peer: '2001:db8::1', forwardedFor: '2001:db8:ffff::5', client: '2001:db8:ffff::5', why: 'an IPv6 load balancer' },
    { peer: '203.0.113.4', forwardedFor: '203.0.113.99', client: '203.0.113.4', why: 'an untrusted peer names nobody' },
    { peer: '203.0.113.5', forwardedFor: `${LB}, 127.0.0.1`, client: '203.0.113.5', why: 'not even by naming trusted proxies' },
    { peer: LB, client: LB, why: 'without the header, the load balancer itself' },
  ];

  it.each(cases)('$why: $peer with X-Forwarded-For $forwardedFor is $client, for HTTP and sockets alike', async (c) => {
    expect(await addressSeen(c.peer, c.forwardedFor)).toBe(c.client);
    const headers = c.forwardedFor === undefined ? {} : { 'x-forwarded-for': c.forwardedFor };
    expect(clientAddress({ address: c.peer, headers }, t.config.TRUST_PROXY)).toBe(c.client);
  });

  it('counts sign-in attempts through the load balancer per forwarded client, whatever the client writes on the left', async () => {
    const login = (forwardedFor: string, peer = LB) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/auth/login',
        headers: { 'x-forwarded-for': forwardedFor },
        // Counted before the body is read, so an empty one costs no password check.
        payload: {},
        remoteAddress: peer,
      });
    const statuses: string[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await login(`192.0.2.${i}, 203.0.113.10`)).json().status);
    expect(statuses.slice(0, 30).every((s) => s === 'INVALID_INPUT')).toBe(true);
    expect(statuses[30]).toBe('RATE_LIMIT');
    // Another client behind the same load balancer has its own budget.
    expect((await login('203.0.113.11')).json().status).toBe('INVALID_INPUT');
  });

  it('counts a direct client under its own address whatever X-Forwarded-For it forges', async () => {
    const statuses: string[] = [];
    for (let i = 0; i < 31; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/auth/login',
        headers: { 'x-forwarded-for': `192.0.2.${i}` },
        payload: {},
        remoteAddress: '203.0.113.20',
      });
      statuses.push(res.json().status);
    }
    expect(statuses.slice(0, 30).every((s) => s === 'INVALID_INPUT')).toBe(true);
    expect(statuses[30]).toBe('RATE_LIMIT');
  });

  /** Opens public-list sockets from `localAddress` with this X-Forwarded-For; answers how many stay connected. */
  async function connected(count: number, localAddress: string, forwardedFor: (i: number) => string): Promise<number> {
    const opened = Array.from({ length: count }, (_, i) => {
      // engine.io-client hands `localAddress` to Node's socket (ws), though its types do not list it.
      const options = {
        transports: ['websocket'],
        reconnection: false,
        localAddress,
        extraHeaders: { 'x-forwarded-for': forwardedFor(i) },
      };
      return connect(`${base}${PUBLIC_LIST_NAMESPACE}`, options);
    });
    sockets.push(...opened);
    await until(
      () => opened.filter((s) => s.connected).length + opened.filter((s) => !s.active).length,
      (n) => n === count,
    );
    // A socket over the cap is let in, then dropped at once: give the drops a moment to arrive.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const live = opened.filter((s) => s.connected).length;
    for (const s of opened) s.disconnect();
    return live;
  }

  it('caps public-list sockets per forwarded client behind the load balancer, and per peer without one', async () => {
    const over = PUBLIC_SOCKETS_PER_ADDRESS_MAX + 1;
    // 127.0.0.1 is a trusted load balancer: each client its own cap, whatever it wrote on the left.
    expect(await connected(over, '127.0.0.1', (i) => `192.0.2.${i}, 203.0.113.30`)).toBe(PUBLIC_SOCKETS_PER_ADDRESS_MAX);
    expect(await connected(over, '127.0.0.1', (i) => `203.0.113.${100 + i}`)).toBe(over);
    // 127.0.0.2 is not: a forged header per socket does not get it past its own address's cap.
    expect(await connected(over, '127.0.0.2', (i) => `203.0.113.${200 + i}`)).toBe(PUBLIC_SOCKETS_PER_ADDRESS_MAX);
  });
});
