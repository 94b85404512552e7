import { joinMayStart, type ProxyRoute, type ProxyWakeResult, type ServerState } from '@spawnpoint/contracts';
import minecraftData from 'minecraft-data';
import type { RouteTable } from './route-table.ts';

/**
 * The protocol number of a Minecraft version (1.21.4 → 769), from minecraft-data's table; null for a
 * version the table does not know yet (the status answer then falls back to the client's own number).
 */
export function protocolOf(version: string): number | null {
  return minecraftData.versionsByMinecraftVersion.pc[version]?.version ?? null;
}

/** What the player reads (the server list's MOTD, the disconnect screen). */
export const proxyMessages = {
  unknown: 'No server with this name',
  notReady: 'Spawnpoint is starting up. Try again in a moment.',
  holdExpired: 'The server is starting, try again in a moment.',
  failedToStart: 'The server could not start. Its owner can see why in its console.',
  unreachable: 'The server cannot be reached right now. Try again in a moment.',
  noName: 'Your player name could not be read, so the server was not started. Join again from Minecraft.',
  motd: {
    offline: 'Offline — join to start it',
    sleeping: 'Sleeping — join to wake it',
    /** A stopped server whose owner's setting keeps it stopped when players join. */
    stopped: 'Offline — its owner starts it',
    starting: 'Starting — join in a moment',
    /** Online, but its game port does not answer (the proxy answers the server list itself). */
    unreachable: 'Cannot be reached right now — try again in a moment',
    stopping: 'Stopping — join to start it again',
    busy: 'Busy — try again in a moment',
    locked: 'This server is locked',
  },
} as const;

export interface ProxyLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export interface JoinProxyOptions {
  table: RouteTable;
  /** Asks the API to start a server as its owner's Start would (the API decides), naming the player when known. */
  wake(serverId: string, player: string): Promise<ProxyWakeResult>;
  log: ProxyLog;
  /** The handshake must arrive within this (and a status exchange the proxy answers, within as long again). */
  handshakeTimeoutMs?: number;
  /** How long a login waits for its server to come online (the client gives up at 30 s). */
  holdMs?: number;
  /** New connections one address may open per second; beyond it they are closed at once. */
  connectionsPerSecondPerAddress?: number;
  /** Open client connections at most; beyond it new ones are closed at once. */
  maxConnections?: number;
  /**
   * Open connections one address (an IPv6 /64) may hold at once; beyond it new ones are closed at once. A few
   * dozen addresses holding their connections open must not take the whole `maxConnections` from everyone.
   */
  maxConnectionsPerAddress?: number;
  backendConnectTimeoutMs?: number;
  /** How long to wait for the rest of a legacy ping that may still be arriving. */
  legacyWaitMs?: number;
}

export const PROXY_DEFAULTS = {
  handshakeTimeoutMs: 5_000,
  holdMs: 25_000,
  connectionsPerSecondPerAddress: 20,
  maxConnections: 10_000,
  // Players behind one address (a household, a LAN party, a school) each hold one, and pings come and go.
  maxConnectionsPerAddress: 32,
  backendConnectTimeoutMs: 5_000,
  legacyWaitMs: 250,
} as const;

/** Bytes a held login may send before its server is up (the login start is far smaller). */
export const HELD_BYTES_MAX = 64 * 1024;
/** After a disconnect message, a client that does not close is closed. */
export const LINGER_MS = 2_000;

/** How long a login waits for its Login Start (sent right after the handshake) before waking without the name. */
export const LOGIN_WAIT_MS = 2000;
export const STARTING: readonly ServerState[] = ['queued', 'downloading', 'installing', 'starting', 'waking'];
export const STOPPED: readonly ServerState[] = ['offline', 'sleeping'];

/** The options with every default filled in. */
export type Settings = JoinProxyOptions & { [K in keyof typeof PROXY_DEFAULTS]: number };

/** The server list's line for a server the proxy answers for itself (not running, or not answering). */
export function motdOf(route: ProxyRoute): string {
  switch (route.state) {
    case 'offline':
      return joinMayStart(route.joinStart, 'offline') ? proxyMessages.motd.offline : proxyMessages.motd.stopped;
    case 'sleeping':
    case 'uploading':
      return joinMayStart(route.joinStart, 'sleeping') ? proxyMessages.motd.sleeping : proxyMessages.motd.stopped;
    case 'queued':
    case 'downloading':
    case 'installing':
    case 'starting':
    case 'waking':
      return proxyMessages.motd.starting;
    case 'online':
      return proxyMessages.motd.unreachable;
    case 'stopping':
      return joinMayStart(route.joinStart, 'offline') ? proxyMessages.motd.stopping : proxyMessages.motd.stopped;
    case 'locked':
      return proxyMessages.motd.locked;
    default:
      return proxyMessages.motd.busy;
  }
}
