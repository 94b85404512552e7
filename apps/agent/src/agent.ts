import path from 'node:path';
import {
  AGENT_PROTOCOL_VERSION,
  agentEndpoints,
  findSoftware,
  linkSigner,
  type AgentServerSpec,
  type ServerState,
} from '@spawnpoint/contracts';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { prepareCage, withoutCage, type GameCage } from './cage/cage.ts';
import { nodeResolvers } from './cage/game-network.ts';
import type { AgentConfig } from './config.ts';
import { NodeDisk } from './files/node-disk.ts';
import { agentHttp } from './http/agent-http.ts';
import { agentRouter } from './http/agent-route.ts';
import { ApiClock } from './http/api-clock.ts';
import { playerRoutes } from './http/player-routes.ts';
import { pluginRoutes } from './http/plugin-routes.ts';
import { fileRoutes } from './http/server-files.ts';
import { serverRoutes } from './http/server-routes.ts';
import { apiLink } from './link/api-link.ts';
import { BackupReports, UploadReports } from './link/reports.ts';
import { metricsRoute, nodeGauges } from './metrics.ts';
import type { Runtime } from './runtimes/types.ts';
import { adoptLeftServers } from './server/adoption.ts';
import { recoverInterruptedSwaps } from './server/backup-coordinator.ts';
import { ManagedServer } from './server/managed-server.ts';
import { warmUpPing } from './server/stats-sampler.ts';
import { localStorage, s3Storage, storageName } from './server/storage.ts';
import { javaOffer } from './software/java-installer.ts';
import { findJavaRuntimes } from './software/java-runtimes.ts';
import { softwareRuntimes, type SoftwareSettings } from './software/runtimes.ts';
import { SoftwareVersions } from './software/software-versions.ts';

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
  const { http, metrics } = agentHttp({
    logLevel: config.LOG_LEVEL,
    logFormat: config.logFormat,
    nodeId: config.AGENT_NODE_ID,
    agentToken: config.AGENT_TOKEN,
    metricsToken: config.METRICS_TOKEN,
  });
  const software = softwareSettings(config);
  const { runtimes, javaInstaller, javaSearch } = softwareRuntimes(software, options.runtimes);
  // Read at start (below), then whenever the create page asks and the lists are older than the refresh period.
  const softwareVersions = new SoftwareVersions(config.softwareDir, software.mirrors, (message) => http.log.warn(message));
  const cage = options.withoutCage ? withoutCage() : await prepareCage(await cageSettings(config));
  const link = apiLink({ apiUrls: config.API_URL, nodeId: config.AGENT_NODE_ID, token: config.AGENT_TOKEN });
  const backups = await BackupReports.load(link.socket, config.runDir, (err) =>
    http.log.error({ err }, 'could not keep the unacknowledged backup ends on disk'),
  );
  const uploads = new UploadReports(link.socket);

  const nodeDisk = new NodeDisk(config.dataDir, config.DISK_RESERVE_MB * 1024 * 1024);
  const newServer = (spec: AgentServerSpec) =>
    new ManagedServer(
      spec,
      path.join(config.serversDir, spec.serverId),
      path.join(config.runDir, spec.serverId),
      runtimes[findSoftware(spec.software)?.runtime ?? 'flying-squid'] as Runtime,
      config.GAME_BIND_HOST,
      config.STOP_TIMEOUT_SECONDS * 1000,
      link.events,
      cage,
      nodeDisk,
    );

  await warmUpPing();
  // A restore or a fetch from storage cut short by the agent's death: the folder last known good stays.
  const swaps = await recoverInterruptedSwaps(config.serversDir);
  const { servers, failures } = await adoptLeftServers(config.runDir, newServer);

  const statuses = () => [...servers.values()].map((s) => ({ serverId: s.spec.serverId, state: s.state as ServerState }));
  // The hello says which Minecraft versions of Java software this node can run (the create page offers those):
  // with what it has, and what it would download at a start.
  link.socket.on('connect', () => {
    uploads.resend();
    link.socket.emit('agent:hello', {
      protocol: AGENT_PROTOCOL_VERSION,
      nodeId: config.AGENT_NODE_ID,
      servers: statuses(),
      backups: [...backups.running].map(([serverId, backupId]) => ({ serverId, backupId })),
      ...javaOffer(findJavaRuntimes(javaSearch), javaInstaller),
      // Its own disk is no place to move servers through; a shared bucket is.
      storage: config.S3_URL ? storageName(config.S3_URL) : null,
    });
    backups.resend();
  });

  nodeGauges(metrics.registry, servers, () => link.socket.connected);
  sayHowItStarted(http.log, swaps, failures, cage);
  const apiClock = new ApiClock((offsetMs) => warnOfClock(http.log, offsetMs));
  link.socket.on('api:clock', (payload) => apiClock.learn(payload));
  const storage = config.S3_URL ? s3Storage(config.S3_URL) : localStorage(config.storageDir);
  await storage.cleanup();
  fileRoutes(http, {
    servers,
    storage,
    emitBackup: (event) => backups.emit(event),
    // For the activity log, until the API has acknowledged it.
    emitUpload: (event) => uploads.emit(event),
    runningBackups: backups.running,
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
  link.socket.connect();

  return {
    http,
    servers,
    cage,
    async close({ stopServers = true } = {}) {
      if (stopServers) await Promise.all([...servers.values()].map((s) => s.shutdown()));
      else for (const server of servers.values()) server.detach();
      link.close();
      await http.close();
    },
  };
}

/** Where the node's software comes from and how it finds Java, out of its configuration. */
function softwareSettings(config: AgentConfig): SoftwareSettings {
  return {
    softwareDir: config.softwareDir,
    javaDir: config.javaDir,
    mirrors: {
      paper: config.SOFTWARE_MIRROR_PAPER,
      purpur: config.SOFTWARE_MIRROR_PURPUR,
      mojang: config.SOFTWARE_MIRROR_MOJANG,
      fabric: config.SOFTWARE_MIRROR_FABRIC,
    },
    adoptiumMirror: config.SOFTWARE_MIRROR_ADOPTIUM,
    javaDownload: config.JAVA_DOWNLOAD === 'true',
    javaUseInstalled: config.JAVA_USE_INSTALLED === 'true',
  };
}

/** The cage's own settings: where games' folders are, who they run as, and their network. */
async function cageSettings(config: AgentConfig): Promise<Parameters<typeof prepareCage>[0]> {
  return {
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
  };
}

/** Links are checked in the control plane's time; a node whose own clock is off is told to fix it. */
function warnOfClock(log: FastifyBaseLogger, offsetMs: number): void {
  const seconds = Math.round(Math.abs(offsetMs) / 1000);
  log.warn(
    { offsetMs },
    `this node's clock is ${seconds} s ${offsetMs > 0 ? 'behind' : 'ahead of'} the control plane's; links are checked in the control plane's time, but fix the clock (NTP)`,
  );
}

/** Said at every start, loudly when the node cannot cage its games. */
function sayHowItStarted(
  log: FastifyBaseLogger,
  swaps: Awaited<ReturnType<typeof recoverInterruptedSwaps>>,
  failures: { err: unknown; serverId: string }[],
  cage: GameCage,
): void {
  if (swaps.putBack.length || swaps.removed.length) log.warn(swaps, 'finished folder swaps an earlier run left midway');
  for (const failure of failures) log.error(failure, 'could not adopt a server left running; it is left as it is');
  if (cage.refusal) log.error(cage.refusal);
  else if (cage.mode === 'uncaged' || cage.warning) log.warn(cage.summary);
  else log.info(cage.summary);
}
