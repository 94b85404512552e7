import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, signedUp } from './test/build-test-app.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let port: number;
// One connection for every request below, as a reverse proxy keeps one to the API for many browsers.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  t = await buildTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  agent.destroy();
  await t.cleanup();
});

interface Answer {
  status: string;
  email: string | undefined;
  reusedConnection: boolean;
}

function call(method: 'GET' | 'POST', path: string, cookie?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, agent, headers: cookie ? { cookie } : {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const parsed = JSON.parse(body) as { status: string; result?: { emailAddress?: string } };
        resolve({ status: parsed.status, email: parsed.result?.emailAddress, reusedConnection: request.reusedSocket });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

const me = (cookie?: string) => call('GET', '/v1/user/me', cookie);

describe('the session cookie on a connection several people share', () => {
  it('gives each request the session of its own cookie, and none once that session ends', async () => {
    const a = await signedUp(t, 'connection-a');
    const b = await signedUp(t, 'connection-b');
    const emailOf = async (cookie: string) =>
      (await t.app.inject({ method: 'GET', url: '/v1/user/me', headers: { cookie } })).json().result.emailAddress;
    const [emailA, emailB] = [await emailOf(a.cookie), await emailOf(b.cookie)];

    const answers = [
      await me(a.cookie),
      await me(a.cookie),
      await me(b.cookie),
      await me(a.cookie),
      await me(),
      await me(`theme=dark; ${b.cookie}`),
      await me(`${a.cookie.split('=')[0]}=not-a-session`),
      await me(b.cookie),
    ];
    expect(answers.map((one) => [one.status, one.email])).toEqual([
      ['SUCCESS', emailA],
      ['SUCCESS', emailA],
      ['SUCCESS', emailB],
      ['SUCCESS', emailA],
      ['NOT_AUTHENTICATED', undefined],
      ['SUCCESS', emailB],
      ['NOT_AUTHENTICATED', undefined],
      ['SUCCESS', emailB],
    ]);
    // They really came over one connection (the first opened it).
    expect(answers.slice(1).every((one) => one.reusedConnection)).toBe(true);

    // A signs out over that connection: the same Cookie header no longer signs anyone in; B is still in.
    expect((await call('POST', '/v1/auth/logout', a.cookie)).status).toBe('SUCCESS');
    expect(await me(a.cookie)).toMatchObject({ status: 'NOT_AUTHENTICATED', reusedConnection: true });
    expect(await me(b.cookie)).toMatchObject({ status: 'SUCCESS', email: emailB, reusedConnection: true });
  });
});
