import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  dialInTurn,
  AGENT_NAMESPACE,
  AGENT_PROTOCOL_VERSION,
  agentEndpoints,
  agentBackupEvent,
  agentServerSpec,
  linkSigner,
  STOPPED_BECAUSE_MAX,
  type AgentBackupEvent,
  type AgentUploadEvent,
  type AgentServerSpec,
  findSoftware,
  type AgentToApiEvents,
  type ApiToAgentEvents,
  type ServerState,
} from '@spawnpoint/contracts';
import { answerClientError, bearerIs, httpMetrics, loggerOptions, requestIdOf, requestLogController } from '@spawnpoint/logging';
import { metricsRoute, nodeGauges } from './metrics.ts';
import { SoftwareInstaller } from './software-installer.ts';
import { SoftwareVersions } from './software-versions.ts';
import { JavaInstaller, javaOffer } from './java-installer.ts';
import { findJavaRuntimes } from './java-runtimes.ts';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { io, type Socket } from 'socket.io-client';
import { z } from 'zod';
import { prepareCage, withoutCage, type GameCage } from './cage.ts';
import { nodeResolvers } from './game-network.ts';
import type { AgentConfig } from './config.ts';
import { InvalidStateError, ManagedServer, type ServerEvents } from './managed-server.ts';
import { warmUpPing } from './stats-sampler.ts';
import { flyingSquidRuntime } from './runtimes/flying-squid.ts';
import { javaJarRuntime } from './runtimes/java-jar.ts';
import type { Runtime } from './runtimes/types.ts';
import { agentRouter, BROWSER_HEADERS } from './agent-route.ts';
import { serverRoutes } from './server-routes.ts';
import { ConsoleOutbox } from './console-outbox.ts';
import { playerRoutes } from './player-routes.ts';
import { pluginRoutes } from './plugin-routes.ts';
import { SandboxError } from './sandbox.ts';
import { recoverInterruptedSwaps } from './backup-coordinator.ts';
import { fileRoutes, sendSandboxError } from './server-files.ts';
import { localStorage, s3Storage, storageName } from './storage.ts';
import { ApiClock } from './api-clock.ts';
import { NodeDisk } from './node-disk.ts';

export interface Agent {
  http: FastifyInstance;
  servers: Map<string, ManagedServer>;
  /** How game processes run on this node (the cage, or why they cannot start). */
  cage: GameCage;
  /**
   * Stops the agent. With `stopServers` (the default) its servers are stopped gracefully first;
   * without, they keep running and the next agent adopts them.
   */
  close(options?: { stopServers?: boolean }): Promise<void>;
}

const CONSOLE_FLUSH_MS = 16;
// A batch not acknowledged by then is sent again (the socket dropped in between).
const CONSOLE_ACK_TIMEOUT_MS = 10_000;
// How a backup ended, not acknowledged by then, is sent again (the API is slow, or the socket dropped).
const BACKUP_ACK_TIMEOUT_MS = 30_000;
// Upload reports kept for the API at most (≈ 100 bytes each); beyond it a long outage loses log entries.
const MAX_UNRECORDED_UPLOADS = 10_000;
// How soon a node refused by an API process that does not hold the game plane tries the next address.
const API_RETRY_MS = 1_000;

function fail(reply: FastifyReply, status: number, code: string, message: string) {
  return reply.status(status).send({ status: code, message });
}

export interface AgentOptions {
  /** Runtimes in place of the built-in ones, by runtime id (tests run hostile game code this way). */
  runtimes?: Record<string, Runtime>;
  /**
   * Benchmarks only (bench/cage.ts measures what the cage costs against this): games run without the cage.
   * No configuration reaches it; a node run from `main.ts` always prepares the cage.
   */
  withoutCage?: true;
}

/** The node daemon: an authenticated HTTP API for actions and one socket to the API for events. */
export async function createAgent(config: AgentConfig, options: AgentOptions = {}): Promise<Agent> {
  const mirrors = {
    paper: config.SOFTWARE_MIRROR_PAPER,
    purpur: config.SOFTWARE_MIRROR_PURPUR,
    mojang: config.SOFTWARE_MIRROR_MOJANG,
    fabric: config.SOFTWARE_MIRROR_FABRIC,
  };
  const javaInstaller = config.JAVA_DOWNLOAD === 'true' ? new JavaInstaller(config.javaDir, config.SOFTWARE_MIRROR_ADOPTIUM) : undefined;
  const javaSearch = { installed: config.JAVA_USE_INSTALLED === 'true', downloaded: config.javaDir };
  const runtimes: Record<string, Runtime> = {
    'flying-squid': flyingSquidRuntime,
    'java-jar': javaJarRuntime(config.softwareDir, {
      search: javaSearch,
      installer: new SoftwareInstaller(config.softwareDir, mirrors),
      java: javaInstaller,
    }),
    ...options.runtimes,
  };
  // Read at start (below), then whenever the create page asks and the lists are older than the refresh period.
  const softwareVersions = new SoftwareVersions(config.softwareDir, mirrors, (message) => http.log.warn(message));
  const cage = options.withoutCage
    ? withoutCage()
    : await prepareCage({
        dataDir: config.dataDir,
        production: config.NODE_ENV === 'production',
        allowUncaged: config.ALLOW_UNCAGED_GAMES === 'true',
        gameUser: config.GAME_USER,
        network: {
          subnet: config.GAME_SUBNET,
          bindHost: config.GAME_BIND_HOST,
          allow: config.GAME_NETWORK_ALLOW,
          dns: config.GAME_DNS.length ? config.GAME_DNS : await nodeResolvers(),
        },
      });
  const servers = new Map<string, ManagedServer>();
  /** Backups being made, by server, listed in every hello — and ended ones until the API has recorded how. */
  const runningBackups = new Map<string, string>();
  /**
   * How backups ended that the API has not said it recorded, by backup: sent again after every reconnect
   * (after the hello, which still lists them as being made, so the API never settles one as failed unheard)
   * and when an acknowledgement does not come. A report sent just as the API died is not lost that way.
   */
  const unrecordedEnds = new Map<string, AgentBackupEvent>();
  // Kept on disk too (the agent's own run folder, out of every game's reach), so an agent restarted before
  // the API acknowledged an end still has it, and still lists its backup in the hello.
  const endsFile = path.join(config.runDir, 'backup-ends.json');
  let endsWritten: Promise<void> = Promise.resolve();
  const keepEnds = () => {
    const text = JSON.stringify([...unrecordedEnds.values()]);
    endsWritten = endsWritten
      .then(async () => {
        await mkdir(config.runDir, { recursive: true });
        await writeFile(`${endsFile}.tmp`, text);
        await rename(`${endsFile}.tmp`, endsFile);
      })
      .catch((err: unknown) => http.log.error({ err }, 'could not keep the unacknowledged backup ends on disk'));
    return endsWritten;
  };
  const keptEnds = z.array(agentBackupEvent).safeParse(await readFile(endsFile, 'utf8').then(JSON.parse, () => []));
  for (const event of keptEnds.success ? keptEnds.data : []) {
    unrecordedEnds.set(event.backupId, event);
    runningBackups.set(event.serverId, event.backupId);
  }
  const socket: Socket<ApiToAgentEvents, AgentToApiEvents> = io(`${config.API_URL[0]}${AGENT_NAMESPACE}`, {
    auth: { nodeId: config.AGENT_NODE_ID, token: config.AGENT_TOKEN },
    reconnectionDelay: 500,
    // At most 2 s between tries: after a takeover the node's calls wait for it to connect (a handful of nodes
    // trying every 2 s costs a holder nothing).
    reconnectionDelayMax: 2000,
    transports: ['websocket'],
    // Its own connection: dialInTurn moves it between API processes.
    forceNew: true,
    // Connected once the servers an earlier agent left running are adopted, so the hello lists them.
    autoConnect: false,
  });

  // Only the API process holding the game plane takes the node; the others refuse it and the next is tried.
  const dialing = dialInTurn(socket, config.API_URL, API_RETRY_MS);

  const outbox = new ConsoleOutbox(
    (serverId, lines) =>
      new Promise<boolean>((resolve) => {
        socket.timeout(CONSOLE_ACK_TIMEOUT_MS).emit('agent:console', { serverId, lines }, (err: Error | null) => resolve(!err));
      }),
    () => socket.connected,
  );
  let flushTimer: NodeJS.Timeout | null = null;
  const flush = () => {
    flushTimer = null;
    outbox.flush();
  };
  // What waited while the API was away goes out once it is back.
  socket.on('connect', () => outbox.flush());

  const events: ServerEvents = {
    state: (serverId, state, reason) =>
      socket.connected &&
      socket.emit('agent:state', { serverId, state, ...(reason ? { reason: reason.slice(0, STOPPED_BECAUSE_MAX) } : {}) }),
    lines: (serverId, lines) => {
      outbox.add(serverId, lines);
      flushTimer ??= setTimeout(flush, CONSOLE_FLUSH_MS);
    },
    stats: (serverId, stats) => socket.connected && socket.emit('agent:stats', { serverId, ...stats }),
  };

  const nodeDisk = new NodeDisk(config.dataDir, config.DISK_RESERVE_MB * 1024 * 1024);
  const newServer = (spec: AgentServerSpec) =>
    new ManagedServer(
      spec,
      path.join(config.serversDir, spec.serverId),
      path.join(config.runDir, spec.serverId),
      runtimes[findSoftware(spec.software)?.runtime ?? 'flying-squid'] as Runtime,
      config.GAME_BIND_HOST,
      config.STOP_TIMEOUT_SECONDS * 1000,
      events,
      cage,
      nodeDisk,
    );

  await warmUpPing();

  // A restore or a fetch from storage cut short by the agent's death: the folder last known good stays.
  const swaps = await recoverInterruptedSwaps(config.serversDir);

  // Servers still running from before an agent restart (failures are logged once the log exists, below).
  const adoptionFailures: { err: unknown; serverId: string }[] = [];
  for (const entry of await readdir(config.runDir, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory()) continue;
    const spec = agentServerSpec.safeParse(
      await readFile(path.join(config.runDir, entry.name, 'spec.json'), 'utf8').then(JSON.parse, () => null),
    );
    if (!spec.success || spec.data.serverId !== entry.name) continue;
    // One server that cannot be adopted (its files damaged by its own game) must not keep the node down.
    const server = newServer(spec.data);
    const adopted = await server.adopt().catch((err: unknown) => {
      adoptionFailures.push({ err, serverId: spec.data.serverId });
      return false;
    });
    if (adopted) servers.set(spec.data.serverId, server);
  }

  const statuses = () => [...servers.values()].map((s) => ({ serverId: s.spec.serverId, state: s.state as ServerState }));
  const sendEnd = (event: AgentBackupEvent) => {
    if (!socket.connected) return; // sent once connected again
    // With a timeout, Socket.IO calls back with an error first (the event's own acknowledgement is optional,
    // progress is sent without one, so its type does not say so).
    socket.timeout(BACKUP_ACK_TIMEOUT_MS).emit('agent:backup', event, (...answer: unknown[]) => {
      if (unrecordedEnds.get(event.backupId) !== event) return;
      if (answer[0]) return sendEnd(event);
      unrecordedEnds.delete(event.backupId);
      if (runningBackups.get(event.serverId) === event.backupId) runningBackups.delete(event.serverId);
      void keepEnds();
    });
  };
  /**
   * Uploads written whose report the API has not acknowledged: sent again after every reconnect and when an
   * acknowledgement does not come, so the activity log does not miss one sent just as the connection broke.
   * Kept in memory only (bounded): an agent restarted before the acknowledgement loses the log entry, never the file.
   */
  const unrecordedUploads = new Set<AgentUploadEvent>();
  const sendUpload = (event: AgentUploadEvent) => {
    if (!socket.connected) return; // sent once connected again
    socket.timeout(BACKUP_ACK_TIMEOUT_MS).emit('agent:upload', event, (...answer: unknown[]) => {
      if (!unrecordedUploads.has(event)) return;
      if (answer[0]) return sendUpload(event);
      unrecordedUploads.delete(event);
    });
  };
  socket.on('connect', () => {
    for (const event of unrecordedUploads) sendUpload(event);
    socket.emit('agent:hello', {
      protocol: AGENT_PROTOCOL_VERSION,
      nodeId: config.AGENT_NODE_ID,
      servers: statuses(),
      backups: [...runningBackups].map(([serverId, backupId]) => ({ serverId, backupId })),
      // Which Minecraft versions of Java software this node can run (the create page offers those): with
      // what it has, and what it would download at a start.
      ...javaOffer(findJavaRuntimes(javaSearch), javaInstaller),
      // Its own disk is no place to move servers through; a shared bucket is.
      storage: config.S3_URL ? storageName(config.S3_URL) : null,
    });
    for (const event of unrecordedEnds.values()) sendEnd(event);
  });

  // Every request is counted as it finishes (the request-log controller tells the metrics).
  const metrics = httpMetrics('spawnpoint_agent_');
  // A refusal before a route's own checks is what a browser that wanders onto the node's port (where download
  // links point) meets: it carries the browser headers, like the links' own answers.
  const refuse = (reply: FastifyReply, status: number, code: string, message: string) =>
    fail(reply.headers(BROWSER_HEADERS), status, code, message);
  const http = Fastify({
    logger: loggerOptions({ level: config.LOG_LEVEL, format: config.logFormat, name: `agent ${config.AGENT_NODE_ID}` }),
    logController: requestLogController(config.LOG_LEVEL, metrics.record),
    // The API's request id, so one id ties its log lines of a call to this node's.
    genReqId: requestIdOf,
    clientErrorHandler: answerClientError,
    bodyLimit: 64 * 1024,
    // A path the router cannot read (broken %-escapes) or with a part longer than any id: a browser may send
    // one to the download port, so it is answered in the envelope with the browser headers, not with
    // Fastify's own body echoing the path.
    frameworkErrors: (error, request, reply: FastifyReply) => {
      if (error.code === 'FST_ERR_BAD_URL') void refuse(reply, 400, 'INVALID_INPUT', 'The address is not valid.');
      else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') void refuse(reply, 404, 'NOT_FOUND', 'Not found.');
      else {
        request.log.error({ err: error }, 'request errored before routing');
        void refuse(reply, 500, 'INTERNAL_ERROR', 'The node could not do that.');
      }
    },
  });
  nodeGauges(metrics.registry, servers, () => socket.connected);
  // Said at every start, loudly when the node cannot cage its games.
  if (swaps.putBack.length || swaps.removed.length) http.log.warn(swaps, 'finished folder swaps an earlier run left midway');
  for (const failure of adoptionFailures) http.log.error(failure, 'could not adopt a server left running; it is left as it is');
  if (cage.refusal) http.log.error(cage.refusal);
  else if (cage.mode === 'uncaged' || cage.warning) http.log.warn(cage.summary);
  else http.log.info(cage.summary);
  http.addHook('onRequest', async (request, reply) => {
    // A signed link is checked by its own route (signature, expiry, purpose, server, path).
    if (request.routeOptions.config.signedLink) return;
    // The scraper's own token, never the node's; no token configured, no page.
    if (request.routeOptions.config.metricsPage) {
      if (!config.METRICS_TOKEN) return refuse(reply, 404, 'NOT_FOUND', 'Not found.');
      if (!bearerIs(request.headers.authorization, config.METRICS_TOKEN))
        return refuse(reply, 401, 'NOT_AUTHENTICATED', 'Bad metrics token.');
      return;
    }
    if (!bearerIs(request.headers.authorization, config.AGENT_TOKEN)) return refuse(reply, 401, 'NOT_AUTHENTICATED', 'Bad node token.');
  });
  http.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
    if (error instanceof SandboxError) return sendSandboxError(reply, error);
    if (error instanceof z.ZodError) return fail(reply, 400, 'INVALID_INPUT', error.issues[0]?.message ?? 'Invalid input.');
    if (error instanceof InvalidStateError) return fail(reply, 409, 'INVALID_STATE', error.message);
    if (error.statusCode && error.statusCode < 500) return fail(reply, 400, 'INVALID_INPUT', 'Invalid input.');
    http.log.error({ err: error }, 'agent error');
    return fail(reply, 500, 'INTERNAL_ERROR', 'The node could not do that.');
  });

  const apiClock = new ApiClock((offsetMs) =>
    http.log.warn(
      { offsetMs },
      `this node's clock is ${Math.round(Math.abs(offsetMs) / 1000)} s ${offsetMs > 0 ? 'behind' : 'ahead of'} the control plane's; links are checked in the control plane's time, but fix the clock (NTP)`,
    ),
  );
  socket.on('api:clock', (payload) => apiClock.learn(payload));
  const storage = config.S3_URL ? s3Storage(config.S3_URL) : localStorage(config.storageDir);
  await storage.cleanup();
  fileRoutes(http, {
    servers,
    storage,
    // How a backup ended is kept until the API has recorded it (`unrecordedEnds`). Progress is only worth
    // sending live.
    emitBackup: (event) => {
      if (event.phase === 'running') {
        if (socket.connected) socket.volatile.emit('agent:backup', event);
        return;
      }
      unrecordedEnds.set(event.backupId, event);
      // On disk before it is sent: an acknowledgement never comes before the end is kept.
      void keepEnds().then(() => sendEnd(event));
    },
    // For the activity log, until the API has acknowledged it.
    emitUpload: (event) => {
      if (unrecordedUploads.size >= MAX_UNRECORDED_UPLOADS) return;
      unrecordedUploads.add(event);
      sendUpload(event);
    },
    runningBackups,
    signer: linkSigner(config.AGENT_TOKEN),
    apiNow: () => apiClock.now(),
  });

  playerRoutes(http, servers);

  const route = agentRouter(http);
  route(agentEndpoints.servers, async () => statuses());
  route(agentEndpoints.softwareVersions, () => softwareVersions.offered());
  metricsRoute(route, metrics.registry);
  serverRoutes(route, { servers, newServer, storage, config });
  pluginRoutes(route, servers, cage.mode === 'caged', {
    hosts: config.PLUGIN_DOWNLOAD_HOSTS,
    allowHttp: config.PLUGIN_DOWNLOAD_ALLOW_HTTP === 'true',
  });

  void softwareVersions.refresh();
  await http.listen({ port: config.AGENT_PORT, host: config.AGENT_HOST });
  socket.connect();

  return {
    http,
    servers,
    cage,
    async close({ stopServers = true } = {}) {
      if (stopServers) await Promise.all([...servers.values()].map((s) => s.shutdown()));
      else for (const server of servers.values()) server.detach();
      flush();
      dialing.stop();
      socket.close();
      await http.close();
    },
  };
}
