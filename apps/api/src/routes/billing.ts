import { CURRENCY, endpoints, TRANSACTIONS_PAGE, type LedgerEntry } from '@spawnpoint/contracts';
import { and, count, desc, eq, lte, sql } from 'drizzle-orm';
import type Stripe from 'stripe';
import type { Given } from '../context.ts';
import { billingInfoOf } from '../billing/ledger.ts';
import type { LedgerRow } from '../db/rows.ts';
import { StripeProvider, type PaymentEvent, type ReversalEvent } from '../billing/payments.ts';
import { billingProfiles, ledgerEntries, servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Route } from '../http/route.ts';
import { offeredPlans } from '../servers/plan-limits.ts';
import type { ServerRow } from '../db/rows.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'config' | 'database' | 'limit', never, 'limitsChanged' | 'payments' | 'shop' | 'subscriptions'>;

// Stripe's recommended window: a signed event older than this is refused (a replay of a captured one).
const WEBHOOK_TOLERANCE_SECONDS = 300;

/** Balance, billing information, transactions and receipts, top-ups and the payment providers' callbacks. */
export function billingRoutes(route: Route, ctx: Services): void {
  accountMoneyRoutes(route, ctx);
  serverMoneyRoutes(route, ctx);
  webhookRoutes(route, ctx);
}

/** Billing information, transactions, receipts and top-ups. */
function accountMoneyRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;
  const payments = ctx.billing.payments;

  route(endpoints.billingInfo, async ({ session }) => ({ billingInfo: await billingInfoOf(db, session.user.id) }));

  route(endpoints.billingInfoUpdate, async ({ session, body }) => {
    await db
      .insert(billingProfiles)
      .values({ userId: session.user.id, ...body })
      .onConflictDoUpdate({ target: billingProfiles.userId, set: { ...body, updatedAt: new Date() } });
    return { billingInfo: await billingInfoOf(db, session.user.id) };
  });

  /** The rows with the balance after each: the account's sum up to that row. */
  const withBalances = async (userId: string, rows: LedgerRow[]): Promise<LedgerEntry[]> => {
    const oldest = rows.at(-1);
    if (!oldest) return [];
    const [before] = await db
      .select({ sum: sql<string | null>`sum(${ledgerEntries.amountCents})` })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, userId), lte(ledgerEntries.seq, oldest.seq)));
    let balance = Number(before?.sum ?? 0);
    // Walked from the oldest row of the page up: each row's balance is the one before plus itself.
    const entries: LedgerEntry[] = [];
    for (const row of [...rows].reverse()) {
      if (row !== oldest) balance += row.amountCents;
      entries.push(entryOf(row, balance));
    }
    return entries.reverse();
  };

  route(endpoints.transactions, async ({ session, query }) => {
    const userId = session.user.id;
    const [rows, [total], balanceCents, pending] = await Promise.all([
      db
        .select()
        .from(ledgerEntries)
        .where(eq(ledgerEntries.userId, userId))
        .orderBy(desc(ledgerEntries.seq))
        .limit(TRANSACTIONS_PAGE)
        .offset((query.page - 1) * TRANSACTIONS_PAGE),
      db.select({ n: count() }).from(ledgerEntries).where(eq(ledgerEntries.userId, userId)),
      payments.balance(userId),
      payments.pendingOf(userId),
    ]);
    return {
      balanceCents,
      currency: CURRENCY,
      entries: await withBalances(userId, rows),
      page: query.page,
      pageSize: TRANSACTIONS_PAGE,
      total: total?.n ?? 0,
      pending,
    };
  });

  route(endpoints.receipt, async ({ session, params }) => {
    const [row] = await db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.id, params.entryId), eq(ledgerEntries.userId, session.user.id)))
      .limit(1);
    if (!row) throw new ApiError('NOT_FOUND');
    const [entry] = await withBalances(session.user.id, [row]);
    return {
      entry: entry!,
      receiptNumber: `SP-${String(row.seq).padStart(6, '0')}`,
      billedTo: row.billedTo,
      paymentReference: row.kind === 'topup' ? row.reference : null,
    };
  });

  route(endpoints.topupCreate, async ({ request, session, body }) => {
    await ctx.limit('topupPerAccount', request, session.user.id);
    return payments.start(session.user, body);
  });

  route(endpoints.topup, async ({ session, params }) => payments.view(session.user.id, params.paymentId));

  route(endpoints.sandboxCheckoutComplete, async ({ session, params, body }) =>
    payments.sandboxOutcome(session.user.id, params.paymentId, body.outcome),
  );
}

/** A server's plan and its shop. */
function serverMoneyRoutes(route: Route, ctx: Services): void {
  const { db } = ctx.database;

  const plansOf = ctx.billing.subscriptions;
  // The plans as this deployment runs them go with every answer (the Upgrade page compares them).
  const offered = offeredPlans(ctx.config);
  const view = async (server: ServerRow) => ({ ...(await plansOf.view(server)), plans: offered });
  route(endpoints.serverPlan, async ({ server }) => view(server));
  route(
    endpoints.serverPlanChoose,
    async ({ server, body }) => {
      await plansOf.choose(server, body.planId, body.idempotencyKey);
      const [row] = await db.select().from(servers).where(eq(servers.id, server.id)).limit(1);
      return view(row ?? server);
    },
    { activity: ({ body }) => ({ action: 'plan.choose', target: body.planId }) },
  );
  route(
    endpoints.serverPlanRenewal,
    async ({ server, body }) => {
      await plansOf.setRenewal(server.id, body.renews);
      return view(server);
    },
    { activity: ({ body, server }) => ({ action: body.renews ? 'plan.renew' : 'plan.cancel', target: server.planId }) },
  );

  const shop = ctx.billing.shop;
  route(endpoints.shop, async ({ server }) => shop.view(server));
  route(
    endpoints.shopBuy,
    async ({ server, body }) => {
      if (await shop.buy(server, body.itemId, body.idempotencyKey)) ctx.billing.limitsChanged(server.id);
      return shop.view(server);
    },
    { activity: ({ body }) => ({ action: 'shop.buy', target: body.itemId }) },
  );
}

/** The payment provider's signed callbacks. */
function webhookRoutes(route: Route, ctx: Services): void {
  const payments = ctx.billing.payments;

  // Stripe signs each delivery over the exact bytes; the event is believed only after that check.
  route(
    endpoints.stripeWebhook,
    async ({ request }) => {
      const provider = payments.provider;
      if (!(provider instanceof StripeProvider)) throw new ApiError('NOT_FOUND');
      const signature = request.headers['stripe-signature'];
      if (!Buffer.isBuffer(request.body) || typeof signature !== 'string')
        throw new ApiError('INVALID_INPUT', undefined, 'A Stripe webhook carries a JSON body and a Stripe-Signature header.');
      let event: Stripe.Event;
      try {
        event = provider.stripe.webhooks.constructEvent(
          request.body,
          signature,
          ctx.config.STRIPE_WEBHOOK_SECRET!,
          WEBHOOK_TOLERANCE_SECONDS,
        );
      } catch {
        throw new ApiError('INVALID_INPUT', undefined, 'The webhook signature is not valid (or the event is too old).');
      }
      const reversal = reversalEventOf(event);
      if (reversal) {
        const result = await payments.reverse(reversal);
        request.log.info({ eventId: event.id, type: event.type, result }, 'stripe webhook');
        return null;
      }
      const applied = paymentEventOf(event);
      if (!applied) return null;
      const result = await payments.apply(applied);
      request.log.info({ eventId: event.id, type: event.type, result }, 'stripe webhook');
      return null;
    },
    { rawBody: true },
  );
}

function entryOf(row: LedgerRow, balanceAfterCents: number): LedgerEntry {
  return {
    id: row.id,
    amountCents: row.amountCents,
    kind: row.kind,
    description: row.description,
    createdAt: row.createdAt.toISOString(),
    balanceAfterCents,
  };
}

/** The PaymentIntent a charge or dispute names (an id, or the expanded object). */
const intentOf = (value: string | { id: string } | null | undefined) => (typeof value === 'string' ? value : (value?.id ?? null));

/** A refund or a dispute of a top-up's money, or null for other events. */
function reversalEventOf(event: Stripe.Event): ReversalEvent | null {
  const base = { provider: 'stripe' as const, eventId: event.id, type: event.type };
  switch (event.type) {
    case 'charge.refunded': {
      const charge = event.data.object;
      const chargeRef = intentOf(charge.payment_intent);
      return chargeRef ? { ...base, chargeRef, reversal: { kind: 'refunded', refundedCents: charge.amount_refunded } } : null;
    }
    // When the money actually moves: an inquiry (a dispute that takes nothing) changes nothing, and a won
    // dispute gives back what was withdrawn.
    case 'charge.dispute.funds_withdrawn': {
      const dispute = event.data.object;
      const chargeRef = intentOf(dispute.payment_intent);
      return chargeRef ? { ...base, chargeRef, reversal: { kind: 'disputed', disputedCents: dispute.amount } } : null;
    }
    case 'charge.dispute.funds_reinstated': {
      const dispute = event.data.object;
      const chargeRef = intentOf(dispute.payment_intent);
      return chargeRef ? { ...base, chargeRef, reversal: { kind: 'dispute-won', disputedCents: dispute.amount } } : null;
    }
    default:
      return null;
  }
}

/** What a Stripe event means for a top-up, or null for events that change nothing here. */
function paymentEventOf(event: Stripe.Event): PaymentEvent | null {
  const base = { provider: 'stripe' as const, eventId: event.id, type: event.type };
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = event.data.object;
      // Completed but not paid yet (a bank debit): its async_payment_* event decides.
      if (session.payment_status !== 'paid') return null;
      const intent = typeof session.payment_intent === 'string' ? session.payment_intent : session.payment_intent?.id;
      return {
        ...base,
        providerRef: session.id,
        outcome: 'succeeded',
        ...(intent ? { chargeRef: intent } : {}),
        ...(session.amount_total !== null ? { amountCents: session.amount_total } : {}),
        ...(session.currency ? { currency: session.currency } : {}),
      };
    }
    case 'checkout.session.async_payment_failed':
      return { ...base, providerRef: event.data.object.id, outcome: 'declined' };
    case 'checkout.session.expired':
      return { ...base, providerRef: event.data.object.id, outcome: 'abandoned' };
    default:
      return null;
  }
}
