import { connect, createServer, type Server, type Socket } from 'node:net';
import { pipeline } from 'node:stream';
import {
  joinMayStart,
  joinStartRefusal,
  wrongVersionMessage,
  type ProxyRoute,
  type ProxyWakeResult,
  type ServerState,
} from '@spawnpoint/contracts';
import minecraftData from 'minecraft-data';
import {
  HANDSHAKE_MAX_BYTES,
  legacyPingResponse,
  loginDisconnect,
  normaliseAddress,
  packet,
  proxyV2Header,
  readHandshake,
  readLegacyPing,
  readLoginName,
  readPacket,
  serverNameOf,
  statusResponse,
  type Handshake,
  type StatusInfo,
} from './protocol.ts';
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
const LINGER_MS = 2_000;

/** How long a login waits for its Login Start (sent right after the handshake) before waking without the name. */
const LOGIN_WAIT_MS = 2000;
const STARTING: readonly ServerState[] = ['queued', 'downloading', 'installing', 'starting', 'waking'];
const STOPPED: readonly ServerState[] = ['offline', 'sleeping'];

/**
 * Whom a connection counts against: its IPv4 address (also when written IPv4-mapped), or its IPv6 /64 — one
 * subscriber's whole network, where every address costs nothing to use.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** Counts new connections per address in one-second windows; the map is emptied every second. */
class ConnectionRate {
  private window = 0;
  private counts = new Map<string, number>();
  constructor(private perSecond: number) {}
  allow(address: string, now = Date.now()): boolean {
    const window = Math.floor(now / 1000);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const n = (this.counts.get(address) ?? 0) + 1;
    this.counts.set(address, n);
    return n <= this.perSecond;
  }
}

export interface JoinProxy {
  server: Server;
  port: number;
  /** Open client connections. */
  connections(): number;
  close(): Promise<void>;
}

/** Starts listening; rejects when the port cannot be bound (EADDRINUSE, EACCES). */
export async function startJoinProxy(options: JoinProxyOptions, listen: { port: number; host?: string }): Promise<JoinProxy> {
  const settings = { ...PROXY_DEFAULTS, ...options };
  const rate = new ConnectionRate(settings.connectionsPerSecondPerAddress);
  const open = new Set<Socket>();
  const wakes = new Map<string, Promise<ProxyWakeResult>>();

  // Logins of one player arriving together for one server share one request to the API (another player
  // asks for themselves: the API may refuse one name and not another).
  const wakeOnce = (serverId: string, player: string): Promise<ProxyWakeResult> => {
    const key = `${serverId}\0${player}`;
    let pending = wakes.get(key);
    if (!pending) {
      pending = options.wake(serverId, player).finally(() => wakes.delete(key));
      wakes.set(key, pending);
    }
    return pending;
  };

  const perAddress = new Map<string, number>();
  const server = createServer({ noDelay: true }, (client) => {
    client.on('error', () => undefined); // resets are normal; the connection just ends
    const address = addressKey(client.remoteAddress ?? '');
    const held = perAddress.get(address) ?? 0;
    if (open.size >= settings.maxConnections || held >= settings.maxConnectionsPerAddress || !rate.allow(address)) {
      client.destroy();
      return;
    }
    open.add(client);
    perAddress.set(address, held + 1);
    client.once('close', () => {
      open.delete(client);
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
    handleConnection(client, settings, wakeOnce);
  });

  await new Promise<void>((resolve, reject) => {
    const failed = (err: Error) => reject(err);
    server.once('error', failed);
    server.listen(listen.port, listen.host, () => {
      server.off('error', failed);
      server.on('error', (err) => options.log.warn({ err }, 'join proxy listener error'));
      resolve();
    });
  });
  const bound = server.address();
  return {
    server,
    port: typeof bound === 'object' && bound ? bound.port : listen.port,
    connections: () => open.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}

type Settings = JoinProxyOptions & { [K in keyof typeof PROXY_DEFAULTS]: number };

function handleConnection(client: Socket, settings: Settings, wake: (serverId: string, player: string) => Promise<ProxyWakeResult>): void {
  const { table, log } = settings;
  const left = new AbortController();
  let phase: 'handshake' | 'legacy' | 'status' | 'hold' | 'forward' | 'done' = 'handshake';
  let buffered: Buffer = Buffer.alloc(0);
  let head: Buffer = Buffer.alloc(0);
  let handshake: Handshake | null = null;
  let legacyTimer: NodeJS.Timeout | null = null;
  // One status answer per connection, as the game gives; a request again is read and ignored (some clients
  // send two). Each answer can be ~90 KB (the tenant's icon) for a 2-byte request, so answering every
  // request of a client that never reads piled up gigabytes here.
  let statusAnswered = false;
  let deadline = setTimeout(() => client.destroy(), settings.handshakeTimeoutMs);

  let linger: NodeJS.Timeout | null = null;
  client.once('close', () => {
    clearTimeout(deadline);
    if (legacyTimer) clearTimeout(legacyTimer);
    if (linger) clearTimeout(linger);
    left.abort();
  });

  const onData = (chunk: Buffer) => {
    buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
    const limit = phase === 'hold' ? HELD_BYTES_MAX : HANDSHAKE_MAX_BYTES;
    if (buffered.length > limit) {
      client.destroy();
      return;
    }
    step();
  };
  client.on('data', onData);

  function step(): void {
    if (phase === 'handshake') readHandshakeStep();
    else if (phase === 'legacy') legacyStep();
    else if (phase === 'status') statusStep();
    // hold: bytes wait in `buffered` until the server is up; forward and done read nothing here
    else if (phase === 'hold') heldMore?.();
  }

  // While holding: called when more bytes arrived (the Login Start after its handshake).
  let heldMore: (() => void) | null = null;
  /** The player's name once their Login Start is here; null when it does not come within `LOGIN_WAIT_MS` or is no name. */
  async function loginName(): Promise<string | null> {
    const complete = () => readPacket(buffered, HANDSHAKE_MAX_BYTES).kind !== 'incomplete';
    if (!complete()) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, LOGIN_WAIT_MS);
        left.signal.addEventListener('abort', done, { once: true });
        heldMore = () => complete() && done();
        function done() {
          clearTimeout(timer);
          heldMore = null;
          resolve();
        }
      });
    }
    return readLoginName(buffered);
  }

  function readHandshakeStep(): void {
    const read = readHandshake(buffered);
    if (read.kind === 'incomplete') return;
    if (read.kind === 'invalid') {
      log.debug({ reason: read.reason, address: client.remoteAddress }, 'not a Minecraft handshake');
      client.destroy();
      return;
    }
    if (read.kind === 'legacy') {
      phase = 'legacy';
      legacyStep();
      return;
    }
    handshake = read.value;
    // The handshake exactly as the client sent it, replayed to the game unchanged.
    head = Buffer.from(buffered.subarray(0, read.size));
    buffered = buffered.subarray(read.size);
    const domain = table.playDomain();
    const name = domain ? serverNameOf(normaliseAddress(handshake.address), domain) : null;
    const route = name ? table.get(name) : undefined;
    if (route?.state === 'online') {
      forward(route);
      return;
    }
    if (handshake.nextState === 1) {
      phase = 'status';
      clearTimeout(deadline);
      deadline = setTimeout(() => client.destroy(), settings.handshakeTimeoutMs);
      statusStep();
      return;
    }
    // Login or transfer.
    if (!domain) return disconnect(proxyMessages.notReady);
    if (!name || !route) return disconnect(proxyMessages.unknown);
    // A client of another version could not play once the server is up: told which version to choose, and
    // the server is not woken for it (a running server's own answer decides, as a plugin may accept more).
    const wanted = protocolOf(route.version);
    if (wanted !== null && handshake.protocolVersion !== wanted) return disconnect(wrongVersionMessage(route.version));
    phase = 'hold';
    clearTimeout(deadline);
    void hold(name).catch((err: unknown) => {
      log.warn({ err, name }, 'holding a login failed');
      disconnect(proxyMessages.unreachable);
    });
  }

  /** The proxy's own status answer: the server is not running (or unknown); never wakes anything. */
  function statusInfo(): StatusInfo {
    const protocolVersion = handshake?.protocolVersion ?? 0;
    const domain = table.playDomain();
    if (!domain) return { versionName: 'Spawnpoint', protocolVersion, online: 0, max: 0, motd: proxyMessages.notReady };
    const name = handshake ? serverNameOf(normaliseAddress(handshake.address), domain) : null;
    const route = name ? table.get(name) : undefined;
    if (!route) return { versionName: 'Spawnpoint', protocolVersion, online: 0, max: 0, motd: proxyMessages.unknown };
    return {
      versionName: route.version,
      // The server's own protocol, so a launcher of another version shows it as incompatible in the list.
      protocolVersion: protocolOf(route.version) ?? protocolVersion,
      online: 0,
      max: route.maxPlayers,
      motd: motdOf(route),
      favicon: route.icon,
      serverMotd: route.motd,
    };
  }

  function statusStep(): void {
    for (;;) {
      const read = readPacket(buffered, HANDSHAKE_MAX_BYTES);
      if (read.kind === 'incomplete') return;
      if (read.kind === 'invalid') {
        client.destroy();
        return;
      }
      buffered = buffered.subarray(read.size);
      const { id, body } = read.value;
      if (id === 0x00 && body.length === 0) {
        if (!statusAnswered) client.write(statusResponse(statusInfo()));
        statusAnswered = true;
      } else if (id === 0x01 && body.length === 8) {
        phase = 'done';
        client.end(packet(0x01, body));
        lingerThenClose();
        return;
      } else {
        client.destroy();
        return;
      }
    }
  }

  function legacyStep(): void {
    const { complete, ping } = readLegacyPing(buffered);
    const answer = () => {
      if (phase !== 'legacy') return;
      phase = 'done';
      const domain = table.playDomain();
      const name = domain && ping.host ? serverNameOf(normaliseAddress(ping.host), domain) : null;
      const route = name ? table.get(name) : undefined;
      const protocolVersion = ping.protocolVersion ?? 127;
      const info: StatusInfo = route
        ? {
            versionName: route.version,
            protocolVersion: protocolOf(route.version) ?? protocolVersion,
            online: 0,
            max: route.maxPlayers,
            motd: route.state === 'online' ? 'Online — join with Minecraft 1.7 or newer' : motdOf(route),
          }
        : { versionName: 'Spawnpoint', protocolVersion, online: 0, max: 0, motd: domain ? proxyMessages.unknown : proxyMessages.notReady };
      client.end(legacyPingResponse(ping.format, info));
      lingerThenClose();
    };
    if (complete) answer();
    else legacyTimer ??= setTimeout(answer, settings.legacyWaitMs);
  }

  /**
   * Holds a login while its server wakes: asks the API to start it (once), follows the pushed states, and
   * forwards the very same connection once the server is online. A refusal, a failed start or the hold
   * time running out is a disconnect message.
   */
  async function hold(name: string): Promise<void> {
    const until = Date.now() + settings.holdMs;
    let woke = false;
    let seenStarting = false;
    for (;;) {
      if (client.destroyed) return;
      const route = table.get(name);
      if (!route) return disconnect(proxyMessages.unknown);
      if (route.state === 'online') return forward(route);
      if (STARTING.includes(route.state)) seenStarting = true;
      else if (STOPPED.includes(route.state) && seenStarting) return disconnect(proxyMessages.failedToStart);
      else if ((STOPPED.includes(route.state) || route.state === 'uploading') && !joinMayStart(route.joinStart, route.state))
        return disconnect(joinStartRefusal);
      else if (!woke && route.state !== 'stopping') {
        // Stopped (or busy, where the API's refusal says why): start it as the owner's Start would.
        woke = true;
        // The Login Start follows the handshake at once. Without a name the server is not started: the API
        // checks the name against its bans and whitelist, and a client that sends none must not pass that.
        const player = await loginName();
        if (client.destroyed) return;
        if (!player) return disconnect(proxyMessages.noName);
        const result = await wake(route.serverId, player);
        if (client.destroyed) return;
        if (result.result === 'refused') return disconnect(result.message);
        // The API put the server on its way (queued) before it answered: a stopped state from now on is
        // the start failing, even when its states came and went while the answer was awaited.
        seenStarting = true;
        continue;
      }
      const changed = await table.waitFor(
        name,
        (next) => next?.state !== route.state || next.port !== route.port || next.host !== route.host,
        until - Date.now(),
        left.signal,
      );
      if (!changed) return client.destroyed ? undefined : disconnect(proxyMessages.holdExpired);
    }
  }

  function forward(route: ProxyRoute): void {
    const wasStatus = phase === 'status' || handshake?.nextState === 1;
    phase = 'forward';
    clearTimeout(deadline);
    client.pause();
    client.off('data', onData);
    const first = Buffer.concat([head, buffered]);
    buffered = Buffer.alloc(0);
    // The game's bytes (the heavy direction: chunks, entities) are read into a buffer this connection keeps
    // and written straight on to the player, instead of a new buffer per read through a stream pipeline;
    // that is what keeps a bulk transfer near direct speed (bench/proxy.ts). While the player's socket
    // still holds a chunk (a slow player), reading from the game stops, so the buffer is never overwritten
    // under a pending write and the game feels the player's backpressure.
    const relay = new ReadBuffer();
    const readAgain = () => {
      if (!backend.destroyed) backend.resume();
    };
    const backend = connect({
      host: route.host,
      port: route.port,
      noDelay: true,
      onread: {
        buffer: () => relay.next(),
        callback: (bytes, buffer) => {
          relay.filled(bytes);
          if (client.destroyed) return false;
          client.write(buffer.subarray(0, bytes));
          if (client.writableLength === 0) return true;
          // The write waits for the player and holds this buffer: an empty write after it calls back once
          // it has gone out (writes keep their order), and only then is the game read again.
          client.write(NOTHING, readAgain);
          return false;
        },
      },
    });
    let connected = false;
    const connectTimer = setTimeout(() => backend.destroy(new Error('connect timeout')), settings.backendConnectTimeoutMs);
    backend.on('error', (err) => {
      if (connected) return;
      clearTimeout(connectTimer);
      log.warn({ err, server: route.name, host: route.host, port: route.port }, 'cannot reach a game server');
      if (client.destroyed) return;
      if (wasStatus) {
        // Answer the server list ourselves rather than leave it without a line.
        phase = 'status';
        buffered = first.subarray(head.length);
        client.on('data', onData);
        client.resume();
        deadline = setTimeout(() => client.destroy(), settings.handshakeTimeoutMs);
        statusStep();
      } else disconnect(proxyMessages.unreachable);
    });
    // Both sides close together (a client that leaves while the game port is dialled ends that too).
    const closeBoth = () => {
      clearTimeout(connectTimer);
      client.destroy();
      backend.destroy();
    };
    client.once('close', closeBoth);
    backend.once('connect', () => {
      connected = true;
      clearTimeout(connectTimer);
      if (client.destroyed) return closeBoth();
      backend.once('close', closeBoth);
      // A game server that asked for it learns the player's real address before the first byte of theirs.
      if (route.proxyProtocol && client.remoteAddress && client.localAddress)
        backend.write(
          proxyV2Header(
            { address: client.remoteAddress, port: client.remotePort ?? 0 },
            { address: client.localAddress, port: client.localPort ?? 0 },
          ),
        );
      backend.write(first);
      // The player's bytes (small: moves, chat) go through a pipeline, which respects backpressure too.
      pipeline(client, backend, closeBoth);
      backend.once('end', () => client.end());
    });
  }

  function disconnect(message: string): void {
    if (phase === 'done' || client.destroyed) return;
    phase = 'done';
    clearTimeout(deadline);
    client.end(loginDisconnect(message));
    lingerThenClose();
  }

  function lingerThenClose(): void {
    linger = setTimeout(() => client.destroy(), LINGER_MS);
    linger.unref();
  }
}

const NOTHING = Buffer.alloc(0);

/**
 * The buffer one forwarded connection reads its game's bytes into: 16 KiB at first (a player's ordinary
 * stream is far below that per read), doubled each time a read fills it, up to 256 KiB (a burst such as the
 * chunks sent on joining), and back to 16 KiB after a run of small reads, so a thousand players who joined
 * hold 16 MB between them, not the 256 MB of their joining bursts. Pages of it that no read reached are
 * never touched, so they take no memory.
 */
export class ReadBuffer {
  static readonly first = 16 * 1024;
  static readonly most = 256 * 1024;
  /** Reads in a row that used at most a quarter of a grown buffer, after which it shrinks. */
  static readonly smallReadsToShrink = 32;
  private buffer = Buffer.allocUnsafe(ReadBuffer.first);
  private size = ReadBuffer.first;
  private smallReads = 0;

  /** The buffer for the next read (Node asks once at connect and after every read). */
  next(): Buffer {
    // A new buffer only when the size changes; the old one may still be held by a write to the player
    // (reading waits for that write, and the garbage collector frees the old buffer after it).
    if (this.buffer.length !== this.size) this.buffer = Buffer.allocUnsafe(this.size);
    return this.buffer;
  }

  filled(bytes: number): void {
    const length = this.buffer.length;
    if (bytes >= length) {
      this.smallReads = 0;
      if (length < ReadBuffer.most) this.size = length * 2;
    } else if (length === ReadBuffer.first || bytes > length / 4) {
      this.smallReads = 0;
    } else if (++this.smallReads >= ReadBuffer.smallReadsToShrink) {
      this.smallReads = 0;
      this.size = ReadBuffer.first;
    }
  }
}

function motdOf(route: ProxyRoute): string {
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
