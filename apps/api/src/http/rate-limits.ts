import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

export interface LimitRule {
  max: number;
  /** Window in milliseconds. */
  window: number;
  /**
   * What a refusal says, where a person meets this limit in the normal course of using the product (the
   * generic "too many requests" would leave them guessing): the rule, and `minutes` until the next is allowed.
   */
  refusal?: (max: number, minutes: number) => string;
}

const inMinutes = (minutes: number) => (minutes <= 1 ? 'a minute' : `${minutes} minutes`);

/** Named limits (docs/guide.md, "Rate limits"). Per IP and, where an account is named, per account too. */
export const limitRules = {
  loginPerIp: { max: 30, window: 60_000 },
  loginPerAccountAndIp: { max: 10, window: 10 * 60_000 },
  registerPerIp: { max: 10, window: 60 * 60_000 },
  recoveryPerIp: { max: 10, window: 10 * 60_000 },
  recoveryPerAccount: { max: 3, window: 10 * 60_000 },
  verifyPerIp: { max: 20, window: 10 * 60_000 },
  resendVerificationPerAccount: { max: 3, window: 10 * 60_000 },
  feedbackPerIp: { max: 10, window: 10 * 60_000 },
  twoFactorPerAccount: { max: 10, window: 5 * 60_000 },
  passwordCheckPerAccount: { max: 10, window: 10 * 60_000 },
  emailChangePerAccount: { max: 3, window: 60 * 60_000 },
  backupsPerServer: {
    max: 3,
    window: 10 * 60_000,
    refusal: (max, minutes) =>
      `A server can make ${max} backups in 10 minutes, and this one has. The next can be made in ${inMinutes(minutes)}; a schedule's backups do not count.`,
  },
  /** Invitation mails (made or resent) per server: a server cannot be used to mail strangers in bulk. */
  invitationsPerServer: { max: 10, window: 60 * 60_000 },
  invitationAcceptPerIp: { max: 20, window: 10 * 60_000 },
  /** Top-ups started per account (each makes a checkout at the payment provider). */
  topupPerAccount: { max: 20, window: 60 * 60_000 },
  apiPerIp: { max: 720, window: 60_000 },
} as const satisfies Record<string, LimitRule>;

export type LimitName = keyof typeof limitRules;

// The key of the call in progress; createRateLimit reads it through keyGenerator.
const callKeys = new WeakMap<FastifyRequest, string>();

export type Limiter = (name: LimitName, request: FastifyRequest, key?: string) => Promise<void>;

/** Builds `limit(name, request, key)`, which throws RATE_LIMIT once the named budget is spent. */
export function createLimiter(app: FastifyInstance, factor: number): Limiter {
  const checks = new Map<LimitName, ReturnType<FastifyInstance['createRateLimit']>>();
  for (const [name, rule] of Object.entries(limitRules) as [LimitName, LimitRule][]) {
    checks.set(
      name,
      app.createRateLimit({
        max: Math.ceil(rule.max * factor),
        timeWindow: rule.window,
        keyGenerator: (req: FastifyRequest) => `${name}:${callKeys.get(req) ?? req.ip}`,
      }),
    );
  }
  return async (name, request, key) => {
    const check = checks.get(name);
    if (!check) return;
    callKeys.set(request, key ?? request.ip);
    const result = await check(request);
    if (!result.isAllowed && result.isExceeded) {
      const refusal = (limitRules[name] as LimitRule).refusal;
      throw new ApiError('RATE_LIMIT', undefined, refusal?.(result.max, Math.max(1, Math.ceil(result.ttl / 60_000))));
    }
  };
}

/**
 * The per-address budget of the whole API (`apiPerIp`), checked on every request: a fixed-window counter
 * per address in this process, reset each window (which also bounds its memory). It is what the polled
 * endpoint pays on every call, so it is a Map lookup, not a rate-limit plugin call (4–5 µs each, measured:
 * docs/performance.md). With several API processes each keeps its own count; the named limits above, which
 * guard sign-in and mail, go through @fastify/rate-limit and its shared store.
 */
export function createAddressBudget(factor: number): { allow(address: string): boolean; close(): void } {
  const rule = limitRules.apiPerIp;
  const max = Math.ceil(rule.max * factor);
  let counts = new Map<string, number>();
  const reset = setInterval(() => (counts = new Map()), rule.window);
  reset.unref();
  return {
    allow(address) {
      const used = (counts.get(address) ?? 0) + 1;
      counts.set(address, used);
      return used <= max;
    },
    close: () => clearInterval(reset),
  };
}
