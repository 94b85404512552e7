import { z } from 'zod';
import { serverRole } from './permissions.ts';
import { EMAIL_MAX, PASSWORD_MAX, PASSWORD_MIN, isEmail, noNul, validationMessages } from './validation.ts';

/** Request and result schemas of every endpoint, named after the endpoint. */

const emailAddress = z
  .string({ error: validationMessages.required('email address') })
  .trim()
  .toLowerCase()
  .min(1, validationMessages.required('email address'))
  .max(EMAIL_MAX, validationMessages.max('email address', EMAIL_MAX))
  .refine(isEmail, validationMessages.email('email address'));

const newPassword = z
  .string({ error: validationMessages.required('password') })
  .min(1, validationMessages.required('password'))
  .min(PASSWORD_MIN, validationMessages.min('password', PASSWORD_MIN))
  .max(PASSWORD_MAX, validationMessages.max('password', PASSWORD_MAX));

/** Any opaque token we hand out: url-safe base64, bounded length. */
const opaqueToken = z
  .string({ error: validationMessages.required('token') })
  .min(16, validationMessages.fallback('token'))
  .max(256, validationMessages.fallback('token'))
  .regex(/^[A-Za-z0-9_.-]+$/, validationMessages.fallback('token'));

export const registerRequest = z.object({
  emailAddress,
  password: newPassword,
  /** Referral code kept from `?r=`: the referrer earns a commission on this account's purchases. */
  referral: z.string().max(64).optional(),
});

export const loginRequest = z.object({
  emailAddress,
  password: z
    .string({ error: validationMessages.required('password') })
    .min(1, validationMessages.required('password'))
    .max(PASSWORD_MAX, validationMessages.max('password', PASSWORD_MAX)),
  twoFactorToken: z.string().max(64).optional(),
});

export const verifyRequest = z.object({ token: opaqueToken });
export const passwordRecoveryRequest = z.object({ emailAddress });
export const passwordResetRequest = z.object({ token: opaqueToken, password: newPassword });
export const feedbackRequest = z.object({
  message: z
    .string({ error: validationMessages.required('message') })
    .trim()
    .min(1, validationMessages.required('message'))
    .max(5000, validationMessages.max('message', 5000))
    .refine(noNul, 'The message may not hold a NUL character.'),
  route: z.string().max(2048, validationMessages.max('route', 2048)).refine(noNul, 'The route may not hold a NUL character.'),
});

export const userData = z.object({
  userId: z.string(),
  emailAddress: z.string(),
  emailVerified: z.boolean(),
  twoFactorEnabled: z.boolean(),
  createdAt: z.string(),
  /** Identifier handed to the customer-chat widget. */
  chatWidgetToken: z.string(),
});
export type UserData = z.infer<typeof userData>;

export const serverState = z.enum([
  'offline',
  'queued',
  'starting',
  'online',
  'stopping',
  'sleeping',
  'waking',
  // A sleeping server's folder going to shared storage (so it can wake on any node), and coming back from it.
  'uploading',
  'downloading',
  'backing_up',
  'restoring',
  'installing',
  'locked',
]);
export type ServerState = z.infer<typeof serverState>;

/** How many of `states` are in each server state, every state listed (0 included): what the metrics pages show. */
export function countByState(states: Iterable<ServerState>): Map<ServerState, number> {
  const counts = new Map<ServerState, number>(serverState.options.map((s) => [s, 0]));
  for (const state of states) counts.set(state, (counts.get(state) ?? 0) + 1);
  return counts;
}

export const serverSummary = z.object({
  serverId: z.string(),
  name: z.string(),
  state: serverState,
  createdAt: z.string(),
  players: z.object({ online: z.number().int(), max: z.number().int() }),
  joinAddress: z.string(),
  /** The caller's role on the server: `owner`, or the role they were invited with. */
  role: serverRole,
  /** The server's plan (plans.ts): an owner's plans decide how many servers the account may own. */
  planId: z.string(),
});
export type ServerSummary = z.infer<typeof serverSummary>;

export const userServersResult = z.array(serverSummary);
export const websocketTokenResult = z.object({ token: z.string() });
export const localizationResult = z.object({ currency: z.string().length(3) });
export const emptyResult = z.null();
export const healthResult = z.object({ database: z.literal('ok'), agents: z.array(z.string()) });
export const referralResult = z.object({
  code: z.string(),
  link: z.string(),
  referredUsers: z.number().int().min(0),
  /** The share of each purchase by a referred account credited to this account (a deployment setting). */
  commissionPercent: z.number().int().min(0),
  /** All commissions earned, in cents. */
  earnedCents: z.number().int().min(0),
  /** The newest commissions (at most 20). */
  commissions: z.array(z.object({ id: z.string(), amountCents: z.number().int(), createdAt: z.string() })),
});
export const referralCreditRequest = z.object({
  referral: z.string().trim().min(1).max(64).refine(noNul, 'The referral code may not hold a NUL character.'),
});
export const giveawaySlugParams = z.object({
  slug: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z0-9-]+$/),
});
export type ReferralInfo = z.infer<typeof referralResult>;
export const giveawayResult = z.object({
  slug: z.string(),
  title: z.string(),
  deadline: z.string(),
  winnersCount: z.number().int(),
  entries: z.number().int(),
  entered: z.boolean(),
  drawn: z.boolean(),
  /** Recorded at the draw, so anyone with the entry list can recompute the winners. */
  seed: z.string().nullable(),
  /** Masked addresses of the winners once drawn. */
  winners: z.array(z.string()),
});
export type GiveawayState = z.infer<typeof giveawayResult>;
export const operatorLockRequest = z.object({ emailAddress: z.string().trim().toLowerCase().max(254), locked: z.boolean() });
export const operatorLockResult = z.object({ sessionsEnded: z.number().int().min(0) });
export const operatorDrawRequest = z.object({ slug: z.string().min(1).max(64), seed: z.string().min(8).max(128).optional() });
export const operatorDrawResult = z.object({ seed: z.string(), entries: z.number().int(), winners: z.number().int() });
/** A node as the operator sees it (`npm run operator -- nodes`). */
export const operatorNode = z.object({
  nodeId: z.string(),
  connected: z.boolean(),
  draining: z.boolean(),
  capacity: z.number().int(),
  /** Servers holding a running slot now. */
  activeServers: z.number().int(),
  /** Servers placed there (whatever their state). */
  placedServers: z.number().int(),
  queuedStarts: z.number().int(),
});
export type OperatorNode = z.infer<typeof operatorNode>;
export const operatorNodesResult = z.array(operatorNode);
export const operatorDrainRequest = z.object({ nodeId: z.string().min(1).max(64), draining: z.boolean() });
export const operatorServersQuery = z.object({ name: z.string().trim().toLowerCase().min(1).max(64) });
export const operatorServer = z.object({
  serverId: z.string(),
  name: z.string(),
  ownerEmail: z.string(),
  /** Where it runs, or where it last ran while its folder is in shared storage (`storedIn`). */
  nodeId: z.string(),
  state: serverState,
  storedIn: z.string().nullable(),
});
export type OperatorServer = z.infer<typeof operatorServer>;
export const operatorServersResult = z.array(operatorServer);
/** Moves a stopped or sleeping server's folder to another node through the shared storage both name. */
export const operatorMoveRequest = z.object({ serverId: z.string().min(1).max(64), nodeId: z.string().min(1).max(64) });
/** Before a node is taken out of AGENTS: drained, and holding no server's folder. */
export const operatorRemoveRequest = z.object({ nodeId: z.string().min(1).max(64) });
export const routeRulesResult = z.record(z.string(), z.string());

export type RegisterRequest = z.infer<typeof registerRequest>;
export type LoginRequest = z.infer<typeof loginRequest>;
