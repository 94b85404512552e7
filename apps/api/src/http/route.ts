import { bearerIs } from '@spawnpoint/logging';
import type { Endpoint, GamePlaneAnswer, PermissionKey, ServerAccess } from '@spawnpoint/contracts';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions as FastifyRouteOptions } from 'fastify';
import type { z } from 'zod';
import type { SessionInfo } from '../auth/sessions.ts';
import type { NodeRegistry } from '../nodes.ts';
import { cachedSession, requireSession, type Given } from '../context.ts';
import { recordActivity, type ActivityNote, type DbOrTx } from '../servers/activity.ts';
import type { ServerRow } from '../db/rows.ts';
import { ApiError, ok, parse, parseUrlPart } from './errors.ts';
import type { LimitName } from './rate-limits.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'config' | 'database' | 'gamePlane' | 'limit' | 'sessions', 'directory' | 'hub' | 'nodes'>;

type Parsed<E, K extends 'params' | 'query' | 'body'> = E extends { [P in K]: infer S extends z.ZodType } ? z.infer<S> : undefined;

/** What a handler gets: the request parts already parsed with the entry's schemas, the session, the server. */
export interface RouteCall<E extends Endpoint> {
  request: FastifyRequest;
  reply: FastifyReply;
  params: Parsed<E, 'params'>;
  query: Parsed<E, 'query'>;
  body: Parsed<E, 'body'>;
  /** The caller's session: present on `session` endpoints, null on the others. */
  session: E extends { access: 'session' } ? SessionInfo : null;
  /** The server named in the path, once the caller was found to hold the entry's permission on it. */
  server: E extends { permission: PermissionKey } ? ServerRow : undefined;
  /** The caller's role on that server and the keys it holds. */
  access: E extends { permission: PermissionKey } ? ServerAccess : undefined;
  /**
   * Writes the route's `activity` entry now, in the handler's transaction (a change made in the database),
   * or `note` where only the handler knows the target (an invitation's address); otherwise the router
   * writes the entry once the handler returned (a change the node answered SUCCESS to).
   */
  recordActivity: (tx: DbOrTx, note?: ActivityNote) => Promise<void>;
  /** The node registry for this request: every call it makes to an agent carries the request's id. */
  nodes: NodeRegistry;
}

/** A handler returns the entry's `result` (sent in the SUCCESS envelope) or, for `raw` entries, the reply it wrote. */
export type RouteResult<E extends Endpoint> = E extends { raw: true }
  ? FastifyReply
  : E extends { result: infer R extends z.ZodType }
    ? z.infer<R>
    : null;

export interface RouteOptions<E extends Endpoint = Endpoint> {
  /** A rate limit counted before anything else, so malformed requests count too. */
  limit?: LimitName;
  /** Fastify's body limit for this route, where the default is too small (the editor's save). */
  bodyLimit?: number;
  /**
   * The route reads a multipart body (uploads). The parser is registered for these routes only: on the
   * root it puts its request decorators on every request, which cost the polled endpoint ≈ 15 % of its CPU.
   */
  multipart?: boolean;
  /**
   * The handler gets the JSON body's bytes as they came (`request.body` a Buffer), for a signature over them
   * (a payment provider's webhook); the entry has no body schema.
   */
  rawBody?: boolean;
  /**
   * The route acts on the game plane (power, the queue, placement, sleeping…), so a process that does not
   * hold it hands the request to the one that does (game-plane.ts). Server and operator endpoints always do,
   * but uploads (`multipart`), which go from here to the node directly.
   */
  gamePlane?: boolean;
  /**
   * What a successful call did, for the server's activity log (server endpoints only): the action and its
   * target, never file contents or secrets. `result` is the handler's answer, absent when the handler
   * recorded the entry itself in its transaction (`recordActivity`); null records nothing.
   */
  activity?: E extends { permission: PermissionKey }
    ? (call: RouteCall<E>, result: RouteResult<E> | undefined) => ActivityNote | null
    : never;
}

export type Route = <E extends Endpoint>(
  endpoint: E,
  /** May answer without a promise where it has what it needs in memory (see `direct` in the router). */
  handler: (call: RouteCall<E>) => RouteResult<E> | Promise<RouteResult<E>>,
  options?: RouteOptions<E>,
) => void;

type Describe = (call: RouteCall<Endpoint>, result: unknown) => ActivityNote | null;

/**
 * One request's parts as a handler sees them, and its activity entry. A class rather than closures made
 * per request: the polled endpoint runs through here, and under tsx every named closure also costs a
 * `defineProperty` for its name (≈ 8 % of that endpoint's CPU when this was three closures).
 */
class Call {
  recorded = false;
  constructor(
    readonly request: FastifyRequest,
    readonly reply: FastifyReply,
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    readonly session: SessionInfo | null,
    readonly server: ServerRow | undefined,
    readonly access: ServerAccess | undefined,
    private readonly path: string,
    private readonly describe: Describe | undefined,
    private readonly registry: NodeRegistry,
    /** Why a server's folder cannot be reached on a node now (ServerHub.folderAway). */
    private readonly away: (serverId: string) => string | null,
  ) {}

  /** Made when a handler asks for it: most requests never call a node. */
  get nodes(): NodeRegistry {
    const server = this.server;
    return this.registry.forRequest(this.request.id, server ? (id) => (id === server.id ? this.away(id) : null) : undefined);
  }

  /** Made when a handler asks for it (destructuring calls the getter), so it works detached from `this`. */
  get recordActivity(): RouteCall<Endpoint>['recordActivity'] {
    return (tx, given) => {
      if (!given && !this.describe) throw new Error(`${this.path}: recordActivity without a note or an activity description`);
      return this.write(tx, given ?? this.note(undefined));
    };
  }

  note(result: unknown): ActivityNote | null {
    return this.describe ? this.describe(this as unknown as RouteCall<Endpoint>, result) : null;
  }

  async write(db: DbOrTx, entry: ActivityNote | null): Promise<void> {
    this.recorded = true;
    if (entry && this.server && this.session)
      await recordActivity(db, { ...entry, serverId: this.server.id, actorId: this.session.user.id, ip: this.request.ip });
  }
}

// Headers of the holder's answer that belong to its own hop (Fastify sets them again for this one).
const OWN_HOP = new Set(['content-length', 'connection', 'transfer-encoding', 'keep-alive', 'date', 'x-request-id']);

/** Sends the holder's answer to a request handed to it as this process's own. */
function answerHanded(reply: FastifyReply, answer: GamePlaneAnswer): FastifyReply {
  reply.code(answer.statusCode);
  for (const [name, value] of Object.entries(answer.headers)) if (!OWN_HOP.has(name)) reply.header(name, value);
  return reply.send(Buffer.from(answer.body, 'base64'));
}

/** The handler's answer in the SUCCESS envelope; outside production also checked against the entry. */
function answerOf(endpoint: Endpoint, production: boolean): (request: FastifyRequest, result: unknown) => unknown {
  return (request, result) => {
    if (endpoint.raw) return result;
    if (!production && endpoint.result) {
      const checked = endpoint.result.safeParse(result);
      if (!checked.success) {
        request.log.error({ issues: checked.error.issues, path: endpoint.path }, 'answer does not fit its contract');
        throw new ApiError('INTERNAL_ERROR', undefined, `The answer of ${endpoint.method} ${endpoint.path} does not fit its contract.`);
      }
    }
    return ok(result);
  };
}

/** Where the route goes: a scope of its own for a multipart or raw body, else the app. */
function register(app: FastifyInstance, definition: FastifyRouteOptions, options: RouteOptions): void {
  if (options.multipart)
    void app.register(async (scope) => {
      await scope.register(fastifyMultipart, { limits: { files: 1, fields: 5, fileSize: 1024 ** 4 } });
      scope.route(definition);
    });
  else if (options.rawBody)
    void app.register(async (scope) => {
      scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      scope.route(definition);
    });
  else app.route(definition);
}

/** The operator's and the metrics scraper's bearer tokens; other access classes are checked with the session. */
function checkBearer(access: Endpoint['access'], config: Services['config'], header: string | undefined): void {
  if (access === 'operator') {
    if (!bearerIs(header, config.operatorToken)) throw new ApiError('NO_PERMISSION');
  } else if (access === 'metrics') {
    // Where no scraper is configured the page does not exist, rather than answering to an empty token.
    const token = config.METRICS_TOKEN;
    if (!token) throw new ApiError('NOT_FOUND');
    if (!bearerIs(header, token)) throw new ApiError('NO_PERMISSION');
  }
}

/**
 * Registers routes from the endpoint table in contracts: the one place where an entry's access class,
 * permission and schemas turn into checks, so a handler never parses or authorizes by hand. Outside
 * production every answer is also checked against the entry's `result`, so a drifted shape fails the
 * tests instead of the web app.
 */
export function router(app: FastifyInstance, ctx: Services): Route {
  const awayOf = (serverId: string) => ctx.game.hub.folderAway(serverId);

  return (endpoint, handler, options = {}) => {
    const permission = endpoint.permission;
    if (permission && !endpoint.path.includes(':serverId')) throw new Error(`${endpoint.path}: a permission needs a :serverId`);
    // The option's type allows it on server endpoints only; the cast drops the entry's generic for the calls below.
    const describe = options.activity as Describe | undefined;
    const handed = !options.multipart && (options.gamePlane ?? (permission !== undefined || endpoint.access === 'operator'));

    const answer = answerOf(endpoint, ctx.config.production);
    // The cast ties the values parsed from the request to the entry's types, which TypeScript cannot follow
    // through the generic entry; each one comes out of that entry's own schema.
    const callOf = (
      request: FastifyRequest,
      reply: FastifyReply,
      params: unknown,
      session: SessionInfo | null,
      server: ServerRow | undefined,
      access: ServerAccess | undefined,
    ) =>
      new Call(
        request,
        reply,
        params,
        endpoint.query ? parseUrlPart(endpoint.query, request.query) : undefined,
        endpoint.body ? parse(endpoint.body, request.body) : undefined,
        session,
        server,
        access,
        endpoint.path,
        describe,
        ctx.game.nodes,
        awayOf,
      ) as unknown as RouteCall<typeof endpoint>;

    const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
      // Before anything else: the holder checks, counts and answers it as if it had come there.
      // Null: this process came to hold the plane while the request waited out a takeover, so it runs here.
      if (handed && !ctx.gamePlane.held()) {
        const answer = await ctx.gamePlane.forward(request);
        if (answer) return answerHanded(reply, answer);
      }
      if (options.limit) await ctx.limit(options.limit, request);
      checkBearer(endpoint.access, ctx.config, request.headers.authorization);
      const session = endpoint.access === 'session' ? await requireSession(ctx, request) : null;
      const params: unknown = endpoint.params ? parseUrlPart(endpoint.params, request.params) : undefined;
      let server: ServerRow | undefined;
      let access: ServerAccess | undefined;
      if (permission && session) {
        const { serverId } = params as { serverId: string };
        ({ row: server, access } = await ctx.game.directory.authorizeAccess(session.user.id, serverId, permission));
      }
      const call = callOf(request, reply, params, session, server, access);
      const result: unknown = await handler(call);
      // The change is made (the node answered SUCCESS): the entry follows it. Should the write fail, the
      // answer still says what happened to the server, and the failure is logged for the operator.
      const made = call as unknown as Call;
      if (describe && !made.recorded)
        await made
          .write(ctx.database.db, made.note(result))
          .catch((err: unknown) => request.log.error({ err, path: endpoint.path }, 'could not write the activity log entry'));
      return answer(request, result);
    };

    // Entries with nothing to wait for before their handler once the session is found in memory — no rate
    // limit, no server to authorize, not handed to another process — are answered without a promise when
    // the handler has what it needs in memory too. That is the polled endpoints' path (`/v1/user/servers`
    // every 5 s from every signed-in tab): the promises of the general path cost it about an eighth of its
    // CPU. Anything else (a session the database must confirm, a locked account, no session) takes `handle`.
    const direct =
      !handed && !options.limit && !permission && !endpoint.raw && (endpoint.access === 'session' || endpoint.access === 'public');
    const directHandler = (request: FastifyRequest, reply: FastifyReply): unknown => {
      let session: SessionInfo | null = null;
      if (endpoint.access === 'session') {
        const known = cachedSession(ctx, request);
        if (!known) return handle(request, reply);
        session = known;
      }
      const params: unknown = endpoint.params ? parseUrlPart(endpoint.params, request.params) : undefined;
      const result: unknown = handler(callOf(request, reply, params, session, undefined, undefined));
      return result instanceof Promise ? result.then((value: unknown) => answer(request, value)) : answer(request, result);
    };

    const definition: FastifyRouteOptions = {
      method: endpoint.method,
      url: endpoint.path,
      ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
      handler: direct ? directHandler : handle,
    };
    register(app, definition, options);
  };
}
