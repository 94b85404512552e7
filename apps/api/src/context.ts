import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE, SESSION_COOKIE_SECURE } from '@spawnpoint/contracts';
import type { Config } from './config.ts';
import type { Database } from './db/index.ts';
import type { Mailer } from './mail/mailer.ts';
import type { SessionInfo, SessionStore } from './auth/sessions.ts';
import type { Limiter } from './http/rate-limits.ts';
import { ApiError } from './http/errors.ts';
import { sha256 } from './auth/tokens.ts';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { NodeRegistry } from './nodes.ts';
import type { ServerHub } from './server-hub.ts';
import type { ServerDirectory } from './servers/directory.ts';
import type { PowerDispatcher } from './servers/power.ts';
import type { ProxyGateway } from './proxy-gateway.ts';
import type { FreeTier } from './servers/free-tier.ts';
import type { Placement } from './servers/placement.ts';
import type { ServerMover } from './servers/server-mover.ts';
import type { BackupJobs } from './servers/backup-jobs.ts';
import type { Payments } from './billing/payments.ts';
import type { Subscriptions } from './billing/subscriptions.ts';
import type { Shop } from './billing/shop.ts';
import type { GamePlane } from './game-plane.ts';

/** What every route module gets: the real services, no globals. */
export interface AppContext {
  config: Config;
  database: Database;
  sessions: SessionStore;
  mailer: Mailer;
  limit: Limiter;
  log: Logger;
  game: {
    nodes: NodeRegistry;
    hub: ServerHub;
    directory: ServerDirectory;
    power: PowerDispatcher;
    proxies: ProxyGateway;
    freeTier: FreeTier;
    backups: BackupJobs;
    /** Where new servers go and where a server in storage wakes (servers/placement.ts). */
    placement: Placement;
    /** Servers' folders through shared storage: sleeping ones, and the operator's moves. */
    mover: ServerMover;
  };
  billing: {
    payments: Payments;
    subscriptions: Subscriptions;
    shop: Shop;
    /** A server's limits changed (plan, shop): the node gets its new spec (disk, slots). */
    limitsChanged(serverId: string): void;
  };
  /** Which API process runs the game plane; requests that act on it are handed there (game-plane.ts). */
  gamePlane: GamePlane;
  /** Work started after answering (mail); tests await it through `drain()`. */
  background(task: () => Promise<unknown>): void;
}

type GameServices = AppContext['game'];
type BillingServices = AppContext['billing'];

/**
 * The part of the context a module is given: the services it names (K), and of `game` (G) and `billing` (B)
 * the parts it names. A module typed with it cannot reach anything else, so its signature is the list of
 * what it depends on (docs/design.md, "What a module is given").
 */
export type Given<
  K extends Exclude<keyof AppContext, 'game' | 'billing'> = never,
  G extends keyof GameServices = never,
  B extends keyof BillingServices = never,
> = Pick<AppContext, K> & { game: Pick<GameServices, G>; billing: Pick<BillingServices, B> };

/** What reading and writing the session cookie needs. */
export type SessionServices = Given<'config' | 'sessions'>;

export function sessionCookieName(config: Config): string {
  return config.production ? SESSION_COOKIE_SECURE : SESSION_COOKIE;
}

/**
 * The session cookie is the only cookie the API reads or sets, so it is parsed here, when a route needs the
 * session, and written as a Set-Cookie header: a cookie plugin would parse every request's header and add
 * a hook on each side of every answer, the polled endpoint's included.
 */
export function setSessionCookie(ctx: SessionServices, reply: FastifyReply, token: string): void {
  reply.header('set-cookie', sessionCookie(ctx, token, { maxAge: ctx.config.SESSION_TTL_DAYS * 86_400 }));
}

/** Empties and expires the session cookie, with the attributes it was set with. */
export function clearSessionCookie(ctx: SessionServices, reply: FastifyReply): void {
  reply.header('set-cookie', sessionCookie(ctx, '', { maxAge: 0, expires: new Date(0) }));
}

function sessionCookie(ctx: SessionServices, value: string, lifetime: { maxAge: number; expires?: Date }): string {
  return stringifySetCookie({
    name: sessionCookieName(ctx.config),
    value,
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.config.production,
    path: '/',
    ...lifetime,
  });
}

/** The Cookie header a connection sent last, and the hash of the session token in it (null: none). */
interface CookieSeen {
  header: string;
  tokenHash: string | null;
}
const cookieSeen = Symbol('spawnpoint.cookieSeen');
type Connection = FastifyRequest['socket'] & { [cookieSeen]?: CookieSeen };

/**
 * The hash of the session token the request's Cookie header carries (the session cache's key), or null.
 * A connection keeps the last Cookie header it sent and that token's hash, so the next request with the
 * very same header (a tab's poll every 5 s on its keep-alive connection) skips parsing it and the
 * `sha256` — about a twentieth of the polled endpoint's CPU. Only an identical header reuses the hash, so a
 * connection that carries several people's requests (a reverse proxy's) gets each one's own session. The
 * header is kept until the connection sends another or closes.
 */
export function sessionHashOf(ctx: SessionServices, request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  const connection = request.socket as Connection | null;
  const seen = connection?.[cookieSeen];
  if (seen?.header === header) return seen.tokenHash;
  const token = parseCookie(header)[sessionCookieName(ctx.config)];
  const tokenHash = token && token.length <= 256 ? sha256(token) : null;
  if (connection) connection[cookieSeen] = { header, tokenHash };
  return tokenHash;
}

export async function optionalSession(ctx: SessionServices, request: FastifyRequest): Promise<SessionInfo | null> {
  return ctx.sessions.resolve(sessionHashOf(ctx, request));
}

/**
 * The caller's session when memory alone says it is valid and its account not locked (a polled endpoint's
 * usual case, answered without a promise); undefined when the database must be asked or the answer is an
 * error, which `requireSession` then gives.
 */
export function cachedSession(ctx: SessionServices, request: FastifyRequest): SessionInfo | undefined {
  const session = ctx.sessions.fromCache(sessionHashOf(ctx, request));
  return session && !session.user.lockedAt ? session : undefined;
}

/** NOT_AUTHENTICATED without a valid session; ACCOUNT_LOCKED on every call of a locked account. */
export async function requireSession(ctx: SessionServices, request: FastifyRequest): Promise<SessionInfo> {
  const session = await optionalSession(ctx, request);
  if (!session) throw new ApiError('NOT_AUTHENTICATED');
  if (session.user.lockedAt) throw new ApiError('ACCOUNT_LOCKED');
  return session;
}
