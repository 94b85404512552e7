import { z } from 'zod';
import { serverRole } from './permissions.ts';

/**
 * What one API process tells the others when several share the service (REDIS_URL): changes each keeps a
 * copy of in memory. The process that made the change has acted on it already; the others act on receipt.
 * Redis pub/sub is a boundary like any other: every message is parsed with this schema, anything else dropped.
 */
const id = z.string().min(1).max(64);
export const clusterEvent = z.discriminatedUnion('type', [
  /** A session was deleted (sign-out, revoked, password changed): drop it from the session cache, end its sockets. */
  z.object({ type: z.literal('session-ended'), sessionId: id }),
  /** An account's row changed (locked, verified, email, two-factor): drop its cached sessions' copy of it. */
  z.object({ type: z.literal('user-changed'), userId: id }),
  /** The servers a user owns or belongs to changed: drop the cached lists the polled endpoint answers from. */
  z.object({ type: z.literal('lists-changed'), userId: id }),
  /** A member's role changed or they were removed (`role` null): end what they may no longer watch. */
  z.object({ type: z.literal('access-changed'), serverId: id, userId: id, role: serverRole.nullable() }),
]);
export type ClusterEvent = z.infer<typeof clusterEvent>;

/** A message on the cluster channel: the event and the process it came from (which ignores its own). */
export const clusterMessage = z.object({ origin: z.string().min(1).max(64), event: clusterEvent });
