import { randomUUID } from 'node:crypto';
import path from 'node:path';
import fastifyRateLimit from '@fastify/rate-limit';
import { answerClientError, httpMetrics, loggerOptions, REQUEST_ID_HEADER, requestIdOf, requestLogController } from '@spawnpoint/logging';
import { liveGauges, metricsRoutes } from './metrics.ts';
import { redisCluster, singleProcess } from './cluster.ts';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { errorStatus } from '@spawnpoint/contracts';
import { SessionStore } from './auth/sessions.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { openDatabase, type Database } from './db/index.ts';
import { proxyTrust } from './http/client-address.ts';
import { csrfCheck } from './http/csrf.ts';
import { ApiError, failureBody, installErrorHandling } from './http/errors.ts';
import { createAddressBudget, createLimiter } from './http/rate-limits.ts';
import { securityHeaders } from './http/security-headers.ts';
import { fileMailer, smtpMailer, type Mailer } from './mail/mailer.ts';
import { handlePublicListSockets } from './public-list-sockets.ts';
import { createRealtime, handleBrowserSockets, type Realtime } from './realtime.ts';
import { NodeRegistry } from './nodes.ts';
import { ServerHub } from './server-hub.ts';
import { ServerDirectory } from './servers/directory.ts';
import { portReallocator } from './servers/port-allocator.ts';
import { PowerDispatcher } from './servers/power.ts';
import { agentPlacement } from './servers/placement.ts';
import type { ServerRow } from './db/rows.ts';
import { ServerMover } from './servers/server-mover.ts';
import { FreeTier } from './servers/free-tier.ts';
import { ProxyGateway } from './proxy-gateway.ts';
import { Payments, providerFor } from './billing/payments.ts';
import { Subscriptions } from './billing/subscriptions.ts';
import { Shop } from './billing/shop.ts';
import { billingRoutes } from './routes/billing.ts';
import { serverRoutes } from './routes/servers.ts';
import { accountRoutes } from './routes/account.ts';
import { sessionRoutes } from './routes/sessions.ts';
import { twoFactorRoutes } from './routes/two-factor.ts';
import { router } from './http/route.ts';
import { operatorRoutes } from './routes/operator.ts';
import { appearanceRoutes } from './routes/appearance.ts';
import { pluginRoutes } from './routes/plugins.ts';
import { fileRoutes } from './routes/files.ts';
import { backupRoutes } from './routes/backups.ts';
import { BackupJobs } from './servers/backup-jobs.ts';
import { ScheduleRunner } from './servers/schedule-runner.ts';
import { pruneActivity, recordActivity } from './servers/activity.ts';
import { scheduleRoutes } from './routes/schedules.ts';
import { playerRoutes } from './routes/players.ts';
import { publicSiteRoutes } from './routes/public-site.ts';
import { specOf } from './servers/power.ts';
import { servers as serverTable, users } from './db/schema.ts';
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { authRoutes } from './routes/auth.ts';
import { miscRoutes } from './routes/misc.ts';
import { openApiRoutes } from './openapi.ts';
import { userRoutes } from './routes/user.ts';
import { memberRoutes } from './routes/members.ts';
import { installWeb, type NotFoundPage } from './web.ts';

/** Marks a request another API process handed to this one; its value is known only to this process. */
const HANDED_HEADER = 'x-spawnpoint-handed';

export interface BuildOptions {
  config: Config;
  /** An already-open database (tests pass a cloned template); opened from config otherwise. */
  database?: Database;
  mailer?: Mailer;
}

export interface App {
  app: FastifyInstance;
  io: Realtime;
  ctx: AppContext;
  /** Every route registered (method and URL), for the test that keeps the OpenAPI document complete. */
  routes: readonly { method: string; url: string }[];
  /** Waits for work started after answering (mails). */
  drain(): Promise<void>;
  /** Runs due schedules (tests call its `tick` with a chosen time). */
  schedules: ScheduleRunner;
  close(): Promise<void>;
}

const BODY_LIMIT = 64 * 1024;
// How soon a session ended elsewhere (another replica, the operator command) ends here too.
const SESSION_SWEEP_MS = 15_000;
/** After a takeover, how long a node has to say hello before its servers' last known states are given up. */
const TAKEOVER_HELLO_WAIT_MS = 30_000;
// A call to a node that has not reconnected since the takeover waits this long for it (agents reconnect in seconds).
const TAKEOVER_CALL_WAIT_MS = 15_000;
const ACTIVITY_PRUNE_MS = 60 * 60_000;

export async function buildApp(options: BuildOptions): Promise<App> {
  const { config } = options;
  const database =
    options.database ??
    (await openDatabase({
      url: config.DATABASE_URL,
      dataDir: config.dataDir,
      onConnectionLost: (error) => app.log.warn({ err: error }, 'a database connection was lost; the pool opens a new one'),
      onConflictRetry: (error, attempt) => app.log.warn({ err: error, attempt }, 'a transaction met a lock conflict and runs again'),
    }));
  // Every route's traffic is counted as each request finishes (the request-log controller tells the metrics;
  // metrics.ts adds the live gauges).
  const metrics = httpMetrics('spawnpoint_api_');
  const headers = securityHeaders(config);
  // Every answer says its request id (to quote when reporting a fault; calls to nodes carry it, nodes.ts) and
  // carries the security headers (security-headers.ts), refusals included.
  const everyAnswer = (request: FastifyRequest, reply: FastifyReply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    headers(request, reply);
  };
  // The site's 404 page, once the web app is installed (below).
  const site: { notFoundPage?: NotFoundPage } = {};
  const app = Fastify({
    logger: loggerOptions({ level: config.LOG_LEVEL, format: config.logFormat, name: 'api' }),
    logController: requestLogController(config.LOG_LEVEL, metrics.record),
    genReqId: requestIdOf,
    clientErrorHandler: answerClientError,
    bodyLimit: BODY_LIMIT,
    // Only the load balancers listed in TRUST_PROXY may name the client (http/client-address.ts).
    trustProxy: proxyTrust(config.TRUST_PROXY),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // A path the router cannot read (broken %-escapes) or with a part longer than any id: answered in the
    // envelope with every answer's headers, not Fastify's own body echoing the path (http.test.ts); a person
    // who typed a broken address of the site gets its 404 page. Fastify writes no request line for these
    // (they never reach a route): one is written here.
    frameworkErrors: (error, request, reply: FastifyReply) => {
      everyAnswer(request, reply);
      const code =
        error.code === 'FST_ERR_BAD_URL' ? 'INVALID_INPUT' : error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'NOT_FOUND' : 'INTERNAL_ERROR';
      if (code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'request errored before routing');
      else request.log.info({ code: error.code, method: request.method }, 'request refused before routing');
      const asksForPage = request.method === 'GET' || request.method === 'HEAD';
      if (code === 'INVALID_INPUT' && asksForPage && site.notFoundPage && !request.url.startsWith('/v1/')) {
        void site.notFoundPage(request, reply);
        return;
      }
      void reply
        .code(errorStatus(code))
        .send(failureBody(code, undefined, code === 'INVALID_INPUT' ? 'The address is not valid.' : undefined));
    },
  });
  const log = app.log;
  const allowedOrigins = [new URL(config.publicUrl).origin];
  const crossSite = csrfCheck(allowedOrigins);
  const addressBudget = createAddressBudget(config.RATE_LIMIT_FACTOR);
  // Requests another process handed to this one (game-plane.ts) were counted there.
  const handedHere = new Set<string>();
  // What every request goes through, in one hook: each hook costs every request its own run, and the polled
  // endpoint (`/v1/user/servers`, every 5 s from every signed-in tab) is mostly hooks and headers: every
  // answer's headers, then cross-site writes (csrf.ts) and the per-address budget of API requests.
  app.addHook('onRequest', (request, reply, done) => {
    everyAnswer(request, reply);
    const refused = crossSite(request);
    if (refused) return done(refused);
    const handed = request.headers[HANDED_HEADER];
    if (typeof handed === 'string' && handedHere.has(handed)) return done();
    if (request.url.startsWith('/v1/') && !addressBudget.allow(request.ip)) return done(new ApiError('RATE_LIMIT'));
    done();
  });
  const routes: { method: string; url: string }[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url });
  });
  const mailer =
    options.mailer ??
    (config.SMTP_URL
      ? smtpMailer(config.SMTP_URL, config.MAIL_FROM, log)
      : fileMailer(path.join(config.dataDir, 'mail'), config.MAIL_FROM, log));
  installErrorHandling(app, { production: config.production });
  // Several API processes share sockets, limits, socket tokens and cache invalidations through Redis.
  const cluster = config.REDIS_URL
    ? await redisCluster(config.REDIS_URL, config.REDIS_PREFIX, log, config.GAME_PLANE_LEASE_SECONDS * 1000)
    : singleProcess();
  const gamePlane = cluster.gamePlane;
  await app.register(fastifyRateLimit, {
    global: false,
    ...(cluster.limitStore ? { store: cluster.limitStore } : {}),
  });

  const io = createRealtime(app.server, allowedOrigins);
  cluster.attach(io);
  const nodes = new NodeRegistry(config.AGENTS, log);
  const hub = new ServerHub(io, nodes);
  // Agents and join proxies are taken by the process that holds the game plane; the others mirror it.
  nodes.accepting = () => gamePlane.held();
  nodes.share = (node) => gamePlane.share({ type: 'node', node });
  hub.share = (event) => gamePlane.share(event);
  nodes.attach(io, hub);
  // Sleeping, play time, active servers per account and the start queue (servers/free-tier.ts).
  const freeTier = new FreeTier(config, database.db, hub, io, log);
  // Caches of a server's row and the join proxies follow a new port, node or storage.
  const moved = (server: ServerRow) => {
    directory.invalidate(server.ownerId);
    proxies.upsert(server);
  };
  // Where servers go (servers/placement.ts), and sleeping servers moving through shared storage.
  const placement = agentPlacement(nodes, hub);
  const mover = new ServerMover(database.db, nodes, hub, placement, moved, log);
  const power = new PowerDispatcher(
    nodes,
    hub,
    (server) => portReallocator(database.db, nodes, server),
    moved,
    freeTier.rules,
    config.START_QUEUE_MAX,
    mover,
  );
  power.fetchAnswerMs = config.FETCH_ANSWER_SECONDS * 1000;
  // Starts that waited for a node's hello (its free slots were unknown until then) go at once.
  nodes.onGreeted = (nodeId) => power.drain(nodeId);
  liveGauges(metrics.registry, { io, nodes, hub, power });
  // Join proxies get the routing table from memory and every change after it (proxy-gateway.ts).
  let proxiesConnected = () => false;
  const directory = new ServerDirectory(database.db, hub, nodes, config, () => proxiesConnected(), log);
  const proxies = new ProxyGateway(database.db, hub, nodes, power, config, log, () => directory.keptAppearances());
  // A mirror knows from the holder whether a join proxy is connected there.
  let mirroredProxies = false;
  proxiesConnected = () => (gamePlane.held() ? proxies.connected() : mirroredProxies);
  proxies.accepting = () => gamePlane.held();
  proxies.share = (connected) => gamePlane.share({ type: 'proxies', connected });
  await proxies.load();
  proxies.attach(io);
  hub.onStateChange((serverId) => proxies.changed(serverId));
  directory.onAppearance((serverId, look) => proxies.setAppearance(serverId, look));
  await directory.load();
  directory.extras = (row) => freeTier.extras(row);
  // A node that (re)connects learns the specs of its servers again, so files and backups work before a start.
  // A node that runs a game the control plane has no record of on it (its row is gone, or places it
  // elsewhere) stops that game: the database says what runs where. Its folder stays for the operator.
  hub.onHello = (nodeId, running) => {
    void (async () => {
      // A server whose folder is in shared storage is not on the node (it is fetched when it wakes).
      const rows = await database.db
        .select()
        .from(serverTable)
        .where(and(eq(serverTable.nodeId, nodeId), isNull(serverTable.storedIn)));
      const known = new Set(rows.map((row) => row.id));
      for (const serverId of running.filter((id) => !known.has(id))) {
        log.warn({ nodeId, serverId }, 'the node runs a game the control plane has no record of there: stopping it');
        await nodes.power(nodeId, serverId, 'stop').catch((err: unknown) => log.error({ err, nodeId, serverId }, 'could not stop it'));
      }
      for (const row of rows)
        await nodes
          .install(nodeId, specOf(row))
          .then((max) => hub.recordMaxPlayers(row.id, max))
          .catch((err: unknown) => log.warn({ err, serverId: row.id }, 'reinstall failed'));
    })().catch((err: unknown) => log.error({ err, nodeId }, 'could not send a node the specs of its servers'));
  };

  hub.onRefused = (nodeId, serverId, dropped) =>
    log.warn({ nodeId, serverId, dropped }, 'a node sent events about a server that is not placed on it: dropped');

  // Plans bought or lapsed: the account's limits, the lists, and the node's spec (disk, slots) follow.
  const subscriptions = new Subscriptions(database.db, log, config.AFFILIATE_COMMISSION_PERCENT);
  const limitsChanged = (serverId: string) =>
    void (async () => {
      const [row] = await database.db.select().from(serverTable).where(eq(serverTable.id, serverId));
      if (row && !row.storedIn) await nodes.install(row.nodeId, specOf(row)).then((max) => hub.recordMaxPlayers(row.id, max));
    })().catch((err: unknown) => log.warn({ err, serverId }, 'could not send the node the new limits'));
  subscriptions.onPlanChanged(({ serverId, ownerId, planId }) => {
    freeTier.planChanged(serverId, ownerId, planId);
    directory.invalidate(ownerId);
    limitsChanged(serverId);
  });
  await freeTier.loadPlans();
  const pending = new Set<Promise<unknown>>();
  const background = (task: () => Promise<unknown>) => {
    const run = task().catch((err: unknown) => log.error({ err }, 'background task failed'));
    pending.add(run);
    void run.finally(() => pending.delete(run));
  };
  const backupJobs = new BackupJobs(database.db, hub, nodes, log, background);
  // An upload that went straight to the node is logged as its uploader's once the node has written it, with
  // the address the API saw when it signed the link (signed in it, like the uploader), then acknowledged; a
  // failed write to the log is not, so the node sends it again. An uploader whose account is gone since is
  // logged as no one.
  hub.onUpload = (event, recorded) =>
    background(async () => {
      const [actor] = await database.db.select({ id: users.id }).from(users).where(eq(users.id, event.actorId)).limit(1);
      await recordActivity(database.db, {
        serverId: event.serverId,
        actorId: actor?.id ?? null,
        action: 'file.upload',
        target: event.path,
        ip: event.ip ?? null,
      });
      recorded();
    });
  const ctx: AppContext = {
    config,
    database,
    sessions: new SessionStore(database.db, config.SESSION_TTL_DAYS, (event) => cluster.publish(event)),
    mailer,
    limit: createLimiter(app, config.RATE_LIMIT_FACTOR),
    log,
    game: { nodes, hub, directory, power, proxies, freeTier, backups: backupJobs, placement, mover },
    billing: {
      payments: new Payments(database.db, providerFor(config), log),
      subscriptions,
      shop: new Shop(database.db, config.AFFILIATE_COMMISSION_PERCENT),
      limitsChanged,
    },
    background,
    gamePlane,
  };

  app.addHook('onClose', (_app, done) => {
    addressBudget.close();
    done();
  });

  // Every route comes from its entry in the endpoint table (contracts), through the one router.
  const route = router(app, ctx);
  authRoutes(route, ctx);
  userRoutes(route, ctx);
  miscRoutes(app, route, ctx);
  serverRoutes(route, ctx);
  memberRoutes(route, ctx);
  accountRoutes(route, ctx);
  twoFactorRoutes(route, ctx);
  sessionRoutes(route, ctx);
  operatorRoutes(route, ctx);
  fileRoutes(route, ctx);
  appearanceRoutes(route, ctx);
  pluginRoutes(route, ctx);
  backupRoutes(route, ctx);
  scheduleRoutes(route, ctx);
  playerRoutes(route);
  publicSiteRoutes(route, ctx);
  billingRoutes(route, ctx);
  openApiRoutes(route, config.publicUrl);
  metricsRoutes(route, metrics.registry);
  site.notFoundPage = await installWeb(app, config, async (routeName, pathname) => {
    if (routeName !== 'server-list-name') return true;
    const name = pathname.replace(/\/+$/, '').split('/').pop() ?? '';
    return directory.publicServer(name).then(
      () => true,
      () => false,
    );
  });

  handleBrowserSockets(io, ctx, cluster.spentTokens);
  // What another API process changed and this one keeps a copy of.
  directory.share = (event) => cluster.publish(event);
  cluster.onEvent((event) => {
    if (event.type === 'session-ended') ctx.sessions.endedElsewhere(event.sessionId);
    else if (event.type === 'user-changed') ctx.sessions.forgetUserHere(event.userId);
    else if (event.type === 'lists-changed') directory.invalidateHere(event.userId);
    else directory.accessChangedHere({ serverId: event.serverId, userId: event.userId, role: event.role });
  });
  handlePublicListSockets(io, ctx);

  const sweeper = setInterval(
    () => void ctx.sessions.sweep().catch((err: unknown) => log.error({ err }, 'session sweep failed')),
    SESSION_SWEEP_MS,
  );
  sweeper.unref();
  // Server activity is kept for SERVER_ACTIVITY_RETENTION_DAYS: pruned at start and every hour.
  const pruneActivityNow = () => void pruneActivity(database.db).catch((err: unknown) => log.error({ err }, 'activity pruning failed'));
  pruneActivityNow();
  const pruner = setInterval(pruneActivityNow, ACTIVITY_PRUNE_MS);
  pruner.unref();
  // Due schedules and renewals are looked for by the process holding the game plane (started below); a
  // compare-and-set claim still runs each due time once, should two ever look.
  const schedules = new ScheduleRunner(database.db, hub, nodes, power, backupJobs, log);

  // The game plane (game-plane.ts). Mirrors keep the holder's live state; the holder answers their asks.
  gamePlane.onLive((event) => {
    if (event.type === 'node') return nodes.applyLive(event.node);
    if (event.type === 'proxies') return void (mirroredProxies = event.connected);
    if (event.type === 'snapshot') {
      for (const node of event.nodes) nodes.applyLive(node);
      mirroredProxies = event.proxies;
    }
    hub.applyLive(event);
  });
  gamePlane.snapshot(() => ({ type: 'snapshot', servers: hub.live(), nodes: nodes.live(), proxies: proxies.connected() }));
  gamePlane.serve(async (call) => {
    const handed = randomUUID();
    handedHere.add(handed);
    try {
      const answer = await app.inject({
        method: call.method,
        url: call.url,
        headers: { ...call.headers, [HANDED_HEADER]: handed },
        ...(call.body ? { payload: Buffer.from(call.body, 'base64') } : {}),
        remoteAddress: call.remoteAddress,
      });
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers))
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.map(String) : String(value);
      return { id: call.id, statusCode: answer.statusCode, headers, body: answer.rawPayload.toString('base64') };
    } finally {
      handedHere.delete(handed);
    }
  });
  // Held from the start (one process, or the first of several), or taken over later from another process;
  // agents, proxies and handed requests are taken once this is done (game-plane.ts).
  let starting = true;
  gamePlane.onHeld(async () => {
    if (!starting) {
      // Taken over: start from the database, as a fresh start would, not from what was mirrored — but the
      // starts that were waiting in the old holder's queue wait here again (those it held in memory only).
      const waiting = hub.placedServers().filter((id) => hub.stateOf(id) === 'queued');
      // Calls to the nodes the old holder had wait for them to connect here (seconds), not fail meanwhile.
      nodes.expectReturning(TAKEOVER_CALL_WAIT_MS);
      nodes.applyLive(null);
      mirroredProxies = false;
      hub.takeOver();
      // The last known states stand until each node's hello; one that has not come back by then is gone,
      // and its servers show offline with the console line saying why.
      setTimeout(() => {
        for (const nodeId of hub.nodesOfPlaced()) if (!nodes.isConnected(nodeId)) hub.gone(nodeId);
      }, TAKEOVER_HELLO_WAIT_MS).unref();
      await directory.placeAll();
      await proxies.load();
      await freeTier.loadPlans();
      const rows = waiting.length ? await database.db.select().from(serverTable).where(inArray(serverTable.id, waiting)) : [];
      for (const row of rows) power.waitAgain(row, hub.stateOf(row.id) === 'sleeping' ? 'sleeping' : 'offline');
    }
    // Sleeping, play time and the start queue; schedules and renewals (each claimed by compare-and-set).
    freeTier.attach(power, (server) => mover.store(server));
    schedules.start();
    subscriptions.start();
  });
  await gamePlane.start();
  starting = false;

  async function drain() {
    while (pending.size) await Promise.all([...pending]);
  }

  return {
    app,
    io,
    ctx,
    routes,
    drain,
    schedules,
    async close() {
      clearInterval(sweeper);
      clearInterval(pruner);
      await schedules.stop();
      subscriptions.stop();
      await freeTier.close();
      // Handed to another process at once; nodes leaving as this one closes are not news to browsers.
      hub.closing = true;
      await gamePlane.close();
      await io.close();
      await app.close();
      await cluster.close();
      await drain();
      mailer.close();
      if (!options.database) await database.close();
    },
  };
}
