import { z } from 'zod';

/** The plan catalogue: the pricing page shows it now, billing charges it later. Prices in cents (USD). */
export const plans = [
  {
    id: 'free',
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
export const planSchema = z.object({
  id: z.string(),
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
});
export const plansResult = z.array(planSchema);
