import { createServer, type IncomingMessage, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { eq, sql } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../../test-support/free-port.ts';
import { BALANCE_MAX_CENTS } from '@spawnpoint/contracts';
import { balanceCeilingMessage, balanceOf, lockAccount, post } from '../billing/ledger.ts';
import { ledgerEntries, payments } from '../db/schema.ts';
import { buildTestApp, requester, uniqueEmail, verifiedOwner, type Send, type TestApp } from '../test/build-test-app.ts';

const key = () => randomBytes(12).toString('hex');
const address = {
  name: 'Ada Lovelace',
  addressLine1: '12 Analytical Row',
  postalCode: 'NW1 4RY',
  city: 'London',
  country: 'gb',
  vatId: 'gb 123 456 789',
};

let t: TestApp & { cleanup: () => Promise<void> };
let send: Send;
beforeAll(async () => {
  t = await buildTestApp({ RATE_LIMIT_FACTOR: '5' });
  send = requester(t.app);
});
afterAll(async () => t.cleanup());

/** A verified account with billing information, its cookie and id. */
async function payer(prefix: string, withBilling = true): Promise<{ cookie: string; userId: string }> {
  const cookie = await verifiedOwner(t, prefix);
  const userId = (await send('GET', '/v1/user/me', cookie)).json().result.userId as string;
  if (withBilling) expect((await send('PUT', '/v1/user/billing', cookie, address)).json().status).toBe('SUCCESS');
  return { cookie, userId };
}

const transactions = async (cookie: string) => (await send('GET', '/v1/user/transactions', cookie)).json().result;

describe('billing information', () => {
  it('is asked for field by field, kept normalised, and replaced when changed', async () => {
    const cookie = await verifiedOwner(t, 'billinfo');
    expect((await send('GET', '/v1/user/billing', cookie)).json().result).toEqual({ billingInfo: null });
    const bad = (
      await send('PUT', '/v1/user/billing', cookie, { ...address, name: ' ', country: 'XX', city: 'Lon\u0007don', vatId: '12' })
    ).json();
    expect(bad).toMatchObject({
      status: 'INVALID_INPUT',
      fields: {
        name: 'Enter the name to bill.',
        country: 'Choose a country.',
        city: 'The city may not hold control characters.',
        vatId: 'A VAT number starts with its country code, like DE123456789.',
      },
    });
    expect((await send('GET', '/v1/user/billing', cookie)).json().result.billingInfo).toBeNull();
    const saved = (await send('PUT', '/v1/user/billing', cookie, address)).json().result.billingInfo;
    expect(saved).toEqual({ ...address, addressLine2: '', country: 'GB', vatId: 'GB123456789' });
    const changed = (await send('PUT', '/v1/user/billing', cookie, { ...address, city: 'Cambridge' })).json().result.billingInfo;
    expect(changed.city).toBe('Cambridge');
  });
});

describe('top-ups through the sandbox provider', () => {
  it('needs billing information first, and refuses amounts that are not whole cents within the limits, writing nothing', async () => {
    const { cookie } = await payer('nobill', false);
    expect((await send('POST', '/v1/user/topups', cookie, { amountCents: 1000, idempotencyKey: key() })).json()).toMatchObject({
      status: 'BILLING_INFO_REQUIRED',
      message: 'Please provide your billing information on the settings page.',
    });
    await send('PUT', '/v1/user/billing', cookie, address);
    for (const [amountCents, message] of [
      [499, 'A top-up is at least $5.'],
      [50_001, 'A top-up is at most $500.'],
      [12.5, 'The amount must be whole cents.'],
      [-1000, 'A top-up is at least $5.'],
      ['1000', 'The amount must be a number of cents.'],
    ] as const)
      expect(
        (await send('POST', '/v1/user/topups', cookie, { amountCents, idempotencyKey: key() })).json(),
        String(amountCents),
      ).toMatchObject({
        status: 'INVALID_INPUT',
        fields: { amountCents: message },
      });
    expect((await send('POST', '/v1/user/topups', cookie, { amountCents: 1000, idempotencyKey: 'short' })).json().status).toBe(
      'INVALID_INPUT',
    );
    expect(await transactions(cookie)).toMatchObject({ balanceCents: 0, entries: [], pending: [] });
  });

  it('credits a paid top-up once, from the provider not the browser; a replayed key answers the first answer; a declined one moves nothing', async () => {
    const { cookie } = await payer('topup');
    const idempotencyKey = key();
    const started = (await send('POST', '/v1/user/topups', cookie, { amountCents: 1500, idempotencyKey })).json();
    expect(started.status, started.message).toBe('SUCCESS');
    expect(started.result).toMatchObject({ provider: 'sandbox', amountCents: 1500, status: 'pending' });
    expect(started.result.checkoutUrl).toBe(`http://localhost:3000/checkout/sandbox/${started.result.paymentId}`);
    // A double click: the same payment, no second checkout.
    const again = (await send('POST', '/v1/user/topups', cookie, { amountCents: 1500, idempotencyKey })).json().result;
    expect(again.paymentId).toBe(started.result.paymentId);
    expect((await send('POST', '/v1/user/topups', cookie, { amountCents: 2500, idempotencyKey })).json()).toMatchObject({
      status: 'INVALID_INPUT',
      message: 'This idempotency key was used for another amount. Start a new top-up.',
    });
    // Coming back to the site credits nothing: only the provider's confirmation does.
    expect(await transactions(cookie)).toMatchObject({ balanceCents: 0, entries: [], pending: [{ paymentId: started.result.paymentId }] });

    const paid = (await send('POST', `/v1/payments/sandbox/${started.result.paymentId}`, cookie, { outcome: 'pay' })).json();
    expect(paid.result).toMatchObject({ status: 'succeeded', checkoutUrl: null });
    // Paying again (the page reloaded, a replay) changes nothing.
    await send('POST', `/v1/payments/sandbox/${started.result.paymentId}`, cookie, { outcome: 'pay' });
    await send('POST', `/v1/payments/sandbox/${started.result.paymentId}`, cookie, { outcome: 'abandon' });
    const after = await transactions(cookie);
    expect(after).toMatchObject({ balanceCents: 1500, total: 1, pending: [] });
    expect(after.entries).toEqual([
      expect.objectContaining({ amountCents: 1500, kind: 'topup', description: 'Top-up by card (sandbox)', balanceAfterCents: 1500 }),
    ]);

    const declined = (await send('POST', '/v1/user/topups', cookie, { amountCents: 1000, idempotencyKey: key() })).json().result;
    expect((await send('POST', `/v1/payments/sandbox/${declined.paymentId}`, cookie, { outcome: 'decline' })).json().result.status).toBe(
      'declined',
    );
    const left = (await send('POST', '/v1/user/topups', cookie, { amountCents: 700, idempotencyKey: key() })).json().result;
    await send('POST', `/v1/payments/sandbox/${left.paymentId}`, cookie, { outcome: 'abandon' });
    expect(await transactions(cookie)).toMatchObject({ balanceCents: 1500, total: 1, pending: [] });

    // The receipt: its number, the billing information as it was, the payment.
    const receipt = (await send('GET', `/v1/user/transactions/${after.entries[0].id}`, cookie)).json().result;
    expect(receipt).toMatchObject({
      receiptNumber: expect.stringMatching(/^SP-\d{6,}$/),
      billedTo: ['Ada Lovelace', '12 Analytical Row', 'NW1 4RY London', 'United Kingdom', 'VAT GB123456789'],
      paymentReference: started.result.paymentId,
      entry: { amountCents: 1500, balanceAfterCents: 1500 },
    });
    // Nobody else's payment or receipt.
    const other = await payer('other');
    expect((await send('GET', `/v1/user/transactions/${after.entries[0].id}`, other.cookie)).json().status).toBe('NOT_FOUND');
    expect((await send('POST', `/v1/payments/sandbox/${left.paymentId}`, other.cookie, { outcome: 'pay' })).json().status).toBe(
      'NOT_FOUND',
    );
    expect((await send('GET', `/v1/user/topups/${left.paymentId}`, other.cookie)).json().status).toBe('NOT_FOUND');
  });
});

describe('the balance ceiling', () => {
  it('refuses a top-up that would pass it before anyone pays (open checkouts count); a payment once confirmed always lands', async () => {
    const { cookie, userId } = await payer('ceiling');
    const credit = (amountCents: number, kind: 'topup' | 'commission') =>
      t.ctx.database.db.transaction(async (tx) => {
        await lockAccount(tx, userId);
        await post(tx, { userId, amountCents, kind, reference: 'test', description: kind });
      });
    await credit(BALANCE_MAX_CENTS - 55_000, 'topup');
    const topup = (amountCents: number) => send('POST', '/v1/user/topups', cookie, { amountCents, idempotencyKey: key() });
    const open = (await topup(50_000)).json();
    expect(open.result).toMatchObject({ status: 'pending', amountCents: 50_000 });
    // $50 left under the ceiling once the open checkout is paid: $100 more is refused.
    expect((await topup(10_000)).json()).toMatchObject({
      status: 'INVALID_INPUT',
      fields: { amountCents: `A balance holds at most $${BALANCE_MAX_CENTS / 100}.` },
    });
    // The balance grows meanwhile (a commission), then the provider confirms the open payment: the money the
    // payer paid is credited even though it passes the ceiling now (it was refused forever before).
    await credit(20_000, 'commission');
    const paid = (await send('POST', `/v1/payments/sandbox/${open.result.paymentId}`, cookie, { outcome: 'pay' })).json();
    expect(paid.result.status).toBe('succeeded');
    expect((await transactions(cookie)).balanceCents).toBe(BALANCE_MAX_CENTS + 15_000);
  });

  it('counts an abandoned top-up, which can still be paid, until it expires', async () => {
    const { cookie, userId } = await payer('abandoner');
    await t.ctx.database.db.transaction(async (tx) => {
      await lockAccount(tx, userId);
      await post(tx, { userId, amountCents: BALANCE_MAX_CENTS - 60_000, kind: 'topup', reference: 'test', description: 'topup' });
    });
    const topup = (amountCents: number) => send('POST', '/v1/user/topups', cookie, { amountCents, idempotencyKey: key() });
    const first = (await topup(50_000)).json().result;
    await send('POST', `/v1/payments/sandbox/${first.paymentId}`, cookie, { outcome: 'abandon' });
    // Abandoned, it is still payable: another $500 would let the two together pass the ceiling.
    expect((await topup(50_000)).json()).toMatchObject({ status: 'INVALID_INPUT', fields: { amountCents: balanceCeilingMessage } });
    expect((await send('POST', `/v1/payments/sandbox/${first.paymentId}`, cookie, { outcome: 'pay' })).json().result.status).toBe(
      'succeeded',
    );
    expect((await transactions(cookie)).balanceCents).toBe(BALANCE_MAX_CENTS - 10_000);
    // A day later nothing of it can be paid: it no longer counts.
    const second = (await topup(10_000)).json().result;
    await send('POST', `/v1/payments/sandbox/${second.paymentId}`, cookie, { outcome: 'abandon' });
    await t.ctx.database.db
      .update(payments)
      .set({ createdAt: new Date(Date.now() - 86_400_000 - 1000) })
      .where(eq(payments.id, second.paymentId));
    expect((await topup(10_000)).json().result).toMatchObject({ status: 'pending' });
  });

  it('keeps the provider’s credit apart from every key a customer may send', async () => {
    const { cookie, userId } = await payer('keyspace');
    const open = (await send('POST', '/v1/user/topups', cookie, { amountCents: 1000, idempotencyKey: key() })).json().result;
    // A shop purchase or any posting with the key the credit used to take ("payment-<id>") does not stop it.
    await t.ctx.database.db.transaction(async (tx) => {
      await lockAccount(tx, userId);
      await post(tx, {
        userId,
        amountCents: 0,
        kind: 'adjustment',
        reference: 'test',
        description: 'a customer key',
        idempotencyKey: `payment-${open.paymentId}`,
      });
    });
    await send('POST', `/v1/payments/sandbox/${open.paymentId}`, cookie, { outcome: 'pay' });
    expect((await transactions(cookie)).balanceCents).toBe(1000);
  });
});

describe('the ledger', () => {
  it('lets exactly one of 50 concurrent purchases through when the balance covers one, and never goes below zero', async () => {
    const { userId } = await payer('race');
    const db = t.ctx.database.db;
    await db.transaction(async (tx) => {
      await lockAccount(tx, userId);
      await post(tx, { userId, amountCents: 499, kind: 'adjustment', reference: 'test', description: 'Credit for the test' });
    });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        db.transaction(async (tx) => {
          await lockAccount(tx, userId);
          return post(tx, { userId, amountCents: -499, kind: 'plan', reference: `try-${i}`, description: 'Starter for a month' });
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(refused).toHaveLength(49);
    for (const r of refused) expect(r.reason).toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(await balanceOf(db, userId)).toBe(0);
  });

  it('answers a replayed idempotency key with its first row and moves no money', async () => {
    const { userId } = await payer('replay');
    const db = t.ctx.database.db;
    const once = () =>
      db.transaction(async (tx) => {
        await lockAccount(tx, userId);
        return post(tx, {
          userId,
          amountCents: 800,
          kind: 'adjustment',
          reference: 'r',
          description: 'Goodwill',
          idempotencyKey: 'same-key-0123456789',
        });
      });
    const first = await once();
    const second = await once();
    expect(second).toEqual({ row: first.row, replayed: true });
    expect(await balanceOf(db, userId)).toBe(800);
  });

  it('is append-only: the database refuses to change or delete a row', async () => {
    const { cookie, userId } = await payer('append');
    const db = t.ctx.database.db;
    await db.transaction(async (tx) => {
      await lockAccount(tx, userId);
      await post(tx, { userId, amountCents: 100, kind: 'adjustment', reference: 'a', description: 'Row' });
    });
    await expect(db.update(ledgerEntries).set({ amountCents: 1_000_000 }).where(eq(ledgerEntries.userId, userId))).rejects.toThrow();
    await expect(db.delete(ledgerEntries).where(eq(ledgerEntries.userId, userId))).rejects.toThrow();
    expect((await transactions(cookie)).balanceCents).toBe(100);
  });

  // A model of the account beside the real ledger: whatever the order of top-ups, purchases, refunds and
  // renewals, the balance is the sum of the rows, never negative, and a refused debit writes nothing.
  it('keeps balance = sum of rows ≥ 0 through any sequence of top-ups, purchases, refunds and renewals', async () => {
    const db = t.ctx.database.db;
    const op = fc.oneof(
      fc.record({ kind: fc.constant('topup' as const), cents: fc.integer({ min: 1, max: 5000 }) }),
      fc.record({ kind: fc.constant('plan' as const), cents: fc.integer({ min: 1, max: 5000 }) }),
      fc.record({ kind: fc.constant('renewal' as const), cents: fc.integer({ min: 1, max: 5000 }) }),
      fc.record({ kind: fc.constant('refund' as const), cents: fc.integer({ min: 1, max: 5000 }) }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 12 }), async (ops) => {
        const userId = (
          await send('POST', '/v1/auth/register', undefined, {
            emailAddress: uniqueEmail(`prop${++run}`),
            password: 'long enough password',
          })
        ).json().result.userId as string;
        let model = 0;
        for (const o of ops) {
          const amountCents = o.kind === 'topup' || o.kind === 'refund' ? o.cents : -o.cents;
          const result = await db
            .transaction(async (tx) => {
              await lockAccount(tx, userId);
              return post(tx, { userId, amountCents, kind: o.kind, reference: 'prop', description: o.kind });
            })
            .then(
              () => 'ok' as const,
              (err: { code?: string }) => err.code,
            );
          if (model + amountCents < 0) expect(result).toBe('INSUFFICIENT_BALANCE');
          else {
            expect(result).toBe('ok');
            model += amountCents;
          }
          const [sum] = await db
            .select({ s: sql<string | null>`sum(${ledgerEntries.amountCents})` })
            .from(ledgerEntries)
            .where(eq(ledgerEntries.userId, userId));
          const balance = await balanceOf(db, userId);
          expect(balance).toBe(Number(sum?.s ?? 0));
          expect(balance).toBe(model);
          expect(balance).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 15 },
    );
  });
});

describe('top-ups through Stripe', () => {
  // Stripe is a third party this machine cannot reach: the real `stripe` client talks to a local server that
  // answers Checkout Session creation in Stripe's documented shape, and webhooks are signed with the
  // package's own test-header helper.
  const secret = 'whsec_test_spawnpoint';
  let stripeApi: Server;
  let s: TestApp & { cleanup: () => Promise<void> };
  let sendS: Send;
  const created: { body: URLSearchParams; idempotencyKey: string | undefined }[] = [];
  const signer = new Stripe('sk_test_signer');

  beforeAll(async () => {
    const port = await freePort();
    let n = 0;
    stripeApi = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
          const params = new URLSearchParams(body);
          created.push({ body: params, idempotencyKey: req.headers['idempotency-key'] as string | undefined });
          const id = `cs_test_${++n}`;
          res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${n}` });
          res.end(
            JSON.stringify({
              id,
              object: 'checkout.session',
              url: `https://checkout.stripe.com/c/pay/${id}`,
              amount_total: Number(params.get('line_items[0][price_data][unit_amount]')),
              currency: params.get('line_items[0][price_data][currency]'),
              payment_status: 'unpaid',
              status: 'open',
              client_reference_id: params.get('client_reference_id'),
            }),
          );
          return;
        }
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } }));
      });
    });
    await new Promise<void>((resolve) => stripeApi.listen(port, '127.0.0.1', resolve));
    s = await buildTestApp({
      PAYMENT_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_spawnpoint',
      STRIPE_WEBHOOK_SECRET: secret,
      STRIPE_API_URL: `http://127.0.0.1:${port}`,
      RATE_LIMIT_FACTOR: '5',
    });
    sendS = requester(s.app);
  });
  afterAll(async () => {
    await s.cleanup();
    await new Promise((resolve) => stripeApi.close(resolve));
  });

  const event = (id: string, type: string, session: Record<string, unknown>) =>
    JSON.stringify({
      id,
      object: 'event',
      type,
      api_version: '2025-01-27',
      created: Math.floor(Date.now() / 1000),
      data: { object: session },
    });
  const deliver = (payload: string, header = signer.webhooks.generateTestHeaderString({ payload, secret })) =>
    s.app.inject({
      method: 'POST',
      url: '/v1/payments/stripe/webhook',
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
      payload,
    });

  it('makes a Checkout Session and credits the balance from the signed webhook, once, whatever is replayed or forged', async () => {
    const cookie = await verifiedOwner(s, 'stripe');
    await sendS('PUT', '/v1/user/billing', cookie, address);
    const started = (await sendS('POST', '/v1/user/topups', cookie, { amountCents: 2500, idempotencyKey: key() })).json().result;
    expect(started).toMatchObject({ provider: 'stripe', status: 'pending', checkoutUrl: 'https://checkout.stripe.com/c/pay/cs_test_1' });
    const request = created.at(-1)!;
    expect(request.body.get('mode')).toBe('payment');
    expect(request.body.get('line_items[0][price_data][unit_amount]')).toBe('2500');
    expect(request.body.get('line_items[0][price_data][currency]')).toBe('usd');
    expect(request.body.get('client_reference_id')).toBe(started.paymentId);
    expect(request.idempotencyKey).toBe(`topup-${started.paymentId}`);
    const session = { id: 'cs_test_1', object: 'checkout.session', amount_total: 2500, currency: 'usd', payment_status: 'paid' };
    const balance = async () => (await sendS('GET', '/v1/user/transactions', cookie)).json().result.balanceCents as number;

    // Forged: signed with another secret, a body changed after signing, no signature, and a genuine one too old.
    const paidEvent = event('evt_1', 'checkout.session.completed', session);
    const forged = await deliver(paidEvent, signer.webhooks.generateTestHeaderString({ payload: paidEvent, secret: 'whsec_wrong' }));
    expect(forged.statusCode).toBe(400);
    expect(forged.json()).toMatchObject({
      status: 'INVALID_INPUT',
      message: 'The webhook signature is not valid (or the event is too old).',
    });
    const tampered = paidEvent.replace('2500', '250000');
    expect((await deliver(tampered, signer.webhooks.generateTestHeaderString({ payload: paidEvent, secret }))).statusCode).toBe(400);
    expect(
      (
        await s.app.inject({
          method: 'POST',
          url: '/v1/payments/stripe/webhook',
          headers: { 'content-type': 'application/json' },
          payload: paidEvent,
        })
      ).statusCode,
    ).toBe(400);
    const late = signer.webhooks.generateTestHeaderString({ payload: paidEvent, secret, timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect((await deliver(paidEvent, late)).statusCode).toBe(400);
    expect(await balance()).toBe(0);

    // Genuine: credited; the same event again, and another event for the same session, credit nothing more.
    expect((await deliver(paidEvent)).json().status).toBe('SUCCESS');
    expect(await balance()).toBe(2500);
    expect((await deliver(paidEvent)).json().status).toBe('SUCCESS');
    expect((await deliver(event('evt_2', 'checkout.session.async_payment_succeeded', session))).json().status).toBe('SUCCESS');
    // Out of order: the session's expiry arriving after its payment changes nothing.
    await deliver(event('evt_3', 'checkout.session.expired', { ...session, payment_status: 'unpaid', status: 'expired' }));
    expect(await balance()).toBe(2500);
    expect((await sendS('GET', `/v1/user/topups/${started.paymentId}`, cookie)).json().result.status).toBe('succeeded');

    // A completion that names another amount than the payment's credits nothing.
    const second = (await sendS('POST', '/v1/user/topups', cookie, { amountCents: 1000, idempotencyKey: key() })).json().result;
    await deliver(event('evt_4', 'checkout.session.completed', { ...session, id: 'cs_test_2', amount_total: 100_000 }));
    expect(await balance()).toBe(2500);
    // Its expiry: abandoned, nothing credited.
    await deliver(event('evt_5', 'checkout.session.expired', { ...session, id: 'cs_test_2', payment_status: 'unpaid' }));
    expect((await sendS('GET', `/v1/user/topups/${second.paymentId}`, cookie)).json().result.status).toBe('abandoned');
    // The sandbox's page does not exist where Stripe takes payments.
    expect((await sendS('POST', `/v1/payments/sandbox/${second.paymentId}`, cookie, { outcome: 'pay' })).json().status).toBe('NOT_FOUND');
  });

  it('takes a refunded or disputed top-up back from the balance (below zero if it was spent), once, and gives a won dispute back', async () => {
    const cookie = await verifiedOwner(s, 'reversal');
    await sendS('PUT', '/v1/user/billing', cookie, address);
    const userId = (await sendS('GET', '/v1/user/me', cookie)).json().result.userId as string;
    const transactions = async () => (await sendS('GET', '/v1/user/transactions', cookie)).json().result;
    const paid = async (amountCents: number, intent: string) => {
      const started = (await sendS('POST', '/v1/user/topups', cookie, { amountCents, idempotencyKey: key() })).json().result;
      const id = (started.checkoutUrl as string).split('/').at(-1) as string;
      const session = {
        id,
        object: 'checkout.session',
        amount_total: amountCents,
        currency: 'usd',
        payment_status: 'paid',
        payment_intent: intent,
      };
      expect((await deliver(event(`evt_paid_${intent}`, 'checkout.session.completed', session))).json().status).toBe('SUCCESS');
    };
    await paid(2500, 'pi_refunded');
    // $20 of it spent meanwhile (a purchase).
    await s.ctx.database.db.transaction(async (tx) => {
      await lockAccount(tx, userId);
      await post(tx, { userId, amountCents: -2000, kind: 'shop', reference: 'test', description: 'A purchase' });
    });
    expect((await transactions()).balanceCents).toBe(500);

    // $10 refunded in Stripe's dashboard: debited; the same event again, or another saying the same total, takes nothing more.
    const charge = (id: string, refunded: number) =>
      event(id, 'charge.refunded', {
        id: 'ch_1',
        object: 'charge',
        payment_intent: 'pi_refunded',
        amount: 2500,
        amount_refunded: refunded,
      });
    expect((await deliver(charge('evt_r1', 1000))).json().status).toBe('SUCCESS');
    expect((await deliver(charge('evt_r1', 1000))).json().status).toBe('SUCCESS');
    expect((await deliver(charge('evt_r2', 1000))).json().status).toBe('SUCCESS');
    expect((await transactions()).balanceCents).toBe(-500);
    // Then the rest: the account owes what it spent of money it no longer paid.
    await deliver(charge('evt_r3', 2500));
    expect((await transactions()).balanceCents).toBe(-2000);
    await deliver(charge('evt_r4', 9999));
    expect((await transactions()).balanceCents).toBe(-2000);
    // A refund naming money we never recorded changes nothing (and is logged for the operator).
    await deliver(
      event('evt_r5', 'charge.refunded', { id: 'ch_x', object: 'charge', payment_intent: 'pi_unknown', amount: 500, amount_refunded: 500 }),
    );
    expect((await transactions()).balanceCents).toBe(-2000);
    // Owing, it buys nothing.
    await expect(
      s.ctx.database.db.transaction(async (tx) => {
        await lockAccount(tx, userId);
        await post(tx, { userId, amountCents: -100, kind: 'shop', reference: 'test', description: 'Another purchase' });
      }),
    ).rejects.toThrow();

    // A card holder disputes another top-up: withdrawn at once; the dispute won, credited again.
    await paid(1000, 'pi_disputed');
    expect((await transactions()).balanceCents).toBe(-1000);
    const dispute = (id: string, type: string, status: string) =>
      event(id, type, { id: 'dp_1', object: 'dispute', payment_intent: 'pi_disputed', amount: 1000, status });
    // An inquiry takes nothing; the funds withdrawn do (once), and come back when reinstated.
    await deliver(dispute('evt_d0', 'charge.dispute.created', 'warning_needs_response'));
    expect((await transactions()).balanceCents).toBe(-1000);
    await deliver(dispute('evt_d1', 'charge.dispute.funds_withdrawn', 'needs_response'));
    await deliver(dispute('evt_d1', 'charge.dispute.funds_withdrawn', 'needs_response'));
    expect((await transactions()).balanceCents).toBe(-2000);
    await deliver(dispute('evt_d2', 'charge.dispute.funds_reinstated', 'won'));
    const after = await transactions();
    expect(after.balanceCents).toBe(-1000);
    expect(after.entries.slice(0, 5).map((e: { description: string; amountCents: number }) => [e.description, e.amountCents])).toEqual([
      ['Dispute won: top-up credited again (Stripe)', 1000],
      ['Top-up disputed by the card holder (Stripe)', -1000],
      ['Top-up by card (Stripe)', 1000],
      ['Top-up refunded (Stripe)', -1500],
      ['Top-up refunded (Stripe)', -1000],
    ]);
  });
});
