import type { Socket } from 'node:net';
import { joinMayStart, joinStartRefusal, wrongVersionMessage, type ProxyRoute, type ProxyWakeResult } from '@spawnpoint/contracts';
import { relayToGame } from './game-relay.ts';
import {
  HANDSHAKE_MAX_BYTES,
  legacyPingResponse,
  loginDisconnect,
  normaliseAddress,
  packet,
  readHandshake,
  readLegacyPing,
  readLoginName,
  readPacket,
  serverNameOf,
  statusResponse,
  type Handshake,
} from './protocol.ts';
import { HELD_BYTES_MAX, LINGER_MS, LOGIN_WAIT_MS, protocolOf, proxyMessages, STARTING, STOPPED, type Settings } from './proxy-settings.ts';
import { legacyInfoFor, statusInfoFor } from './status-info.ts';

/**
 * Where a connection is. `handshake`: its first packet is awaited. `legacy`: a pre-1.7 server list ping,
 * answered once it is whole. `status`: a server list request the proxy answers itself. `hold`: a login
 * waiting for its server to wake. `forward`: joined to the game's port. `done`: answered, closing.
 */
export type Phase = 'handshake' | 'legacy' | 'status' | 'hold' | 'forward' | 'done';

export type Wake = (serverId: string, player: string) => Promise<ProxyWakeResult>;

/**
 * One player's connection to the join proxy, as a small state machine: bytes go to the handler of the
 * phase it is in, and each handler moves it on. Nothing about a connection lives outside this object.
 */
export class ProxyConnection {
  phase: Phase = 'handshake';
  private buffered: Buffer = Buffer.alloc(0);
  /** The handshake exactly as the client sent it, replayed to the game unchanged. */
  private head: Buffer = Buffer.alloc(0);
  private handshake: Handshake | null = null;
  private legacyTimer: NodeJS.Timeout | null = null;
  // One status answer per connection, as the game gives; a request again is read and ignored (some clients
  // send two). Each answer can be ~90 KB (the tenant's icon) for a 2-byte request, so answering every
  // request of a client that never reads piled up gigabytes here.
  private statusAnswered = false;
  private deadline: NodeJS.Timeout;
  private linger: NodeJS.Timeout | null = null;
  /** While holding: called when more bytes arrived (the Login Start after its handshake). */
  private heldMore: (() => void) | null = null;
  private readonly left = new AbortController();
  private readonly onData = (chunk: Buffer) => this.received(chunk);

  constructor(
    private readonly client: Socket,
    private readonly settings: Settings,
    private readonly wake: Wake,
  ) {
    this.deadline = this.closeAfter(settings.handshakeTimeoutMs);
    client.once('close', () => {
      clearTimeout(this.deadline);
      if (this.legacyTimer) clearTimeout(this.legacyTimer);
      if (this.linger) clearTimeout(this.linger);
      this.left.abort();
    });
    client.on('data', this.onData);
  }

  private closeAfter(ms: number): NodeJS.Timeout {
    return setTimeout(() => this.client.destroy(), ms);
  }

  private received(chunk: Buffer): void {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    const limit = this.phase === 'hold' ? HELD_BYTES_MAX : HANDSHAKE_MAX_BYTES;
    if (this.buffered.length > limit) {
      this.client.destroy();
      return;
    }
    if (this.phase === 'handshake') this.handshakeStep();
    else if (this.phase === 'legacy') this.legacyStep();
    else if (this.phase === 'status') this.statusStep();
    // hold: bytes wait in `buffered` until the server is up; forward and done read nothing here
    else if (this.phase === 'hold') this.heldMore?.();
  }

  private handshakeStep(): void {
    const read = readHandshake(this.buffered);
    if (read.kind === 'incomplete') return;
    if (read.kind === 'invalid') {
      this.settings.log.debug({ reason: read.reason, address: this.client.remoteAddress }, 'not a Minecraft handshake');
      this.client.destroy();
      return;
    }
    if (read.kind === 'legacy') {
      this.phase = 'legacy';
      this.legacyStep();
      return;
    }
    const handshake = read.value;
    this.handshake = handshake;
    this.head = Buffer.from(this.buffered.subarray(0, read.size));
    this.buffered = this.buffered.subarray(read.size);
    const domain = this.settings.table.playDomain();
    const name = domain ? serverNameOf(normaliseAddress(handshake.address), domain) : null;
    const route = name ? this.settings.table.get(name) : undefined;
    if (route?.state === 'online') return this.forward(route);
    if (handshake.nextState === 1) {
      this.phase = 'status';
      clearTimeout(this.deadline);
      this.deadline = this.closeAfter(this.settings.handshakeTimeoutMs);
      this.statusStep();
      return;
    }
    // Login or transfer.
    if (!domain) return this.disconnect(proxyMessages.notReady);
    if (!name || !route) return this.disconnect(proxyMessages.unknown);
    // A client of another version could not play once the server is up: told which version to choose, and
    // the server is not woken for it (a running server's own answer decides, as a plugin may accept more).
    const wanted = protocolOf(route.version);
    if (wanted !== null && handshake.protocolVersion !== wanted) return this.disconnect(wrongVersionMessage(route.version));
    this.phase = 'hold';
    clearTimeout(this.deadline);
    void this.hold(name).catch((err: unknown) => {
      this.settings.log.warn({ err, name }, 'holding a login failed');
      this.disconnect(proxyMessages.unreachable);
    });
  }

  private statusStep(): void {
    for (;;) {
      const read = readPacket(this.buffered, HANDSHAKE_MAX_BYTES);
      if (read.kind === 'incomplete') return;
      if (read.kind === 'invalid') {
        this.client.destroy();
        return;
      }
      this.buffered = this.buffered.subarray(read.size);
      const { id, body } = read.value;
      if (id === 0x00 && body.length === 0) {
        if (!this.statusAnswered) this.client.write(statusResponse(statusInfoFor(this.settings.table, this.handshake)));
        this.statusAnswered = true;
      } else if (id === 0x01 && body.length === 8) {
        this.phase = 'done';
        this.client.end(packet(0x01, body));
        this.lingerThenClose();
        return;
      } else {
        this.client.destroy();
        return;
      }
    }
  }

  private legacyStep(): void {
    const { complete, ping } = readLegacyPing(this.buffered);
    const answer = () => {
      if (this.phase !== 'legacy') return;
      this.phase = 'done';
      this.client.end(legacyPingResponse(ping.format, legacyInfoFor(this.settings.table, ping)));
      this.lingerThenClose();
    };
    if (complete) answer();
    else this.legacyTimer ??= setTimeout(answer, this.settings.legacyWaitMs);
  }

  /** The player's name once their Login Start is here; null when it does not come within `LOGIN_WAIT_MS` or is no name. */
  private async loginName(): Promise<string | null> {
    const complete = () => readPacket(this.buffered, HANDSHAKE_MAX_BYTES).kind !== 'incomplete';
    if (!complete()) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.heldMore = null;
          resolve();
        };
        const timer = setTimeout(done, LOGIN_WAIT_MS);
        this.left.signal.addEventListener('abort', done, { once: true });
        this.heldMore = () => {
          if (complete()) done();
        };
      });
    }
    return readLoginName(this.buffered);
  }

  /**
   * Holds a login while its server wakes: asks the API to start it (once), follows the pushed states, and
   * forwards the very same connection once the server is online. A refusal, a failed start or the hold
   * time running out is a disconnect message.
   */
  private async hold(name: string): Promise<void> {
    const { table } = this.settings;
    const until = Date.now() + this.settings.holdMs;
    let woke = false;
    let seenStarting = false;
    for (;;) {
      if (this.client.destroyed) return;
      const route = table.get(name);
      if (!route) return this.disconnect(proxyMessages.unknown);
      if (route.state === 'online') return this.forward(route);
      if (STARTING.includes(route.state)) seenStarting = true;
      else if (STOPPED.includes(route.state) && seenStarting) return this.disconnect(proxyMessages.failedToStart);
      else if ((STOPPED.includes(route.state) || route.state === 'uploading') && !joinMayStart(route.joinStart, route.state))
        return this.disconnect(joinStartRefusal);
      else if (!woke && route.state !== 'stopping') {
        // Stopped (or busy, where the API's refusal says why): start it as the owner's Start would.
        woke = true;
        const woken = await this.wakeFor(route);
        if (woken.kind === 'left') return;
        if (woken.kind === 'refused') return this.disconnect(woken.message);
        // The API put the server on its way (queued) before it answered: a stopped state from now on is
        // the start failing, even when its states came and went while the answer was awaited.
        seenStarting = true;
        continue;
      }
      const changed = await table.waitFor(
        name,
        (next) => next?.state !== route.state || next.port !== route.port || next.host !== route.host,
        until - Date.now(),
        this.left.signal,
      );
      if (!changed) return this.client.destroyed ? undefined : this.disconnect(proxyMessages.holdExpired);
    }
  }

  /** Asks the API to start the route's server for the player: started, refused (with what to tell them), or the player left meanwhile. */
  private async wakeFor(route: ProxyRoute): Promise<{ kind: 'started' } | { kind: 'left' } | { kind: 'refused'; message: string }> {
    // The Login Start follows the handshake at once. Without a name the server is not started: the API
    // checks the name against its bans and whitelist, and a client that sends none must not pass that.
    const player = await this.loginName();
    if (this.client.destroyed) return { kind: 'left' };
    if (!player) return { kind: 'refused', message: proxyMessages.noName };
    const result = await this.wake(route.serverId, player);
    if (this.client.destroyed) return { kind: 'left' };
    return result.result === 'refused' ? { kind: 'refused', message: result.message } : { kind: 'started' };
  }

  private forward(route: ProxyRoute): void {
    const wasStatus = this.phase === 'status' || this.handshake?.nextState === 1;
    this.phase = 'forward';
    clearTimeout(this.deadline);
    this.client.pause();
    this.client.off('data', this.onData);
    const first = Buffer.concat([this.head, this.buffered]);
    this.buffered = Buffer.alloc(0);
    relayToGame(this.client, route, {
      first,
      connectTimeoutMs: this.settings.backendConnectTimeoutMs,
      onUnreachable: (err) => {
        this.settings.log.warn({ err, server: route.name, host: route.host, port: route.port }, 'cannot reach a game server');
        if (this.client.destroyed) return;
        if (!wasStatus) return this.disconnect(proxyMessages.unreachable);
        // Answer the server list ourselves rather than leave it without a line.
        this.phase = 'status';
        this.buffered = first.subarray(this.head.length);
        this.client.on('data', this.onData);
        this.client.resume();
        this.deadline = this.closeAfter(this.settings.handshakeTimeoutMs);
        this.statusStep();
      },
    });
  }

  private disconnect(message: string): void {
    if (this.phase === 'done' || this.client.destroyed) return;
    this.phase = 'done';
    clearTimeout(this.deadline);
    this.client.end(loginDisconnect(message));
    this.lingerThenClose();
  }

  private lingerThenClose(): void {
    this.linger = setTimeout(() => this.client.destroy(), LINGER_MS);
    this.linger.unref();
  }
}
