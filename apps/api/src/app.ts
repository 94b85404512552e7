import path from 'node:path';
import fastifyRateLimit from '@fastify/rate-limit';
import { registerRoutes } from './routes/index.ts';
import { redisCluster, singleProcess, type Cluster } from './cluster.ts';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { SessionStore } from './auth/sessions.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { openDatabase, type Database } from './db/index.ts';
import { apiServer } from './http/api-server.ts';
import { installErrorHandling } from './http/errors.ts';
import { createLimiter } from './http/rate-limits.ts';
import { fileMailer, smtpMailer, type Mailer } from './mail/mailer.ts';
import { handlePublicListSockets } from './public-list-sockets.ts';
import { createRealtime, type Realtime } from './realtime.ts';
import { handleBrowserSockets } from './browser-sockets.ts';
import { startGamePlane } from './game-plane-wiring.ts';
import { gameServices } from './game-services.ts';
import type { ServerDirectory } from './servers/directory.ts';
import { billingServices } from './billing-services.ts';
import { BackupJobs } from './servers/backup-jobs.ts';
import { ScheduleRunner } from './servers/schedule-runner.ts';
import { logUploads } from './servers/activity.ts';
import { backgroundTasks, startChores } from './chores.ts';
import { installWeb } from './web.ts';

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
  const { app, metrics, site, allowedOrigins, handedHere, routes } = apiServer(config);
  const log = app.log;
  const mailer = options.mailer ?? mailerFor(config, log);
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
  const game = await gameServices({ config, db: database.db, log, gamePlane, io, registry: metrics.registry });
  const { nodes, hub, freeTier, placement, mover, power, directory, proxies } = game;

  const billing = billingServices(config, database.db, log, game);
  await freeTier.loadPlans();
  const tasks = backgroundTasks(log);
  const background = tasks.run;
  const backupJobs = new BackupJobs(database.db, hub, nodes, log, background);
  logUploads(hub.intake, database.db, background);
  const ctx: AppContext = {
    config,
    database,
    sessions: new SessionStore(database.db, config.SESSION_TTL_DAYS, (event) => cluster.publish(event)),
    mailer,
    limit: createLimiter(app, config.RATE_LIMIT_FACTOR),
    log,
    game: { nodes, hub, directory, power, proxies, freeTier, backups: backupJobs, placement, mover },
    billing,
    background,
    gamePlane,
  };

  registerRoutes(app, ctx, metrics.registry);
  site.notFoundPage = await installWeb(app, config, pageExists(directory));

  handleBrowserSockets(io, ctx, cluster.spentTokens);
  followOtherProcesses(cluster, ctx.sessions, directory);
  handlePublicListSockets(io, ctx);

  const stopChores = startChores(ctx.sessions, database.db, log);
  // Due schedules and renewals are looked for by the process holding the game plane (started below); a
  // compare-and-set claim still runs each due time once, should two ever look.
  const schedules = new ScheduleRunner(database.db, hub, nodes, power, backupJobs, log);

  await startGamePlane({ ...game, gamePlane, app, handedHere, db: database.db, schedules, subscriptions: billing.subscriptions });

  return {
    app,
    io,
    ctx,
    routes,
    drain: tasks.drain,
    schedules,
    async close() {
      stopChores();
      await schedules.stop();
      billing.subscriptions.stop();
      await freeTier.close();
      // Handed to another process at once; nodes leaving as this one closes are not news to browsers.
      hub.intake.closing = true;
      await gamePlane.close();
      await io.close();
      await app.close();
      await cluster.close();
      await tasks.drain();
      mailer.close();
      if (!options.database) await database.close();
    },
  };
}

/** A page of the site that names something (a listed server's page) exists only while that thing does. */
function pageExists(directory: ServerDirectory) {
  return async (routeName: string, pathname: string): Promise<boolean> => {
    if (routeName !== 'server-list-name') return true;
    const name = pathname.replace(/\/+$/, '').split('/').pop() ?? '';
    return directory.listing.byName(name).then(
      () => true,
      () => false,
    );
  };
}

/** What another API process changed and this one keeps a copy of (sessions, server lists, access). */
function followOtherProcesses(cluster: Cluster, sessions: SessionStore, directory: ServerDirectory): void {
  directory.share = (event) => cluster.publish(event);
  cluster.onEvent((event) => {
    if (event.type === 'session-ended') sessions.endedElsewhere(event.sessionId);
    else if (event.type === 'user-changed') sessions.forgetUserHere(event.userId);
    else if (event.type === 'lists-changed') directory.invalidateHere(event.userId);
    else directory.accessChangedHere({ serverId: event.serverId, userId: event.userId, role: event.role });
  });
}

/** Mail goes out through SMTP_URL when set; otherwise each is written as a file under DATA_DIR/mail. */
function mailerFor(config: Config, log: FastifyBaseLogger): Mailer {
  return config.SMTP_URL
    ? smtpMailer(config.SMTP_URL, config.MAIL_FROM, log)
    : fileMailer(path.join(config.dataDir, 'mail'), config.MAIL_FROM, log);
}
