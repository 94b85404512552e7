import { BALANCE_MAX_CENTS, CURRENCY, formatPrice, type PaymentStatus, type PaymentView, type TopupRequest } from '@spawnpoint/contracts';
import { and, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import Stripe from 'stripe';
import { newId } from '../auth/tokens.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import { ledgerEntries, paymentEvents, payments } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { balanceCeilingMessage, balanceOf, lockAccount, post, requireBillingInfo, type Tx } from './ledger.ts';

type PaymentRow = typeof payments.$inferSelect;

/** Where the payer pays: a checkout page of the provider, for one pending payment. */
export interface Checkout {
  url: string;
  /** The provider's id of it (a Stripe Checkout Session), so its webhook finds the payment. */
  providerRef: string;
}

/** A payment provider behind one interface: it makes checkout pages; its confirmations come back as events. */
export interface PaymentProvider {
  readonly name: 'sandbox' | 'stripe';
  createCheckout(payment: { id: string; amountCents: number; emailAddress: string }): Promise<Checkout>;
}

/** The embedded provider: its checkout page is a page of the web app (/checkout/sandbox/:paymentId). */
export class SandboxProvider implements PaymentProvider {
  readonly name = 'sandbox' as const;
  constructor(private publicUrl: string) {}
  createCheckout(payment: { id: string }): Promise<Checkout> {
    return Promise.resolve({ url: `${this.publicUrl}/checkout/sandbox/${payment.id}`, providerRef: `sandbox_${payment.id}` });
  }
}

/** Stripe Checkout, through the `stripe` package; the top-up is credited from the webhook only. */
export class StripeProvider implements PaymentProvider {
  readonly name = 'stripe' as const;
  readonly stripe: Stripe;
  constructor(
    private config: Config,
    secretKey: string,
  ) {
    const api = config.STRIPE_API_URL ? new URL(config.STRIPE_API_URL) : null;
    this.stripe = new Stripe(secretKey, {
      maxNetworkRetries: 2,
      timeout: 20_000,
      telemetry: false,
      ...(api
        ? {
            host: api.hostname,
            port: api.port || (api.protocol === 'https:' ? 443 : 80),
            protocol: api.protocol === 'http:' ? 'http' : 'https',
          }
        : {}),
    });
  }

  async createCheckout(payment: { id: string; amountCents: number; emailAddress: string }): Promise<Checkout> {
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: 'payment',
        customer_email: payment.emailAddress,
        client_reference_id: payment.id,
        metadata: { paymentId: payment.id },
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: CURRENCY.toLowerCase(),
              unit_amount: payment.amountCents,
              product_data: { name: `Spawnpoint balance top-up (${formatPrice(payment.amountCents)})` },
            },
          },
        ],
        success_url: `${this.config.publicUrl}/account/billing?topup=${payment.id}`,
        cancel_url: `${this.config.publicUrl}/account/billing?topup=${payment.id}`,
      },
      // Stripe's own idempotency: a retried create makes one session.
      { idempotencyKey: `topup-${payment.id}` },
    );
    if (!session.url) throw new ApiError('TEMPORARILY_DISABLED', undefined, 'Stripe gave no checkout page. Try again in a minute.');
    return { url: session.url, providerRef: session.id };
  }
}

export function providerFor(config: Config): PaymentProvider | null {
  if (config.paymentProvider === 'sandbox') return new SandboxProvider(config.publicUrl);
  if (config.paymentProvider === 'stripe') return new StripeProvider(config, config.STRIPE_SECRET_KEY!);
  return null;
}

export function paymentViewOf(row: PaymentRow): PaymentView {
  return {
    paymentId: row.id,
    provider: row.provider,
    amountCents: row.amountCents,
    status: row.status,
    checkoutUrl: row.status === 'pending' ? row.checkoutUrl : null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** A provider's confirmation of one payment, as the webhook (or the sandbox page) reports it. */
export interface PaymentEvent {
  provider: 'sandbox' | 'stripe';
  eventId: string;
  type: string;
  /** The payment the event is about: ours, or the provider's reference of it. */
  paymentId?: string;
  providerRef?: string;
  outcome: 'succeeded' | 'declined' | 'abandoned';
  /** What the provider says was paid (checked against the payment before anything is credited). */
  amountCents?: number;
  currency?: string;
  /** The provider's id of the money taken (a PaymentIntent), kept so its refunds and disputes find the payment. */
  chargeRef?: string;
}

/**
 * The provider gave money back or had it taken back: a refund (`refundedCents`: the total refunded so far),
 * a dispute opened (`disputedCents` withdrawn) or a dispute won (the withdrawn money reinstated).
 */
export interface ReversalEvent {
  provider: 'stripe';
  eventId: string;
  type: string;
  chargeRef: string;
  reversal:
    | { kind: 'refunded'; refundedCents: number }
    | { kind: 'disputed'; disputedCents: number }
    | { kind: 'dispute-won'; disputedCents: number };
}

/**
 * Records a provider event by its id in the caller's transaction; false when it was recorded before (a
 * re-delivery), so its effect, written in the same transaction, happens once.
 */
async function firstSeen(tx: Tx, event: { provider: 'sandbox' | 'stripe'; eventId: string; type: string }): Promise<boolean> {
  const recorded = await tx
    .insert(paymentEvents)
    .values({ provider: event.provider, eventId: event.eventId, type: event.type })
    .onConflictDoNothing()
    .returning({ id: paymentEvents.eventId });
  return recorded.length > 0;
}

/**
 * Top-ups: started by the payer (a pending payment with the provider's checkout page), finished by the
 * provider's events. Each event is recorded by id in the same transaction as its effect, so a re-delivered
 * event changes nothing; the credit's idempotency key is the payment's own id, so two different events
 * confirming one payment credit it once; a late "expired" after a success changes nothing (a finished
 * payment keeps its state).
 */
export class Payments {
  constructor(
    private db: Db,
    readonly provider: PaymentProvider | null,
    private log: FastifyBaseLogger,
  ) {}

  async start(user: { id: string; emailAddress: string }, request: TopupRequest): Promise<PaymentView> {
    if (!this.provider) throw new ApiError('TEMPORARILY_DISABLED', undefined, 'Top-ups are not available on this service right now.');
    // The same key again: the first answer, whatever it was.
    const earlier = await this.byKey(user.id, request.idempotencyKey);
    if (earlier) {
      if (earlier.amountCents !== request.amountCents)
        throw new ApiError('INVALID_INPUT', undefined, 'This idempotency key was used for another amount. Start a new top-up.');
      return paymentViewOf(earlier);
    }
    await requireBillingInfo(this.db, user.id);
    const id = newId();
    const provider = this.provider.name;
    const [row] = await this.db.transaction(async (tx) => {
      // The ceiling counts the balance and the top-ups that can still be paid (a checkout lives a day at most), under the
      // account's lock so two tabs cannot both pass it. It is checked here, before anyone pays: once the
      // provider confirms a payment, its money always lands.
      await lockAccount(tx, user.id);
      // The same key sent twice at once: the second waited here and answers the first's payment.
      const [same] = await tx
        .select({ id: payments.id })
        .from(payments)
        .where(and(eq(payments.userId, user.id), eq(payments.idempotencyKey, request.idempotencyKey)))
        .limit(1);
      if (same) return [];
      const [open] = await tx
        .select({ sum: sql<string | null>`sum(${payments.amountCents})` })
        .from(payments)
        .where(
          and(
            eq(payments.userId, user.id),
            // An abandoned checkout can still be paid (the provider's success is credited whatever came before),
            // so it counts until it cannot: a checkout lives a day at most.
            inArray(payments.status, ['pending', 'abandoned']),
            gt(payments.createdAt, new Date(Date.now() - 86_400_000)),
          ),
        );
      if ((await balanceOf(tx, user.id)) + Number(open?.sum ?? 0) + request.amountCents > BALANCE_MAX_CENTS)
        throw new ApiError('INVALID_INPUT', { amountCents: balanceCeilingMessage }, balanceCeilingMessage);
      return tx
        .insert(payments)
        .values({
          id,
          userId: user.id,
          provider,
          amountCents: request.amountCents,
          currency: CURRENCY,
          idempotencyKey: request.idempotencyKey,
        })
        .onConflictDoNothing()
        .returning();
    });
    // Two requests with one key at once: the other made the row; answer it.
    if (!row) {
      const other = await this.byKey(user.id, request.idempotencyKey);
      if (!other) throw new ApiError('INTERNAL_ERROR');
      return paymentViewOf(other);
    }
    let checkout: Checkout;
    try {
      checkout = await this.provider.createCheckout({ id, amountCents: request.amountCents, emailAddress: user.emailAddress });
    } catch (err) {
      await this.db.update(payments).set({ status: 'abandoned', completedAt: new Date() }).where(eq(payments.id, id));
      if (err instanceof ApiError) throw err;
      this.log.error({ err, paymentId: id }, 'the payment provider refused a checkout');
      throw new ApiError('TEMPORARILY_DISABLED', undefined, 'The payment provider cannot be reached right now. Try again in a minute.');
    }
    const [updated] = await this.db
      .update(payments)
      .set({ checkoutUrl: checkout.url, providerRef: checkout.providerRef })
      .where(eq(payments.id, id))
      .returning();
    return paymentViewOf(updated!);
  }

  private async byKey(userId: string, idempotencyKey: string): Promise<PaymentRow | null> {
    const [row] = await this.db
      .select()
      .from(payments)
      .where(and(eq(payments.userId, userId), eq(payments.idempotencyKey, idempotencyKey)))
      .limit(1);
    return row ?? null;
  }

  async view(userId: string, paymentId: string): Promise<PaymentView> {
    const [row] = await this.db
      .select()
      .from(payments)
      .where(and(eq(payments.id, paymentId), eq(payments.userId, userId)))
      .limit(1);
    if (!row) throw new ApiError('NOT_FOUND');
    return paymentViewOf(row);
  }

  async pendingOf(userId: string): Promise<PaymentView[]> {
    const rows = await this.db
      .select()
      .from(payments)
      .where(and(eq(payments.userId, userId), eq(payments.status, 'pending')))
      .orderBy(desc(payments.createdAt))
      .limit(10);
    return rows.filter((r) => r.checkoutUrl !== null).map(paymentViewOf);
  }

  /**
   * Applies one provider event. Answers what happened, for the log: `duplicate` (seen before), `unknown`
   * (no such payment), `mismatch` (an amount or currency other than the payment's: nothing credited),
   * or the payment's state after it.
   */
  async apply(event: PaymentEvent): Promise<'duplicate' | 'unknown' | 'mismatch' | PaymentStatus> {
    return this.db.transaction(async (tx) => {
      if (!(await firstSeen(tx, event))) return 'duplicate';
      const match = event.paymentId
        ? and(eq(payments.id, event.paymentId), eq(payments.provider, event.provider))
        : and(eq(payments.providerRef, event.providerRef ?? ''), eq(payments.provider, event.provider));
      const [found] = await tx.select({ userId: payments.userId }).from(payments).where(match).limit(1);
      if (!found) return 'unknown';
      // The account first, then the payment: the same order as every other balance change.
      await lockAccount(tx, found.userId);
      const [payment] = await tx.select().from(payments).where(match).for('update');
      if (!payment) return 'unknown';
      if (payment.status !== 'pending' && !(payment.status === 'abandoned' && event.outcome === 'succeeded')) return payment.status;
      if (event.outcome !== 'succeeded') {
        await tx.update(payments).set({ status: event.outcome, completedAt: new Date() }).where(eq(payments.id, payment.id));
        return event.outcome;
      }
      if (
        (event.amountCents !== undefined && event.amountCents !== payment.amountCents) ||
        (event.currency !== undefined && event.currency.toUpperCase() !== payment.currency)
      ) {
        this.log.error({ paymentId: payment.id, event }, 'a payment confirmation does not match its payment: nothing credited');
        return 'mismatch';
      }
      await post(tx, {
        userId: payment.userId,
        amountCents: payment.amountCents,
        kind: 'topup',
        reference: payment.id,
        description: `Top-up by card (${payment.provider === 'stripe' ? 'Stripe' : 'sandbox'})`,
        // A colon never appears in a client's key (contracts `idempotencyKey`), so no purchase can take this one.
        idempotencyKey: `payment:${payment.id}`,
      });
      await tx
        .update(payments)
        .set({ status: 'succeeded', completedAt: new Date(), ...(event.chargeRef ? { chargeRef: event.chargeRef } : {}) })
        .where(eq(payments.id, payment.id));
      return 'succeeded';
    });
  }

  /**
   * Money of a top-up given back by the provider (a refund made in its dashboard) or taken back by the
   * payer's bank (a dispute): debited from the balance, which may go below zero — the account then owes it
   * and buys nothing until it is paid back. A dispute won credits it again. Each event counts once (its id is
   * recorded in the same transaction), refunds are reported as a running total so only what is new is
   * debited, and a payment never loses more than it brought.
   */
  async reverse(event: ReversalEvent): Promise<'duplicate' | 'unknown' | 'reversed'> {
    return this.db.transaction(async (tx) => {
      const match = and(eq(payments.chargeRef, event.chargeRef), eq(payments.provider, event.provider));
      const [found] = await tx.select({ userId: payments.userId }).from(payments).where(match).limit(1);
      // Not recorded as seen: a payment made before PaymentIntents were kept (or whose confirmation has not
      // arrived yet) is found when the event is sent again, from the provider's dashboard if need be.
      if (!found) {
        this.log.error(
          { eventId: event.eventId, type: event.type, chargeRef: event.chargeRef },
          'a refund or dispute names no top-up we know',
        );
        return 'unknown';
      }
      await lockAccount(tx, found.userId);
      const [payment] = await tx.select().from(payments).where(match).for('update');
      if (!payment || payment.status !== 'succeeded') return 'unknown';
      if (!(await firstSeen(tx, event))) return 'duplicate';
      const taken = async (reference: string) => {
        const [row] = await tx
          .select({ sum: sql<string | null>`sum(${ledgerEntries.amountCents})` })
          .from(ledgerEntries)
          .where(and(eq(ledgerEntries.userId, payment.userId), eq(ledgerEntries.reference, reference)));
        return -Number(row?.sum ?? 0);
      };
      const refundRef = `refund:${payment.id}`;
      const disputeRef = `dispute:${payment.id}`;
      const refunded = await taken(refundRef);
      const disputed = await taken(disputeRef);
      const room = payment.amountCents - refunded - disputed;
      const provider = payment.provider === 'stripe' ? 'Stripe' : 'sandbox';
      let amountCents = 0;
      let reference = refundRef;
      let description = '';
      if (event.reversal.kind === 'refunded') {
        amountCents = -Math.min(Math.max(0, Math.min(event.reversal.refundedCents, payment.amountCents) - refunded), room);
        description = `Top-up refunded (${provider})`;
      } else if (event.reversal.kind === 'disputed') {
        amountCents = -Math.min(event.reversal.disputedCents, room);
        reference = disputeRef;
        description = `Top-up disputed by the card holder (${provider})`;
      } else {
        amountCents = Math.min(event.reversal.disputedCents, disputed);
        reference = disputeRef;
        description = `Dispute won: top-up credited again (${provider})`;
      }
      if (amountCents !== 0)
        await post(tx, { userId: payment.userId, amountCents, kind: 'adjustment', reference, description, mayGoNegative: true });
      this.log.warn(
        { paymentId: payment.id, userId: payment.userId, type: event.type, amountCents },
        'a top-up was reversed by its provider',
      );
      return 'reversed';
    });
  }

  /** The sandbox's checkout page answered: the same path as a provider's webhook, for the payer's own payment. */
  async sandboxOutcome(userId: string, paymentId: string, outcome: 'pay' | 'decline' | 'abandon'): Promise<PaymentView> {
    if (this.provider?.name !== 'sandbox') throw new ApiError('NOT_FOUND');
    const current = await this.view(userId, paymentId);
    if (current.provider !== 'sandbox') throw new ApiError('NOT_FOUND');
    await this.apply({
      provider: 'sandbox',
      eventId: newId(),
      type: `sandbox.${outcome}`,
      paymentId,
      outcome: outcome === 'pay' ? 'succeeded' : outcome === 'decline' ? 'declined' : 'abandoned',
      amountCents: current.amountCents,
    });
    return this.view(userId, paymentId);
  }

  balance(userId: string): Promise<number> {
    return balanceOf(this.db, userId);
  }
}
