import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { giveaways, ledgerEntries, users } from '../db/schema.ts';
import { buildTestApp, cookieFrom, uniqueEmail, uniqueIp } from '../test/build-test-app.ts';
import { drawWinners, GIVEAWAY, REFERRAL_ATTACH_DAYS } from './public-site.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp({ GIVEAWAY_DEADLINE: new Date(Date.now() + 3_600_000).toISOString() });
  // The giveaway row is written at start, in the background.
  for (let i = 0; i < 50 && !(await t.ctx.database.db.select().from(giveaways)).length; i++) await new Promise((r) => setTimeout(r, 20));
});
afterAll(async () => {
  await t.cleanup();
});

const send = (method: 'GET' | 'POST', url: string, cookie?: string, payload?: unknown) =>
  t.app.inject({
    method,
    url,
    headers: cookie ? { cookie } : {},
    ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
    remoteAddress: uniqueIp(),
  });

async function account({ verified = true, referral }: { verified?: boolean; referral?: string } = {}) {
  const res = await send('POST', '/v1/auth/register', undefined, {
    emailAddress: uniqueEmail('pub'),
    password: 'long enough password',
    ...(referral ? { referral } : {}),
  });
  const userId = res.json().result.userId as string;
  if (verified) {
    await t.ctx.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
    t.ctx.sessions.forgetUser(userId);
  }
  return { userId, cookie: cookieFrom(res.headers['set-cookie']) };
}

describe('plans', () => {
  it('GET /v1/plans answers the catalogue in cents', async () => {
    const res = (await send('GET', '/v1/plans')).json();
    expect(res.status).toBe('SUCCESS');
    expect(res.result[0]).toMatchObject({ id: 'free', monthlyPriceCents: 0, playerSlots: 10 });
    expect(res.result.map((p: { id: string }) => p.id)).toEqual(['free', 'starter', 'community', 'network']);
  });
});

describe('referrals', () => {
  it('gives a user a stable code and link, and credits it at registration or afterwards', async () => {
    const referrer = await account();
    const first = (await send('GET', '/v1/user/referral', referrer.cookie)).json().result;
    expect(first.link).toBe(`http://localhost:3000/?r=${first.code}`);
    expect((await send('GET', '/v1/user/referral', referrer.cookie)).json().result.code).toBe(first.code);

    const atSignup = await account({ referral: first.code });
    const [row] = await t.ctx.database.db.select().from(users).where(eq(users.id, atSignup.userId));
    expect(row?.referral).toBe(first.code);

    const later = await account();
    expect((await send('POST', '/v1/referral', later.cookie, { referral: first.code })).json().status).toBe('SUCCESS');
    const [laterRow] = await t.ctx.database.db.select().from(users).where(eq(users.id, later.userId));
    expect(laterRow?.referral).toBe(first.code);
    expect((await send('GET', '/v1/user/referral', referrer.cookie)).json().result.referredUsers).toBe(2);
  });

  it('names a referrer afterwards only for a new account that has bought nothing, and never the account it referred', async () => {
    const a = await account();
    const codeOf = async (who: { cookie: string }) => (await send('GET', '/v1/user/referral', who.cookie)).json().result.code as string;
    const referralOf = async (userId: string) =>
      (await t.ctx.database.db.select({ referral: users.referral }).from(users).where(eq(users.id, userId)))[0]?.referral;
    const aCode = await codeOf(a);
    // B signed up through A's link; B naming A's own referrer back would make a pair paying each other.
    const b = await account({ referral: aCode });
    expect((await send('POST', '/v1/referral', a.cookie, { referral: await codeOf(b) })).json().status).toBe('SUCCESS');
    expect(await referralOf(a.userId)).toBeNull();
    // Nor through others: A referred B, B referred C; A naming C would close a ring of three.
    const c = await account({ referral: await codeOf(b) });
    await send('POST', '/v1/referral', a.cookie, { referral: await codeOf(c) });
    expect(await referralOf(a.userId)).toBeNull();

    // An account that has already paid in keeps buying without a referrer.
    const payer = await account();
    await t.ctx.database.db.insert(ledgerEntries).values({
      id: `test-${payer.userId}`,
      userId: payer.userId,
      amountCents: 500,
      kind: 'topup',
      reference: 'test',
      description: 'Top-up',
    });
    expect((await send('POST', '/v1/referral', payer.cookie, { referral: aCode })).json().status).toBe('SUCCESS');
    expect(await referralOf(payer.userId)).toBeNull();

    // Nor an account older than a week.
    const old = await account();
    await t.ctx.database.db
      .update(users)
      .set({ createdAt: new Date(Date.now() - (REFERRAL_ATTACH_DAYS + 1) * 24 * 60 * 60 * 1000) })
      .where(eq(users.id, old.userId));
    t.ctx.sessions.forgetUser(old.userId);
    expect((await send('POST', '/v1/referral', old.cookie, { referral: aCode })).json().status).toBe('SUCCESS');
    expect(await referralOf(old.userId)).toBeNull();
  });

  it('lets at most one of two accounts naming each other at the same moment have a referrer', async () => {
    const codeOf = async (who: { cookie: string }) => (await send('GET', '/v1/user/referral', who.cookie)).json().result.code as string;
    const referralOf = async (userId: string) =>
      (await t.ctx.database.db.select({ referral: users.referral }).from(users).where(eq(users.id, userId)))[0]?.referral;
    for (let round = 0; round < 5; round++) {
      const a = await account();
      const b = await account();
      const [aCode, bCode] = [await codeOf(a), await codeOf(b)];
      await Promise.all([
        send('POST', '/v1/referral', a.cookie, { referral: bCode }),
        send('POST', '/v1/referral', b.cookie, { referral: aCode }),
      ]);
      const attached = [await referralOf(a.userId), await referralOf(b.userId)].filter((r) => r !== null);
      expect(attached).toHaveLength(1);
    }
  });

  it('ignores unknown and own codes without saying so', async () => {
    const user = await account({ referral: 'nobody-has-this' });
    const [row] = await t.ctx.database.db.select().from(users).where(eq(users.id, user.userId));
    expect(row?.referral).toBeNull();
    const own = (await send('GET', '/v1/user/referral', user.cookie)).json().result.code;
    expect((await send('POST', '/v1/referral', user.cookie, { referral: own })).json().status).toBe('SUCCESS');
    const [after] = await t.ctx.database.db.select().from(users).where(eq(users.id, user.userId));
    expect(after?.referral).toBeNull();
  });
});

describe('giveaway', () => {
  const url = `/v1/giveaway/${GIVEAWAY.slug}`;

  it('takes one entry per verified user and counts them', async () => {
    const before = (await send('GET', url)).json().result.entries;
    const user = await account();
    expect((await send('POST', `${url}/enter`, user.cookie, {})).json().status).toBe('SUCCESS');
    const second = await send('POST', `${url}/enter`, user.cookie, {});
    expect(second.statusCode).toBe(409);
    expect(second.json().message).toBe('You have already entered this giveaway. Good luck!');
    const state = (await send('GET', url, user.cookie)).json().result;
    expect(state).toMatchObject({ entered: true, entries: before + 1, drawn: false, winnersCount: 10 });
  });

  it('asks unverified users to verify and anonymous ones to sign in', async () => {
    const user = await account({ verified: false });
    expect((await send('POST', `${url}/enter`, user.cookie, {})).json().status).toBe('EMAIL_ADDRESS_REQUIRED');
    expect((await send('POST', `${url}/enter`, undefined, {})).json().status).toBe('NOT_AUTHENTICATED');
  });

  it('draws fairly and reproducibly from a recorded seed, only after the deadline, once', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `entry-${i}`);
    const a = drawWinners('seed-1', ids, 10);
    expect(a).toHaveLength(10);
    expect(new Set(a).size).toBe(10);
    expect(drawWinners('seed-1', [...ids].reverse(), 10)).toEqual(a);
    expect(drawWinners('seed-2', ids, 10)).not.toEqual(a);

    const operator = { authorization: `Bearer ${t.config.operatorToken}` };
    const early = await t.app.inject({
      method: 'POST',
      url: '/v1/operator/giveaways/draw',
      headers: operator,
      payload: { slug: GIVEAWAY.slug },
      remoteAddress: uniqueIp(),
    });
    expect(early.json().message).toBe('The giveaway is still open.');
    await t.ctx.database.db
      .update(giveaways)
      .set({ deadline: new Date(Date.now() - 1000) })
      .where(eq(giveaways.slug, GIVEAWAY.slug));
    const drawn = await t.app.inject({
      method: 'POST',
      url: '/v1/operator/giveaways/draw',
      headers: operator,
      payload: { slug: GIVEAWAY.slug, seed: 'recorded-seed' },
      remoteAddress: uniqueIp(),
    });
    expect(drawn.json().result).toMatchObject({ seed: 'recorded-seed', winners: expect.any(Number) });
    const state = (await send('GET', url)).json().result;
    expect(state).toMatchObject({ drawn: true, seed: 'recorded-seed' });
    expect(state.winners.length).toBe(drawn.json().result.winners);
    for (const w of state.winners) expect(w).toMatch(/^.\*{3,}@example\.com$/);
    const again = await t.app.inject({
      method: 'POST',
      url: '/v1/operator/giveaways/draw',
      headers: operator,
      payload: { slug: GIVEAWAY.slug },
      remoteAddress: uniqueIp(),
    });
    expect(again.json().status).toBe('INVALID_STATE');
    const user = await account();
    expect((await send('POST', `${url}/enter`, user.cookie, {})).json().message).toBe('This giveaway has closed.');
  });
});
