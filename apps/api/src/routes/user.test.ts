import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedback, users } from '../db/schema.ts';
import { loadConfig } from '../config.ts';
import { buildTestApp, signedUp, uniqueIp } from '../test/build-test-app.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let cookie: string;
let userId: string;

beforeAll(async () => {
  t = await buildTestApp();
  ({ cookie, userId } = await signedUp(t));
});
afterAll(async () => {
  await t.cleanup();
});

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers, remoteAddress: uniqueIp() });

describe('signed-in endpoints', () => {
  it.each(['/v1/user/me', '/v1/user/servers', '/v1/user/websocket'])('%s needs a session', async (url) => {
    const res = await get(url);
    expect(res.statusCode).toBe(401);
    expect(res.json().status).toBe('NOT_AUTHENTICATED');
    expect((await get(url, { cookie: 'sp_session=forged-token-value' })).statusCode).toBe(401);
  });

  it('GET /v1/user/servers lists no servers for a new account', async () => {
    const res = await get('/v1/user/servers', { cookie });
    expect(res.json()).toEqual({ status: 'SUCCESS', result: [] });
  });

  it('GET /v1/user/websocket gives a short-lived socket token', async () => {
    const res = await get('/v1/user/websocket', { cookie });
    expect(res.json().status).toBe('SUCCESS');
    expect(res.json().result.token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it('GET /v1/user/me returns the user data', async () => {
    const res = await get('/v1/user/me', { cookie });
    expect(res.json().result).toMatchObject({ userId, emailVerified: false });
    expect(res.json().result.chatWidgetToken).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('GET /v1/auth/session, asked by pages a visitor may see', () => {
  it('answers SUCCESS with null to a visitor and a forged session, and the user to a signed-in one', async () => {
    for (const headers of [{}, { cookie: 'sp_session=forged-token-value' }] as Record<string, string>[]) {
      const res = await get('/v1/auth/session', headers);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'SUCCESS', result: { user: null } });
    }
    const res = await get('/v1/auth/session', { cookie });
    expect(res.json().result.user).toEqual((await get('/v1/user/me', { cookie })).json().result);
    expect(res.json().result.user).toMatchObject({ userId });
  });

  it('answers null for a locked account', async () => {
    const user = await signedUp(t);
    await t.ctx.database.db.update(users).set({ lockedAt: new Date() }).where(eq(users.id, user.userId));
    t.ctx.sessions.forgetUser(user.userId);
    expect((await get('/v1/auth/session', { cookie: user.cookie })).json()).toEqual({ status: 'SUCCESS', result: { user: null } });
  });
});

describe('the polled list, answered from memory', () => {
  it('finds the session among other cookies, and stops at once when the account is locked', async () => {
    const user = await signedUp(t);
    const withOthers = { cookie: `theme=dark; ${user.cookie}; consent=%E0%A4%A` };
    // The second answer comes from the session and list caches the first one filled.
    for (let i = 0; i < 2; i++) expect((await get('/v1/user/servers', withOthers)).json()).toEqual({ status: 'SUCCESS', result: [] });
    await t.ctx.database.db.update(users).set({ lockedAt: new Date() }).where(eq(users.id, user.userId));
    t.ctx.sessions.forgetUser(user.userId);
    // Twice: the second finds the locked account in memory.
    for (let i = 0; i < 2; i++) {
      const res = await get('/v1/user/servers', withOthers);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ status: 'ACCOUNT_LOCKED', message: 'Your account is locked. Please contact support.' });
    }
  });

  it('refuses a signed-out session on the next poll', async () => {
    const user = await signedUp(t);
    expect((await get('/v1/user/servers', { cookie: user.cookie })).statusCode).toBe(200);
    const out = await t.app.inject({ method: 'POST', url: '/v1/auth/logout', headers: { cookie: user.cookie }, payload: {} });
    expect(out.statusCode).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await get('/v1/user/servers', { cookie: user.cookie });
      expect(res.statusCode).toBe(401);
      expect(res.json().status).toBe('NOT_AUTHENTICATED');
    }
  });
});

describe('public endpoints', () => {
  it('GET /v1/localization answers the currency every price and balance is in; another one is refused at start', async () => {
    expect((await get('/v1/localization')).json()).toEqual({ status: 'SUCCESS', result: { currency: 'USD' } });
    // Relabelling dollar amounts as euros (with no conversion) would show the wrong price.
    expect(() => loadConfig({ CURRENCY: 'EUR' })).toThrow(/CURRENCY: prices and balances are kept in US dollars/);
  });

  it('GET /healthz reports the database', async () => {
    const res = await get('/healthz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'SUCCESS', result: { database: 'ok', agents: [] } });
  });

  it('POST /v1/feedback/submit stores the message with its route and author', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/feedback/submit',
      payload: { message: 'The console colours are lovely', route: '/servers?tab=1' },
      headers: { cookie },
      remoteAddress: uniqueIp(),
    });
    expect(res.json()).toEqual({ status: 'SUCCESS', result: null });
    const rows = await t.ctx.database.db.select().from(feedback).where(eq(feedback.userId, userId));
    expect(rows.map((r) => [r.message, r.route])).toEqual([['The console colours are lovely', '/servers?tab=1']]);
  });

  it('POST /v1/feedback/submit refuses an empty message and limits bursts', async () => {
    const empty = await t.app.inject({
      method: 'POST',
      url: '/v1/feedback/submit',
      payload: { message: '   ', route: '/' },
      remoteAddress: uniqueIp(),
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().fields).toEqual({ message: 'The message field is required' });
    const ip = uniqueIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/feedback/submit',
        payload: { message: `note ${i}`, route: '/' },
        remoteAddress: ip,
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses[10]).toBe(429);
  });
});
