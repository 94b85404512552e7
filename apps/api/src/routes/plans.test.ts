import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../../../test-support/until.ts';
import { addMonth, proratedCents } from '../billing/subscriptions.ts';
import { serverMembers, servers, subscriptions, users } from '../db/schema.ts';
import { FREE_SERVER_LIMIT, ownedServerLimitMessage, planById, serverLimitOf } from '@spawnpoint/contracts';
import { buildTestAppWithAgent, ownerWithServer, requester, uniqueServerName, verifiedOwner, type Send } from '../test/build-test-app.ts';

/**
 * Plans bought for a server from the balance, with a real agent for the servers. The clock of
 * a subscription is moved by writing its period into the database, as time passing would.
 */
let env: Awaited<ReturnType<typeof buildTestAppWithAgent>>;
let t: Awaited<ReturnType<typeof buildTestAppWithAgent>>['t'];
const send: Send = (...args) => requester(t.app)(...args);
const key = () => randomBytes(12).toString('hex');
const DAY = 86_400_000;

beforeAll(async () => {
  env = await buildTestAppWithAgent({ RATE_LIMIT_FACTOR: '5' });
  t = env.t;
});
afterAll(async () => env.cleanup());

async function payingOwner(prefix: string, topUpCents: number): Promise<{ cookie: string; id: string }> {
  const owner = await ownerWithServer(t, prefix);
  await send('PUT', '/v1/user/billing', owner.cookie, {
    name: 'Grace Hopper',
    addressLine1: '1 Harbour St',
    city: 'Arlington',
    country: 'US',
  });
  if (topUpCents > 0) {
    const payment = (await send('POST', '/v1/user/topups', owner.cookie, { amountCents: topUpCents, idempotencyKey: key() })).json().result;
    await send('POST', `/v1/payments/sandbox/${payment.paymentId}`, owner.cookie, { outcome: 'pay' });
  }
  return owner;
}
const planOf = async (cookie: string, id: string) => (await send('GET', `/v1/server/${id}/plan`, cookie)).json().result;
const choose = async (cookie: string, id: string, planId: string, idempotencyKey = key()) =>
  (await send('POST', `/v1/server/${id}/plan`, cookie, { planId, idempotencyKey })).json();
const movePeriod = (id: string, start: Date, end: Date) =>
  t.ctx.database.db.update(subscriptions).set({ periodStart: start, periodEnd: end }).where(eq(subscriptions.serverId, id));
const serverRow = async (id: string) => (await t.ctx.database.db.select().from(servers).where(eq(servers.id, id)))[0]!;

describe('plans', () => {
  it('needs billing information and a balance that covers the month; then the limits change at once and a replay charges nothing', async () => {
    const bare = await ownerWithServer(t, 'nobill');
    expect(await choose(bare.cookie, bare.id, 'starter')).toMatchObject({ status: 'BILLING_INFO_REQUIRED' });
    const poor = await payingOwner('poor', 0);
    expect(await choose(poor.cookie, poor.id, 'starter')).toMatchObject({
      status: 'INSUFFICIENT_BALANCE',
      message: 'Your balance is too low. Please top up your balance.',
    });
    expect((await planOf(poor.cookie, poor.id)).planId).toBe('free');
    expect(await choose(poor.cookie, poor.id, 'gold')).toMatchObject({
      status: 'INVALID_INPUT',
      fields: { planId: 'Choose one of the plans.' },
    });

    const { cookie, id } = await payingOwner('buyer', 2000);
    const before = await planOf(cookie, id);
    expect(before).toMatchObject({ planId: 'free', subscription: null, balanceCents: 2000 });
    expect(before.quotes).toContainEqual({ planId: 'starter', kind: 'new', chargeCents: 499 });
    const idempotencyKey = key();
    const bought = await choose(cookie, id, 'starter', idempotencyKey);
    expect(bought.status, bought.message).toBe('SUCCESS');
    expect(bought.result).toMatchObject({
      planId: 'starter',
      balanceCents: 1501,
      subscription: { planId: 'starter', renews: true, nextPlanId: null },
    });
    const { periodStart, periodEnd } = bought.result.subscription as { periodStart: string; periodEnd: string };
    expect(new Date(periodEnd).toISOString()).toBe(addMonth(new Date(periodStart)).toISOString());
    // The same request again (a double click, a retry): the state now, no second month.
    expect((await choose(cookie, id, 'starter', idempotencyKey)).result.balanceCents).toBe(1501);
    // The same key for another plan is a mistake, said as such (not a success that bought nothing).
    expect(await choose(cookie, id, 'community', idempotencyKey)).toMatchObject({
      status: 'INVALID_INPUT',
      message: 'This idempotency key was used for another purchase. Start a new one.',
    });
    // Limits: slots and memory on the server, backups from the plan.
    expect(await serverRow(id)).toMatchObject({ planId: 'starter', maxPlayers: 35, memoryMb: 3072 });
    expect((await send('GET', `/v1/server/${id}/backups`, cookie)).json().result.limit).toBe(10);
    // The slots bought are the server's at once: server.properties had all of Free's 10, now all of Starter's
    // 35 (the node rewrites it), and the settings form may go up to 35, no further.
    const properties = () => send('GET', `/v1/server/${id}/properties`, cookie).then((r) => r.json().result['max-players'] as number);
    await until(properties, (max) => max === 35);
    await until(
      async () => (await send('GET', `/v1/server/${id}`, cookie)).json().result,
      (s) => s.playerSlots === 35 && s.players.max === 35,
    );
    const tooMany = (await send('PUT', `/v1/server/${id}/properties`, cookie, { 'max-players': 36 })).json();
    expect(tooMany).toMatchObject({ status: 'INVALID_INPUT', fields: { 'max-players': 'Your plan allows at most 35 players' } });
    expect((await send('PUT', `/v1/server/${id}/properties`, cookie, { 'max-players': 20 })).json().result['max-players']).toBe(20);
    const ledger = (await send('GET', '/v1/user/transactions', cookie)).json().result.entries;
    expect(ledger[0]).toMatchObject({ kind: 'plan', amountCents: -499, balanceAfterCents: 1501 });
    const log = (await send('GET', `/v1/server/${id}/activity`, cookie)).json().result.entries as { action: string; target: string }[];
    expect(log.map((e) => `${e.action} ${e.target}`)).toContain('plan.choose starter');
  });

  it('charges the prorated difference for an upgrade mid-period, takes a cheaper plan from the next period, and renews once', async () => {
    const { cookie, id } = await payingOwner('upgrade', 5000);
    await choose(cookie, id, 'starter');
    // Ten days into a 30-day period.
    const start = new Date(Date.now() - 10 * DAY);
    const end = new Date(start.getTime() + 30 * DAY);
    await movePeriod(id, start, end);
    const quote = (await planOf(cookie, id)).quotes.find((q: { planId: string }) => q.planId === 'community');
    const expected = proratedCents(planById('starter')!, planById('community')!, start, end, new Date());
    expect(quote.kind).toBe('upgrade');
    // About two thirds of the $8.00 difference, rounded up to a cent.
    expect(Math.abs(quote.chargeCents - Math.ceil((800 * 20) / 30))).toBeLessThanOrEqual(1);
    const upgraded = (await choose(cookie, id, 'community')).result;
    expect(Math.abs(upgraded.balanceCents - (5000 - 499 - expected))).toBeLessThanOrEqual(1);
    expect(upgraded).toMatchObject({ planId: 'community', subscription: { planId: 'community', periodEnd: end.toISOString() } });
    expect(await serverRow(id)).toMatchObject({ maxPlayers: 100, memoryMb: 6144 });

    // A cheaper plan: nothing now, the current one runs to its end.
    const balance = upgraded.balanceCents as number;
    const down = (await choose(cookie, id, 'starter')).result;
    expect(down).toMatchObject({ planId: 'community', balanceCents: balance, subscription: { nextPlanId: 'starter' } });

    // The period ends (the API was down when it did): two runs at once renew it once, into Starter, the
    // new period following the old one.
    const ended = new Date(Date.now() - 10 * DAY);
    await movePeriod(id, new Date(ended.getTime() - 30 * DAY), ended);
    const subs = t.ctx.billing.subscriptions;
    const runs = await Promise.all([subs.runDue(), subs.runDue()]);
    expect(runs.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await subs.runDue()).toBe(0);
    const renewed = await planOf(cookie, id);
    expect(renewed).toMatchObject({
      planId: 'starter',
      balanceCents: balance - 499,
      subscription: { planId: 'starter', nextPlanId: null, periodStart: ended.toISOString(), periodEnd: addMonth(ended).toISOString() },
    });
    // Down for longer than a whole period: one month is charged, from now (nothing back-charged).
    await movePeriod(id, new Date(Date.now() - 90 * DAY), new Date(Date.now() - 60 * DAY));
    expect(await subs.runDue()).toBe(1);
    const late = await planOf(cookie, id);
    expect(late.balanceCents).toBe(balance - 2 * 499);
    expect(new Date(late.subscription.periodStart).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await serverRow(id)).toMatchObject({ planId: 'starter', maxPlayers: 35 });
    const rows = (await send('GET', '/v1/user/transactions', cookie)).json().result.entries as { kind: string }[];
    expect(rows.filter((r) => r.kind === 'renewal')).toHaveLength(2);
  });

  it('lapses to Free at the period end when renewal is off or the balance is too low, keeping the data; deletion waits for renewal to be off', async () => {
    const { cookie, id } = await payingOwner('lapse', 600);
    await choose(cookie, id, 'starter');
    // Deleting the server or the account while the plan renews is refused.
    expect((await send('DELETE', `/v1/server/${id}`, cookie)).json()).toMatchObject({ status: 'SUBSCRIPTION_ACTIVE' });
    // The refusal names the server whose plan renews and where to turn it off.
    const refused = (await send('POST', '/v1/user/delete', cookie, { password: 'long enough password' })).json();
    expect(refused.status).toBe('SUBSCRIPTION_ACTIVE');
    expect(refused.message).toContain(`${(await serverRow(id)).name} (its Upgrade page: /servers/${id}/upgrade)`);

    // The balance ($1.01) cannot pay the next month: it lapses.
    await movePeriod(id, new Date(Date.now() - 31 * DAY), new Date(Date.now() - 1000));
    expect(await t.ctx.billing.subscriptions.runDue()).toBe(1);
    expect(await planOf(cookie, id)).toMatchObject({ planId: 'free', subscription: null, balanceCents: 101 });
    expect(await serverRow(id)).toMatchObject({ planId: 'free', maxPlayers: 10, memoryMb: 1024 });
    expect((await send('GET', `/v1/server/${id}/files/list?path=/`, cookie)).json().status).toBe('SUCCESS');
    // Back on Free, server.properties says Free's 10 again (it said Starter's 35).
    await until(
      async () => (await send('GET', `/v1/server/${id}/files/content?path=/server.properties`, cookie)).json().result.content as string,
      (text) => /^max-players=10$/m.test(text),
    );

    // Renewal turned off: the plan runs to its end, then Free; deleting is allowed meanwhile.
    const other = await payingOwner('cancel', 1000);
    await choose(other.cookie, other.id, 'starter');
    const off = (await send('POST', `/v1/server/${other.id}/plan/renewal`, other.cookie, { renews: false })).json().result;
    expect(off).toMatchObject({ planId: 'starter', subscription: { renews: false } });
    await movePeriod(other.id, new Date(Date.now() - 31 * DAY), new Date(Date.now() - 1000));
    await t.ctx.billing.subscriptions.runDue();
    expect(await planOf(other.cookie, other.id)).toMatchObject({ planId: 'free', balanceCents: 501 });
    expect((await send('DELETE', `/v1/server/${other.id}`, other.cookie)).json().status).toBe('SUCCESS');
  });

  it("credits the referrer's balance with the commission in the same transaction as a referred account's purchase, once", async () => {
    const affiliate = await payingOwner('affil', 0);
    const code = (await send('GET', '/v1/user/referral', affiliate.cookie)).json().result.code as string;
    // A new account signs up through the affiliate's link, then buys a plan and renews it.
    const registered = await send('POST', '/v1/auth/register', undefined, {
      emailAddress: `referred-${Date.now()}@example.com`,
      password: 'long enough password',
      referral: code,
    });
    const cookie = registered.headers['set-cookie'] as string | string[];
    const buyerCookie = (Array.isArray(cookie) ? cookie : [cookie]).map((c) => c.split(';')[0]).join('; ');
    const userId = registered.json().result.userId as string;
    await t.ctx.database.db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
    t.ctx.sessions.forgetUser(userId);
    const server = (await send('POST', '/v1/server/create', buyerCookie, { serverName: uniqueServerName('refd') })).json().result
      .serverId as string;
    await send('PUT', '/v1/user/billing', buyerCookie, { name: 'Ref Erred', addressLine1: '2 Side St', city: 'Leeds', country: 'GB' });
    const payment = (await send('POST', '/v1/user/topups', buyerCookie, { amountCents: 2000, idempotencyKey: key() })).json().result;
    await send('POST', `/v1/payments/sandbox/${payment.paymentId}`, buyerCookie, { outcome: 'pay' });
    // A top-up earns nothing; a purchase does.
    expect((await send('GET', '/v1/user/referral', affiliate.cookie)).json().result).toMatchObject({ referredUsers: 1, earnedCents: 0 });
    const idempotencyKey = key();
    expect((await choose(buyerCookie, server, 'starter', idempotencyKey)).status).toBe('SUCCESS');
    await choose(buyerCookie, server, 'starter', idempotencyKey);
    // 20 % of $4.99, rounded down to a cent, once despite the replayed request.
    const after = (await send('GET', '/v1/user/referral', affiliate.cookie)).json().result;
    expect(after).toMatchObject({ commissionPercent: 20, earnedCents: 99, commissions: [{ amountCents: 99 }] });
    expect((await send('GET', '/v1/user/transactions', affiliate.cookie)).json().result).toMatchObject({
      balanceCents: 99,
      entries: [{ kind: 'commission', amountCents: 99, description: 'Commission: 20% of a purchase by an account you referred' }],
    });
    // A renewal is a purchase too.
    await movePeriod(server, new Date(Date.now() - 31 * DAY), new Date(Date.now() - 1000));
    await t.ctx.billing.subscriptions.runDue();
    expect((await send('GET', '/v1/user/referral', affiliate.cookie)).json().result.earnedCents).toBe(198);
  });

  it('sells icons for the account and backup slots and disk for the server, each once per purchase, with the limits at once', async () => {
    const { cookie, id } = await payingOwner('shop', 500);
    const buy = async (itemId: string, idempotencyKey = key()) =>
      (await send('POST', `/v1/server/${id}/shop`, cookie, { itemId, idempotencyKey })).json();
    const shop = (await send('GET', `/v1/server/${id}/shop`, cookie)).json().result;
    expect(shop).toMatchObject({ balanceCents: 500, backupLimit: 3, diskMb: 2048 });
    expect(await buy('golden-sword')).toMatchObject({ status: 'INVALID_INPUT', fields: { itemId: 'There is no such item in the shop.' } });

    // An icon: locked in Appearance until bought, then shown as the server's icon.
    const look = (await send('GET', `/v1/server/${id}/appearance`, cookie)).json().result;
    expect(look.shopIcons).toContainEqual({ itemId: 'icon-diamond', name: 'Diamond', owned: false, inUse: false });
    expect((await send('PUT', `/v1/server/${id}/appearance/shop-icon`, cookie, { itemId: 'icon-diamond' })).json()).toMatchObject({
      status: 'INVALID_STATE',
      message: "The Diamond icon is not unlocked: its owner buys it in the server's Shop.",
    });
    const idempotencyKey = key();
    const bought = await buy('icon-diamond', idempotencyKey);
    expect(bought.status, bought.message).toBe('SUCCESS');
    expect(bought.result.items.find((i: { id: string }) => i.id === 'icon-diamond')).toMatchObject({ owned: 1, max: 1 });
    expect((await buy('icon-diamond', idempotencyKey)).result.balanceCents).toBe(351);
    expect(await buy('icon-heart', idempotencyKey)).toMatchObject({ status: 'INVALID_INPUT' });
    expect(await buy('icon-diamond')).toMatchObject({ status: 'INVALID_STATE' });
    const shown = (await send('PUT', `/v1/server/${id}/appearance/shop-icon`, cookie, { itemId: 'icon-diamond' })).json();
    expect(shown.status, shown.message).toBe('SUCCESS');
    const png = Buffer.from((shown.result.icon as string).replace('data:image/png;base64,', ''), 'base64');
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([64, 64]);
    // Top-left is the icon's stone (#3a3f47); the middle its bright gem (#4fe3f0).
    expect([...data.subarray(0, 3)]).toEqual([0x3a, 0x3f, 0x47]);
    const middle = (28 * 64 + 36) * info.channels;
    expect([...data.subarray(middle, middle + 3)]).toEqual([0x4f, 0xe3, 0xf0]);
    // The page is told which icon is in use, so it says so instead of offering it again.
    expect(shown.result.shopIcons).toContainEqual({ itemId: 'icon-diamond', name: 'Diamond', owned: true, inUse: true });

    // A backup slot and disk: the server's limits grow at once, the node's quota with them.
    expect((await buy('backup-slot')).result).toMatchObject({ backupLimit: 4, balanceCents: 252 });
    expect((await send('GET', `/v1/server/${id}/backups`, cookie)).json().result.limit).toBe(4);
    expect((await buy('disk-5gb')).result).toMatchObject({ diskMb: 2048 + 5120, balanceCents: 53 });
    await until(
      async () => (await send('GET', `/v1/server/${id}/files/usage`, cookie)).json().result.quota as number,
      (quota) => quota === (2048 + 5120) * 1024 * 1024,
    );
    // Not enough left for another: refused, nothing written.
    expect(await buy('disk-5gb')).toMatchObject({ status: 'INSUFFICIENT_BALANCE' });
    const after = (await send('GET', `/v1/server/${id}/shop`, cookie)).json().result;
    expect(after).toMatchObject({ balanceCents: 53, diskMb: 2048 + 5120 });
    const log = (await send('GET', `/v1/server/${id}/activity`, cookie)).json().result.entries as { action: string; target: string }[];
    expect(log.filter((e) => e.action === 'shop.buy').map((e) => e.target)).toEqual([
      'disk-5gb',
      'backup-slot',
      'icon-diamond',
      'icon-diamond',
    ]);
  });

  it("refuses an administrator of the server (not its owner) the plan and the shop, and nobody else's server exists for them", async () => {
    const { id } = await payingOwner('owned', 1000);
    const adminCookie = await verifiedOwner(t, 'admin');
    const adminId = (await send('GET', '/v1/user/me', adminCookie)).json().result.userId as string;
    await t.ctx.database.db.insert(serverMembers).values({ serverId: id, userId: adminId, role: 'administrator' });
    t.ctx.game.directory.invalidate(adminId);
    for (const [method, url, body] of [
      ['GET', `/v1/server/${id}/plan`, undefined],
      ['POST', `/v1/server/${id}/plan`, { planId: 'starter', idempotencyKey: key() }],
      ['POST', `/v1/server/${id}/shop`, { itemId: 'backup-slot', idempotencyKey: key() }],
    ] as const)
      expect((await send(method, url, adminCookie, body)).json().status, url).toBe('NO_PERMISSION');
    const stranger = await verifiedOwner(t, 'stranger');
    expect((await send('POST', `/v1/server/${id}/shop`, stranger, { itemId: 'backup-slot', idempotencyKey: key() })).json().status).toBe(
      'NOT_FOUND',
    );
    expect(await serverRow(id)).toMatchObject({ planId: 'free', extraBackups: 0 });
  });

  it('writes neither the debit nor the item when the purchase fails between them', async () => {
    const { cookie, id } = await payingOwner('crash', 500);
    // The entitlement's insert fails (as a crash would, after the debit was written in the same transaction).
    await t.ctx.database.db.execute(sql`alter table entitlements add constraint test_no_heart check (item_id <> 'icon-heart')`);
    try {
      const failed = await send('POST', `/v1/server/${id}/shop`, cookie, { itemId: 'icon-heart', idempotencyKey: key() });
      expect(failed.statusCode).toBe(500);
    } finally {
      await t.ctx.database.db.execute(sql`alter table entitlements drop constraint test_no_heart`);
    }
    const after = (await send('GET', '/v1/user/transactions', cookie)).json().result;
    expect(after.balanceCents).toBe(500);
    expect(after.entries.map((e: { kind: string }) => e.kind)).toEqual(['topup']);
    expect(
      (await send('GET', `/v1/server/${id}/shop`, cookie)).json().result.items.find((i: { id: string }) => i.id === 'icon-heart').owned,
    ).toBe(0);
  });

  it('answers purchases at once and schedule saves on the same server without a 500, and logs every purchase', async () => {
    const { cookie, id } = await payingOwner('locks', 5000);
    const schedule = (i: number) => ({
      name: `Nightly ${i}`,
      cron: '0 4 1 1 *',
      timeZone: 'Europe/Berlin',
      action: { kind: 'backup', keep: 1 },
    });
    // Purchases lock the account, then the server; saving a schedule locks the server and writes a row that
    // names the account (docs/design.md, "Lock order"). On PostgreSQL this deadlocked into 500s.
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => send('POST', `/v1/server/${id}/shop`, cookie, { itemId: 'backup-slot', idempotencyKey: key() })),
      ...Array.from({ length: 6 }, (_, i) => send('POST', `/v1/server/${id}/schedules`, cookie, schedule(i))),
    ]);
    for (const answer of answers) expect(answer.json().status, answer.json().message).toBe('SUCCESS');
    const shop = (await send('GET', `/v1/server/${id}/shop`, cookie)).json().result;
    expect(shop).toMatchObject({ balanceCents: 5000 - 10 * 99, backupLimit: 3 + 10 });
    const entries: { action: string }[] = (await send('GET', `/v1/server/${id}/activity`, cookie)).json().result.entries;
    expect(entries.filter((e) => e.action === 'shop.buy')).toHaveLength(10);
  });

  it('gives a Starter server every value pricing promises: disk, memory, slots, backups, sleep, play time, servers at once', async () => {
    const { cookie, id } = await payingOwner('promise', 1000);
    const starter = planById('starter')!;
    const other = (await send('POST', '/v1/server/create', cookie, { serverName: uniqueServerName('promise2') })).json().result
      .serverId as string;
    const detailsOf = async (serverId: string) => (await send('GET', `/v1/server/${serverId}`, cookie)).json().result;
    // Free first: one server running at a time, 4 h of play time, sleeping after 5 minutes.
    expect(await detailsOf(id)).toMatchObject({ sleepsAfterMinutes: 5, playTime: { allowanceSeconds: 4 * 3600 } });
    expect((await choose(cookie, id, 'starter')).status).toBe('SUCCESS');
    const details = await detailsOf(id);
    expect(details).toMatchObject({
      playerSlots: starter.playerSlots,
      memoryLimit: starter.memoryMb,
      sleepsAfterMinutes: starter.idleStopMinutes,
      // No daily allowance on a paid plan: the account's servers are not counted any more.
      playTime: null,
    });
    expect((await send('GET', `/v1/server/${id}/files/usage`, cookie)).json().result.quota).toBe(starter.diskMb * 1024 * 1024);
    expect((await send('GET', `/v1/server/${id}/backups`, cookie)).json().result.limit).toBe(starter.backups);
    // Two of the account's servers run at once (Starter's 2; Free ran one).
    expect((await send('POST', `/v1/server/${id}/start`, cookie)).json().status).toBe('SUCCESS');
    expect((await send('POST', `/v1/server/${other}/start`, cookie)).json().status).toBe('SUCCESS');
    // Both come online together; then both are stopped, and seen stopped, so no game outlives the test.
    for (const serverId of [id, other]) {
      await until(
        async () => (await detailsOf(serverId)).state,
        (state) => state === 'online',
      );
      expect((await send('POST', `/v1/server/${serverId}/stop`, cookie)).json().status).toBe('SUCCESS');
    }
    for (const serverId of [id, other])
      await until(
        async () => (await detailsOf(serverId)).state,
        (state) => state === 'offline',
      );
  });

  it('raises the number of servers an account may own to what its best plan allows (Starter 3), and says the limit', async () => {
    const { cookie, id } = await payingOwner('owns', 1000);
    const create = async () => (await send('POST', '/v1/server/create', cookie, { serverName: uniqueServerName('own') })).json();
    expect((await create()).status).toBe('SUCCESS');
    // Free: two servers.
    expect(await create()).toMatchObject({ status: 'SERVER_LIMIT_REACHED', message: ownedServerLimitMessage(FREE_SERVER_LIMIT) });
    expect((await choose(cookie, id, 'starter')).status).toBe('SUCCESS');
    // Starter on one of them: three, and the list says which plan each is on (the create page reads it).
    expect((await create()).status).toBe('SUCCESS');
    expect(await create()).toMatchObject({ status: 'SERVER_LIMIT_REACHED', message: ownedServerLimitMessage(3) });
    const mine: { serverId: string; planId: string }[] = (await send('GET', '/v1/user/servers', cookie)).json().result;
    expect(mine.find((s) => s.serverId === id)?.planId).toBe('starter');
    expect(serverLimitOf(mine.map((s) => s.planId))).toBe(planById('starter')?.servers);
  });
});
