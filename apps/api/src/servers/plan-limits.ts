import { freeSleepingText, plans, type OfferedPlan, type PlanId } from '@spawnpoint/contracts';
import type { Config } from '../config.ts';

/** What an account's plan allows, in the units the API works with; the deployment's settings override the free plan. */
export interface PlanLimits {
  /** Servers that may be active at once (anything but offline or sleeping). */
  activeServers: number;
  /** Without players this long, a server stops and sleeps; null: never. */
  idleStopMs: number | null;
  /** A server is never put to sleep sooner than this after it came online. */
  minOnlineMs: number;
  /** Play time per UTC day; null: unlimited. */
  dailyPlayTimeMs: number | null;
  /** As the plan presents it (the overview's "sleeps after N minutes without players"). */
  idleStopMinutes: number | null;
}

const MINUTE = 60_000;

export function planLimits(config: Config, planId: PlanId = 'free'): PlanLimits {
  const plan = plans.find((p) => p.id === planId) ?? plans[0];
  const free = plan.id === 'free';
  const idleStopMinutes = free && config.IDLE_STOP_MINUTES !== undefined ? config.IDLE_STOP_MINUTES : plan.idleStopMinutes;
  const playMinutes = free && config.DAILY_PLAY_TIME_MINUTES !== undefined ? config.DAILY_PLAY_TIME_MINUTES : plan.dailyPlayTimeMinutes;
  return {
    activeServers: plan.activeServers,
    idleStopMs: idleStopMinutes === null ? null : Math.round(idleStopMinutes * MINUTE),
    minOnlineMs: Math.round(config.MIN_ONLINE_MINUTES * MINUTE),
    dailyPlayTimeMs: playMinutes === null ? null : Math.round(playMinutes * MINUTE),
    idleStopMinutes,
  };
}

/** The plan catalogue as this deployment runs it: the free plan's sleep and play time are its settings. */
export function offeredPlans(config: Config): OfferedPlan[] {
  return plans.map((plan) => {
    if (plan.id !== 'free') return { ...plan };
    const { idleStopMinutes, dailyPlayTimeMs } = planLimits(config, 'free');
    return {
      ...plan,
      idleStopMinutes,
      dailyPlayTimeMinutes: dailyPlayTimeMs === null ? null : dailyPlayTimeMs / MINUTE,
      sleeping: freeSleepingText(idleStopMinutes),
    };
  });
}
