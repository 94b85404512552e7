import { z } from 'zod';
import { idempotencyKey } from './money.ts';

/** The plan catalogue: the pricing page shows it now, billing charges it later. Prices in cents (USD). */
export const plans = [
  {
    id: 'free',
    priority: 0,
    name: 'Free',
    tagline: 'For playing with a few friends.',
    playerSlots: 10,
    memoryMb: 1024,
    diskMb: 2048,
    backups: 3,
    servers: 2,
    monthlyPriceCents: 0,
    activeServers: 1,
    idleStopMinutes: 5,
    dailyPlayTimeMinutes: 240,
    sleeping: 'Sleeps 5 minutes after the last player leaves; joining wakes it.',
  },
  {
    id: 'starter',
    priority: 1,
    name: 'Starter',
    tagline: 'A small community that plays every day.',
    playerSlots: 35,
    memoryMb: 3072,
    diskMb: 10240,
    backups: 10,
    servers: 3,
    monthlyPriceCents: 499,
    activeServers: 2,
    idleStopMinutes: 30,
    dailyPlayTimeMinutes: null,
    sleeping: 'Sleeps 30 minutes after the last player leaves; joining wakes it.',
  },
  {
    id: 'community',
    priority: 2,
    name: 'Community',
    tagline: 'A public server with regulars.',
    playerSlots: 100,
    memoryMb: 6144,
    diskMb: 25600,
    backups: 20,
    servers: 5,
    monthlyPriceCents: 1299,
    activeServers: 3,
    idleStopMinutes: 120,
    dailyPlayTimeMinutes: null,
    sleeping: 'Never sleeps while anyone is online; sleeps after 2 empty hours.',
  },
  {
    id: 'network',
    priority: 3,
    name: 'Network',
    tagline: 'Big worlds and busy evenings.',
    playerSlots: 200,
    memoryMb: 12288,
    diskMb: 51200,
    backups: 40,
    servers: 10,
    monthlyPriceCents: 2499,
    activeServers: 10,
    idleStopMinutes: null,
    dailyPlayTimeMinutes: null,
    sleeping: 'Always on.',
  },
] as const;

export type PlanId = (typeof plans)[number]['id'];
export const planIds = plans.map((p) => p.id) as [PlanId, ...PlanId[]];
export const planId = z.enum(planIds, { error: 'Choose one of the plans.' });
export const planSchema = z.object({
  id: planId,
  name: z.string(),
  tagline: z.string(),
  playerSlots: z.number().int(),
  memoryMb: z.number().int(),
  diskMb: z.number().int(),
  backups: z.number().int(),
  servers: z.number().int(),
  /** Servers that may be active (anything but offline or sleeping) at once. */
  activeServers: z.number().int(),
  /** Minutes without players before a server is stopped and sleeps; null: never sleeps. */
  idleStopMinutes: z.number().nullable(),
  /** Minutes per UTC day the account's servers may run; null: no allowance. */
  dailyPlayTimeMinutes: z.number().nullable(),
  monthlyPriceCents: z.number().int(),
  sleeping: z.string(),
  /** Place in a full node's start queue: a higher priority starts before a lower one. */
  priority: z.number().int(),
});
export const plansResult = z.array(planSchema);
/** A plan as a deployment offers it (`plansResult`); the catalogue above with its settings applied. */
export type OfferedPlan = z.infer<typeof planSchema>;

/** Minutes as people read them: "30 seconds", "5 minutes", "1.5 minutes". */
export function formatMinutes(minutes: number): string {
  if (minutes < 1) {
    const seconds = Math.round(minutes * 60);
    return `${seconds} second${seconds === 1 ? '' : 's'}`;
  }
  const rounded = Math.round(minutes * 10) / 10;
  return `${rounded} minute${rounded === 1 ? '' : 's'}`;
}

/** The free plan's sleeping line for the idle time a deployment set (IDLE_STOP_MINUTES). */
export const freeSleepingText = (idleStopMinutes: number | null) =>
  idleStopMinutes === null ? 'Always on.' : `Sleeps ${formatMinutes(idleStopMinutes)} after the last player leaves; joining wakes it.`;
export type Plan = (typeof plans)[number];
/**
 * How many servers an account may own: the most any plan of its servers allows (pricing: Free 2, Starter 3,
 * Community 5, Network 10), and the free plan's with none.
 */
export function serverLimitOf(planIds: Iterable<string>): number {
  let limit: number = plans[0].servers;
  for (const id of planIds) limit = Math.max(limit, planById(id)?.servers ?? 0);
  return limit;
}

export function planById(id: string): Plan | undefined {
  return plans.find((p) => p.id === id);
}

/** A server's paid plan: bought for a month from the balance, renewed from it at the period's end. */
export const subscriptionView = z.object({
  planId,
  periodStart: z.string(),
  periodEnd: z.string(),
  /** Renewed at `periodEnd`; otherwise the server goes back to Free then (its data kept). */
  renews: z.boolean(),
  /** A cheaper plan chosen mid-period: it takes over at `periodEnd`. */
  nextPlanId: planId.nullable(),
});
export type SubscriptionView = z.infer<typeof subscriptionView>;

/** What choosing a plan on the Upgrade page would do now. */
export const planQuote = z.object({
  planId,
  /** `new`: a month from now; `upgrade`: the rest of this period at the new price; `downgrade`: from the next period; `current`. */
  kind: z.enum(['new', 'upgrade', 'downgrade', 'current', 'free']),
  /** Debited now from the balance. */
  chargeCents: z.number().int(),
});
export const serverPlanResult = z.object({
  planId,
  subscription: subscriptionView.nullable(),
  balanceCents: z.number().int(),
  quotes: z.array(planQuote),
  /** The plans as this deployment runs them (its settings may change the free plan's sleep and play time). */
  plans: plansResult,
});
export type ServerPlanResult = z.infer<typeof serverPlanResult>;
export const planPurchaseRequest = z.object({ planId, idempotencyKey });
export const renewalRequest = z.object({ renews: z.boolean() });
