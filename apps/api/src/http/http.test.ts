import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, requester, signedUp, uniqueIp } from '../test/build-test-app.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.cleanup();
});

describe('bad input never gets a 5xx', () => {
  it('malformed JSON is INVALID_INPUT', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"emailAddress": ',
      remoteAddress: uniqueIp(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ status: 'INVALID_INPUT', message: 'The information you entered is invalid.' });
  });

  it('a body over 64 KiB is refused', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/feedback/submit',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ message: 'x'.repeat(70_000), route: '/' }),
      remoteAddress: uniqueIp(),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().status).toBe('INVALID_INPUT');
  });

  it('wrong JSON types are INVALID_INPUT with field messages', async () => {
    for (const payload of [[], 'text', 42, null, { emailAddress: ['a'], password: { x: 1 } }]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(payload),
        remoteAddress: uniqueIp(),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().status).toBe('INVALID_INPUT');
    }
  });

  it('a NUL character anywhere is INVALID_INPUT, never a 500 from the database that cannot store it', async () => {
    const send = requester(t.app);
    const { cookie } = await signedUp(t, 'nul');
    const operator = { authorization: `Bearer ${t.config.operatorToken}` };
    const tries: [string, 'GET' | 'POST' | 'PUT' | 'DELETE', string, string | undefined, unknown, Record<string, string>?][] = [
      ['feedback message (no session)', 'POST', '/v1/feedback/submit', undefined, { message: 'a\u0000b', route: '/x' }],
      ['feedback route', 'POST', '/v1/feedback/submit', undefined, { message: 'hi', route: '/\u0000' }],
      ['public server icon (no session)', 'GET', '/v1/servers/list/%00/icon', undefined, undefined],
      ['referral code', 'POST', '/v1/referral', cookie, { referral: '\u0000' }],
      ['receipt id', 'GET', '/v1/user/transactions/%00', cookie, undefined],
      ['top-up id', 'GET', '/v1/user/topups/%00', cookie, undefined],
      ['sandbox payment id', 'POST', '/v1/payments/sandbox/%00', cookie, { outcome: 'abandon' }],
      ['schedule id', 'DELETE', '/v1/server/abc/schedules/%00', cookie, undefined],
      ['server id of a schedule', 'PUT', '/v1/server/%00/schedules/abc', cookie, {}],
      ['operator search', 'GET', '/v1/operator/servers?name=%00', undefined, undefined, operator],
      ['operator lock', 'POST', '/v1/operator/accounts/lock', undefined, { emailAddress: '\u0000', locked: true }, operator],
    ];
    for (const [what, method, url, session, body, headers] of tries) {
      const res = await send(method, url, session, body, headers);
      expect([what, res.statusCode, res.json().status]).toEqual([what, 400, 'INVALID_INPUT']);
    }
  });

  it('a request the HTTP parser refuses is answered in the envelope too (broken request line, headers over 16 KB)', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    // Raw bytes on a socket: what a broken client or a probe sends, which never reaches a route.
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(request));
        let answer = '';
        socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    const envelope = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;
    const garbage = await raw('HELLO THERE\r\n\r\n');
    expect(garbage.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(envelope(garbage)).toEqual({ status: 'INVALID_INPUT', message: 'The request is not valid HTTP.' });
    const huge = await raw(`GET /v1/servers/list?q=${'a'.repeat(20_000)} HTTP/1.1\r\nhost: localhost\r\n\r\n`);
    expect(huge.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(envelope(huge)).toEqual({ status: 'INVALID_INPUT', message: 'The request headers are too large.' });
  });

  it('unknown API paths are NOT_FOUND in the envelope', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/no/such/thing', remoteAddress: uniqueIp() });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ status: 'NOT_FOUND', message: 'The requested resource was not found.' });
    const post = await t.app.inject({ method: 'POST', url: '/v1/nothing', payload: {}, remoteAddress: uniqueIp() });
    expect(post.json().status).toBe('NOT_FOUND');
  });
});

describe('CSRF rule', () => {
  const login = { emailAddress: 'someone@example.com', password: 'whatever password' };

  it('refuses a state change from another origin', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      headers: { origin: 'https://evil.example' },
      payload: login,
      remoteAddress: uniqueIp(),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().status).toBe('NO_PERMISSION');
  });

  it('refuses a cross-site request without Origin', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/logout',
      headers: { 'sec-fetch-site': 'cross-site' },
      remoteAddress: uniqueIp(),
    });
    expect(res.statusCode).toBe(403);
  });

  it('refuses form-encoded and text bodies', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/auth/login',
        headers: { 'content-type': type, origin: 'http://localhost:3000' },
        payload: 'emailAddress=a@b.c&password=x',
        remoteAddress: uniqueIp(),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().status).toBe('INVALID_INPUT');
    }
  });

  // The multipart parser is registered for the upload route only (it costs every request where it is global).
  it('refuses a multipart body on a route that takes JSON', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      headers: { 'content-type': 'multipart/form-data; boundary=x', origin: 'http://localhost:3000' },
      payload: '--x\r\nContent-Disposition: form-data; name="emailAddress"\r\n\r\na@b.c\r\n--x--\r\n',
      remoteAddress: uniqueIp(),
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ status: 'INVALID_INPUT', fields: { _: 'The request body must be JSON.' } });
  });

  it('accepts our own origin', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      headers: { origin: 'http://localhost:3000', 'sec-fetch-site': 'same-origin' },
      payload: login,
      remoteAddress: uniqueIp(),
    });
    expect(res.json().status).toBe('INVALID_CREDENTIALS');
  });
});

describe('headers', () => {
  it('sends the baseline security headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/localization', remoteAddress: uniqueIp() });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBe('DENY');
    // Accounts, sessions and secrets travel in API answers: no cache keeps them.
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers a path the router cannot read in the envelope, with the same headers and without echoing it', async () => {
    const broken = await t.app.inject({ method: 'GET', url: '/v1/servers/%E0%A4%A/files', remoteAddress: uniqueIp() });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toEqual({ status: 'INVALID_INPUT', message: 'The address is not valid.' });
    const long = await t.app.inject({ method: 'GET', url: `/v1/servers/${'a'.repeat(300)}/files`, remoteAddress: uniqueIp() });
    expect(long.statusCode).toBe(404);
    expect(long.json().status).toBe('NOT_FOUND');
    for (const res of [broken, long]) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-request-id']).toBeTruthy();
    }
  });
});

describe('the per-address API budget', () => {
  it('answers RATE_LIMIT once an address has spent its budget for the minute, and other addresses go on', async () => {
    const budget = 720; // apiPerIp per minute at RATE_LIMIT_FACTOR 1 (the test app's default)
    const address = uniqueIp();
    const statuses: number[] = [];
    for (let i = 0; i < budget; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/localization', remoteAddress: address });
      statuses.push(res.statusCode);
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    const refused = await t.app.inject({ method: 'GET', url: '/v1/localization', remoteAddress: address });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().status).toBe('RATE_LIMIT');
    const other = await t.app.inject({ method: 'GET', url: '/v1/localization', remoteAddress: uniqueIp() });
    expect(other.statusCode).toBe(200);
  });
});
