import { z } from 'zod';
import { serverState } from './api.ts';
import { serverRole } from './permissions.ts';
import { serverStats, STOPPED_BECAUSE_MAX } from './servers.ts';

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

/**
 * The game plane (agents, join proxies, live state, power, the start queue, sleeping, play time) runs in one
 * API process at a time: the holder of a lease in Redis. The others mirror its live state from these events
 * (to answer the polled lists and stream consoles to their own sockets) and hand it the requests that act
 * on the game plane (`gamePlaneCall`). Parsed on receipt like every cluster message.
 */
export const liveServer = z.object({
  serverId: id,
  ownerId: id,
  nodeId: id,
  state: serverState,
  stoppedBecause: z.string().max(STOPPED_BECAUSE_MAX).nullable().optional(),
  stored: z.boolean(),
  maxPlayers: z.number().int().min(0).nullable(),
});
export const liveNode = z.object({
  nodeId: id,
  connected: z.boolean(),
  javaMajors: z.array(z.number().int()).max(32),
  javaInstalled: z.array(z.number().int()).max(32).default([]),
  storage: z.string().max(500).nullable(),
});
export const liveEvent = z.discriminatedUnion('type', [
  /** A server placed, its state or storage changed, or its slots known: the whole of what a mirror keeps. */
  z.object({ type: z.literal('server'), server: liveServer }),
  z.object({ type: z.literal('forgotten'), serverId: id }),
  z.object({ type: z.literal('stats'), serverId: id, at: z.number(), stats: serverStats }),
  z.object({ type: z.literal('lines'), serverId: id, lines: z.array(z.string()).max(10_000) }),
  z.object({ type: z.literal('node'), node: liveNode }),
  /** Whether a join proxy is connected (the dashboard then offers joining by name). */
  z.object({ type: z.literal('proxies'), connected: z.boolean() }),
  /** Everything at once: sent when a process asks (it just started) and when a new holder takes over. */
  z.object({ type: z.literal('snapshot'), servers: z.array(liveServer), nodes: z.array(liveNode), proxies: z.boolean() }),
]);
export type LiveEvent = z.infer<typeof liveEvent>;
export type LiveServer = z.infer<typeof liveServer>;
export type LiveNode = z.infer<typeof liveNode>;
export const liveMessage = z.object({ holder: z.string().min(1).max(64), event: liveEvent });

/** A request a process hands the holder, run there as if it had arrived there (its client's address kept). */
export const gamePlaneCall = z.object({
  id,
  /** The process waiting for the answer. */
  from: z.string().min(1).max(64),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
  url: z.string().min(1).max(16_384),
  headers: z.record(z.string(), z.string().max(16_384)),
  /** base64; empty when the request has none. Room for the largest body a route takes (the editor's save). */
  body: z.string().max(8_000_000),
  remoteAddress: z.string().max(64),
});
export type GamePlaneCall = z.infer<typeof gamePlaneCall>;
export const gamePlaneAnswer = z.object({
  id,
  statusCode: z.number().int().min(100).max(599),
  headers: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  body: z.string(),
});
export type GamePlaneAnswer = z.infer<typeof gamePlaneAnswer>;
/** What a process asks on the calls channel besides requests: the whole live state (it just started). */
export const gamePlaneAsk = z.discriminatedUnion('type', [
  z.object({ type: z.literal('call'), call: gamePlaneCall }),
  z.object({ type: z.literal('snapshot') }),
]);
