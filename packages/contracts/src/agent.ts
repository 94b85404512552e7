import { z } from 'zod';
import { serverState } from './api.ts';
import { serverStats, softwareIds, STOPPED_BECAUSE_MAX } from './servers.ts';

/**
 * The agent protocol. The API calls the agent's HTTP API (bearer node token) for actions; the agent keeps
 * one Socket.IO connection to the API's `/agent` namespace for events. Neither side assumes a shared
 * filesystem or process. Version 2: how a backup ended is acknowledged once recorded (an agent of version 2
 * would send it again forever to an API of version 1). Version 3: upload links sign the uploader's address
 * (an agent of version 2 would refuse every upload link of an API of version 3). So an API and its agents
 * are upgraded together.
 */
export const AGENT_PROTOCOL_VERSION = 3;
export const AGENT_NAMESPACE = '/agent';
/**
 * Encoded bytes of one `agent:console` batch (JSON as sent: an escape character costs 6 bytes, a CJK
 * character 3). Well under the agent socket's message limit; a single longer line is split.
 */
export const AGENT_CONSOLE_BATCH_BYTES = 64 * 1024;

export const agentServerSpec = z.object({
  serverId: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/),
  software: z.enum(softwareIds),
  // A Minecraft version: it names files in the node's software cache, so no path can pass.
  version: z.string().regex(/^[0-9][0-9A-Za-z.+_-]{0,31}$/),
  port: z.number().int().min(1).max(65535),
  memoryMb: z.number().int().min(128).max(65536),
  diskMb: z.number().int().min(64).max(10_485_760),
  maxPlayers: z.number().int().min(1).max(1000),
  motd: z.string().max(256),
  /** Java servers: the owner accepted the Minecraft EULA (the agent writes eula.txt only then). */
  eulaAccepted: z.boolean().default(false),
});
export type AgentServerSpec = z.infer<typeof agentServerSpec>;

export const agentCommandRequest = z.object({ command: z.string().min(1).max(256) });

/** The answer to `PUT /v1/servers/:id`: the slots the server runs with (server.properties, capped by the plan). */
export const agentInstallResult = z.object({ serverId: z.string(), state: serverState, maxPlayers: z.number().int().min(1) });

/** `POST /v1/ports/bindable`: which of these game ports the node could listen on now (another program may hold one). */
export const agentPortsRequest = z.object({ ports: z.array(z.number().int().min(1).max(65535)).min(1).max(256) });
export const agentPortsResult = z.object({ bindable: z.array(z.number().int()) });
/**
 * The Minecraft releases a node can make Java servers of, per software, newest first: what each vendor
 * publishes (read from its metadata, kept when it is unreachable) and what the node's jar cache holds.
 */
const javaSoftwareLists = z.object({
  paper: z.array(z.string()),
  purpur: z.array(z.string()),
  vanilla: z.array(z.string()),
  fabric: z.array(z.string()),
});
/** Each Java software's releases, newest first; `previews`: the snapshots and pre-releases ahead of them. */
export const agentSoftwareVersions = javaSoftwareLists.extend({
  previews: javaSoftwareLists.default({ paper: [], purpur: [], vanilla: [], fabric: [] }),
});

export const agentServerStatus = z.object({ serverId: z.string(), state: serverState });
export const agentServerList = z.array(agentServerStatus);
export const agentConsoleHistory = z.object({ lines: z.array(z.string()) });

/** A backup the agent is making now (listed in its hello, so the API can settle jobs that ended unseen). */
export const agentBackupJob = z.object({ serverId: z.string(), backupId: z.string() });
export const agentHello = z.object({
  protocol: z.literal(AGENT_PROTOCOL_VERSION),
  nodeId: z.string(),
  servers: agentServerList,
  backups: z.array(agentBackupJob).default([]),
  /**
   * Java major versions the node can run servers on (which Minecraft versions of Java software it can run):
   * those installed, and with downloads on, those it downloads at the first start that needs one.
   */
  javaMajors: z.array(z.number().int().min(1).max(99)).max(32).default([]),
  /** Java major versions on the node now (a version needing another one downloads it first). */
  javaInstalled: z.array(z.number().int().min(1).max(99)).max(32).default([]),
  /**
   * The shared storage the node keeps backups and sleeping servers in (`s3://host/bucket`, never the
   * credentials), or null for its own disk. A sleeping server moves between nodes that name the same one.
   */
  storage: z.string().max(512).nullable().default(null),
});
/** `POST …/storage/upload`: the archive the node stored and read back (its SHA-256 checked) before dropping its copy. */
export const agentStorageUploadResult = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), bytes: z.number().int().min(0) });
/** A sleeping server's archive in shared storage, used (fetched, or copied as a backup) only if its SHA-256 is this one. */
export const agentStoredArchiveRequest = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/) });

/** `POST …/backups/:backupId/from-storage`: the backup made from the stored archive, and its size. */
export const agentStoredBackupResult = z.object({ size: z.number().int().min(0) });

export const agentStateEvent = z.object({
  serverId: z.string(),
  state: serverState,
  /** Offline without being asked (a start that failed, a crash, a limit): why, in the console's words. */
  reason: z.string().max(STOPPED_BECAUSE_MAX).optional(),
});
export const agentConsoleEvent = z.object({ serverId: z.string(), lines: z.array(z.string()).max(5000) });
/**
 * `inGame`: how many players are in the game by its own join and leave lines (and its `list` after an
 * agent restart), which is what sleeping counts; `players` is the status ping, as a client's server list
 * sees it. Absent from an agent that does not count them (the server then never sleeps).
 */
export const agentStatsEvent = serverStats.extend({ serverId: z.string(), inGame: z.number().int().min(0).max(100_000).optional() });
export const agentBackupEvent = z.object({
  serverId: z.string(),
  backupId: z.string(),
  phase: z.enum(['running', 'complete', 'failed']),
  bytes: z.number().int(),
  totalBytes: z.number().int(),
  size: z.number().int().optional(),
  sha256: z.string().optional(),
  error: z.string().optional(),
});
export type AgentBackupEvent = z.infer<typeof agentBackupEvent>;
/** A file a browser uploaded straight to the node through a signed link, written in full (for the activity log). */
export const agentUploadEvent = z.object({
  serverId: z.string(),
  path: z.string().max(4096),
  bytes: z.number().int().min(0),
  actorId: z.string().max(64),
  /** The uploader's address as the API saw it when it signed the link. */
  ip: z.string().max(64).optional(),
});
export type AgentUploadEvent = z.infer<typeof agentUploadEvent>;

export interface AgentToApiEvents {
  'agent:hello': (payload: z.infer<typeof agentHello>) => void;
  'agent:state': (payload: z.infer<typeof agentStateEvent>) => void;
  'agent:console': (payload: z.infer<typeof agentConsoleEvent>, ack: () => void) => void;
  'agent:stats': (payload: z.infer<typeof agentStatsEvent>) => void;
  /**
   * A backup's progress (volatile, never acknowledged) and how it ended: that is acknowledged once the API has
   * recorded it, and the node keeps it, and the backup in its hello's list, until then.
   */
  'agent:backup': (payload: AgentBackupEvent, ack?: () => void) => void;
  /** Acknowledged once the API has logged it; the node sends it again until then (while it runs). */
  'agent:upload': (payload: AgentUploadEvent, ack?: () => void) => void;
}

/**
 * The API's clock, sent to a node as it connects: the node checks the expiry of the download links the API
 * signs against the API's time, so a node whose clock is minutes off neither refuses fresh links nor
 * accepts stale ones (ms since the epoch).
 */
export const apiClockEvent = z.object({ now: z.number().int().positive() });

export interface ApiToAgentEvents {
  'api:clock': (payload: z.infer<typeof apiClockEvent>) => void;
}

/** Lines a new console subscriber receives first. */
export const CONSOLE_HISTORY_LINES = 150;
