import { planById, plans, type Plan, type PlanId, type ServerPlanResult, type SubscriptionView } from '@spawnpoint/contracts';
import { and, eq, lte } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { newId } from '../auth/tokens.ts';
import type { Db } from '../db/index.ts';
import { servers, subscriptions } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { DbOrTx } from '../servers/activity.ts';
import { balanceOf, lockAccount, openPurchase, purchase, type Tx } from './ledger.ts';

type SubscriptionRow = typeof subscriptions.$inferSelect;
/** How often due renewals are looked for (and once at start). */
const RENEWAL_CHECK_MS = 60_000;

/** The same day of the next month (the 31st becomes the month's last day), at the same time. */
export function addMonth(from: Date): Date {
  const next = new Date(from);
  const day = next.getUTCDate();
  next.setUTCDate(1);
  next.setUTCMonth(next.getUTCMonth() + 1);
  const last = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate();
  next.setUTCDate(Math.min(day, last));
  return next;
}

/**
 * The prorated price of moving to a dearer plan mid-period: the difference of the monthly prices for the
 * part of the period still to run, rounded up to a cent (README: "Proration").
 */
export function proratedCents(from: Plan, to: Plan, periodStart: Date, periodEnd: Date, now: Date): number {
  const length = periodEnd.getTime() - periodStart.getTime();
  const left = Math.max(0, periodEnd.getTime() - now.getTime());
  if (length <= 0 || left === 0) return 0;
  return Math.ceil(((to.monthlyPriceCents - from.monthlyPriceCents) * left) / length);
}

const viewOf = (row: SubscriptionRow): SubscriptionView => ({
  planId: row.planId as PlanId,
  periodStart: row.periodStart.toISOString(),
  periodEnd: row.periodEnd.toISOString(),
  renews: row.renews,
  nextPlanId: (row.nextPlanId as PlanId | null) ?? null,
});

/** What a plan change did, for whoever keeps limits in memory (the free tier, the node's spec). */
export type PlanChanged = (change: { serverId: string; ownerId: string; planId: PlanId }) => void;

/**
 * Plans bought for a server from its owner's balance. Every change runs in one transaction
 * with the account locked: the debit, the subscription and the server's new limits are written together or
 * not at all. Limits: players and memory on the server row at once (the running game applies them at its
 * next start), disk and backups from the plan, sleeping and play time through the free tier.
 */
/** A plan purchase's ledger reference: the server and the plan bought for it. */
const planReference = (serverId: string, planId: string) => `${serverId}/${planId}`;

export class Subscriptions {
  private timer: NodeJS.Timeout | null = null;
  private listeners = new Set<PlanChanged>();

  constructor(
    private db: Db,
    private log: FastifyBaseLogger,
    /** The affiliate's share of each purchase (AFFILIATE_COMMISSION_PERCENT). */
    private commissionPercent: number,
    private now: () => Date = () => new Date(),
  ) {}

  onPlanChanged(listener: PlanChanged): void {
    this.listeners.add(listener);
  }

  private changed(serverId: string, ownerId: string, planId: PlanId): void {
    for (const listener of this.listeners) listener({ serverId, ownerId, planId });
  }

  async current(db: DbOrTx, serverId: string): Promise<SubscriptionRow | null> {
    const [row] = await db
      .select()
      .from(subscriptions)
      .where(and(eq(subscriptions.serverId, serverId), eq(subscriptions.status, 'active')))
      .limit(1);
    return row ?? null;
  }

  /** The Upgrade page: the server's plan, its subscription, the balance, and what each plan would cost now. */
  async view(server: { id: string; ownerId: string; planId: string }): Promise<Omit<ServerPlanResult, 'plans'>> {
    const [subscription, balanceCents] = await Promise.all([this.current(this.db, server.id), balanceOf(this.db, server.ownerId)]);
    const current = planById(server.planId) ?? plans[0];
    const now = this.now();
    return {
      planId: current.id,
      subscription: subscription ? viewOf(subscription) : null,
      balanceCents,
      quotes: plans.map((plan) => {
        if (plan.id === current.id) return { planId: plan.id, kind: 'current' as const, chargeCents: 0 };
        if (plan.monthlyPriceCents === 0) return { planId: plan.id, kind: 'free' as const, chargeCents: 0 };
        if (!subscription) return { planId: plan.id, kind: 'new' as const, chargeCents: plan.monthlyPriceCents };
        if (plan.monthlyPriceCents < current.monthlyPriceCents) return { planId: plan.id, kind: 'downgrade' as const, chargeCents: 0 };
        return {
          planId: plan.id,
          kind: 'upgrade' as const,
          chargeCents: proratedCents(current, plan, subscription.periodStart, subscription.periodEnd, now),
        };
      }),
    };
  }

  /**
   * Chooses a paid plan for a server, paid by its owner: a new month, an upgrade for the rest of the period
   * (prorated), or a cheaper plan from the next period. The same idempotency key again answers the state
   * now and moves no money.
   */
  async choose(server: { id: string; ownerId: string }, planId: PlanId, idempotencyKey: string): Promise<void> {
    const plan = planById(planId);
    if (!plan) throw new ApiError('INVALID_INPUT', { planId: 'Choose one of the plans.' });
    if (plan.monthlyPriceCents === 0)
      throw new ApiError('INVALID_INPUT', { planId: 'To go back to Free, turn renewal off: the plan then ends with its period.' });
    const changed = await this.db.transaction(async (tx) => {
      // Rows written before the plan was part of the reference named the server only.
      const row = await openPurchase(tx, server, idempotencyKey, { now: planReference(server.id, plan.id), also: [server.id] });
      if (!row) return null;
      const now = this.now();
      const subscription = await this.current(tx, server.id);
      const current = planById(row.planId) ?? plans[0];
      if (subscription && subscription.planId === plan.id) {
        // Back to the plan it has: a downgrade chosen earlier is called off; nothing is charged.
        if (subscription.nextPlanId === null && subscription.renews)
          throw new ApiError('INVALID_STATE', undefined, `This server is already on ${plan.name}.`);
        await tx.update(subscriptions).set({ nextPlanId: null, renews: true }).where(eq(subscriptions.id, subscription.id));
        return null;
      }
      if (!subscription) {
        await purchase(
          tx,
          {
            userId: server.ownerId,
            amountCents: -plan.monthlyPriceCents,
            kind: 'plan',
            reference: planReference(server.id, plan.id),
            description: `${plan.name} plan for ${row.name}, one month`,
            idempotencyKey,
          },
          this.commissionPercent,
        );
        await tx.insert(subscriptions).values({
          id: newId(),
          serverId: server.id,
          userId: server.ownerId,
          planId: plan.id,
          periodStart: now,
          periodEnd: addMonth(now),
        });
        await applyPlan(tx, server.id, plan);
        return plan.id;
      }
      if (plan.monthlyPriceCents < current.monthlyPriceCents) {
        // Cheaper: from the next period; this one was paid for and runs on.
        await tx.update(subscriptions).set({ nextPlanId: plan.id, renews: true }).where(eq(subscriptions.id, subscription.id));
        return null;
      }
      const charge = proratedCents(current, plan, subscription.periodStart, subscription.periodEnd, now);
      await purchase(
        tx,
        {
          userId: server.ownerId,
          amountCents: -charge,
          kind: 'plan',
          reference: planReference(server.id, plan.id),
          description: `Upgrade of ${row.name} from ${current.name} to ${plan.name} until ${subscription.periodEnd.toISOString().slice(0, 10)} (prorated)`,
          idempotencyKey,
        },
        this.commissionPercent,
      );
      await tx.update(subscriptions).set({ planId: plan.id, nextPlanId: null, renews: true }).where(eq(subscriptions.id, subscription.id));
      await applyPlan(tx, server.id, plan);
      return plan.id;
    });
    if (changed) this.changed(server.id, server.ownerId, changed);
  }

  /** Turns renewal off (the plan runs to the end of its period, then the server is on Free) or on again. */
  async setRenewal(serverId: string, renews: boolean): Promise<void> {
    const subscription = await this.current(this.db, serverId);
    if (!subscription) throw new ApiError('INVALID_STATE', undefined, 'This server has no paid plan to renew.');
    await this.db
      .update(subscriptions)
      .set({ renews, nextPlanId: renews ? subscription.nextPlanId : null })
      .where(eq(subscriptions.id, subscription.id));
  }

  /** Refuses what an active (renewing) subscription forbids: deleting its server or its account. */
  async refuseIfRenewing(filter: { serverId: string } | { userId: string }): Promise<void> {
    const rows = await this.db
      .select({ serverId: subscriptions.serverId, name: servers.name })
      .from(subscriptions)
      .innerJoin(servers, eq(servers.id, subscriptions.serverId))
      .where(
        and(
          'serverId' in filter ? eq(subscriptions.serverId, filter.serverId) : eq(subscriptions.userId, filter.userId),
          eq(subscriptions.status, 'active'),
          eq(subscriptions.renews, true),
        ),
      )
      .orderBy(servers.name);
    if (rows.length)
      throw new ApiError(
        'SUBSCRIPTION_ACTIVE',
        undefined,
        `You cannot do this while a plan renews: ${rows.map((r) => `${r.name} (its Upgrade page: /servers/${r.serverId}/upgrade)`).join(', ')}. Turn its renewal off there first; the plan then runs to the end of its period.`,
      );
  }

  start(): void {
    const run = () => void this.runDue().catch((err: unknown) => this.log.error({ err }, 'renewing subscriptions failed'));
    run();
    this.timer = setInterval(run, RENEWAL_CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Renews (or lets lapse) every subscription whose period has ended. Each is claimed inside its own
   * transaction: locked, and changed only if its period end is still the one seen, so a second process
   * or a second run after a restart finds nothing to do. The debit's key names the subscription and the
   * period, so even a replay of the same claim moves no money twice. A renewal that finds the period long
   * gone (the service was down for more than a period) charges one period, from now.
   */
  async runDue(): Promise<number> {
    const now = this.now();
    const due = await this.db
      .select({ id: subscriptions.id, periodEnd: subscriptions.periodEnd, userId: subscriptions.userId })
      .from(subscriptions)
      .where(and(eq(subscriptions.status, 'active'), lte(subscriptions.periodEnd, now)));
    let done = 0;
    for (const seen of due) {
      const changed = await this.db
        .transaction(async (tx) => this.renewOne(tx, seen.id, seen.userId, seen.periodEnd, now))
        .catch((err: unknown) => {
          this.log.error({ err, subscriptionId: seen.id }, 'renewing a subscription failed');
          return null;
        });
      if (changed) {
        done++;
        this.changed(changed.serverId, changed.ownerId, changed.planId);
      }
    }
    return done;
  }

  private async renewOne(
    tx: Tx,
    id: string,
    userId: string,
    periodEnd: Date,
    now: Date,
  ): Promise<{ serverId: string; ownerId: string; planId: PlanId } | null> {
    await lockAccount(tx, userId);
    const [row] = await tx.select().from(subscriptions).where(eq(subscriptions.id, id)).for('update');
    // Another process (or an earlier run) handled this period already.
    if (!row || row.status !== 'active' || row.periodEnd.getTime() !== periodEnd.getTime()) return null;
    const [server] = await tx.select().from(servers).where(eq(servers.id, row.serverId)).for('no key update');
    if (!server) return null;
    const lapse = async (why: string) => {
      await tx.update(subscriptions).set({ status: 'lapsed' }).where(eq(subscriptions.id, id));
      await applyPlan(tx, row.serverId, plans[0]);
      this.log.info({ subscriptionId: id, serverId: row.serverId, why }, 'a subscription lapsed');
      return { serverId: row.serverId, ownerId: server.ownerId, planId: plans[0].id };
    };
    if (!row.renews) return lapse('renewal turned off');
    const plan = planById(row.nextPlanId ?? row.planId);
    if (!plan || plan.monthlyPriceCents === 0) return lapse('no paid plan to renew');
    let start = row.periodEnd;
    if (addMonth(start) <= now) start = now;
    try {
      await purchase(
        tx,
        {
          userId: server.ownerId,
          amountCents: -plan.monthlyPriceCents,
          kind: 'renewal',
          reference: row.serverId,
          description: `${plan.name} plan for ${server.name}, renewed for a month`,
          idempotencyKey: `renewal-${id}-${row.periodEnd.toISOString()}`,
        },
        this.commissionPercent,
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === 'INSUFFICIENT_BALANCE') return lapse('balance too low');
      throw err;
    }
    await tx
      .update(subscriptions)
      .set({ planId: plan.id, nextPlanId: null, periodStart: start, periodEnd: addMonth(start) })
      .where(eq(subscriptions.id, id));
    await applyPlan(tx, row.serverId, plan);
    return { serverId: row.serverId, ownerId: server.ownerId, planId: plan.id };
  }
}

/** The server's limits from its plan, written with the change that made them. */
async function applyPlan(tx: Tx, serverId: string, plan: Plan): Promise<void> {
  await tx.update(servers).set({ planId: plan.id, maxPlayers: plan.playerSlots, memoryMb: plan.memoryMb }).where(eq(servers.id, serverId));
}
