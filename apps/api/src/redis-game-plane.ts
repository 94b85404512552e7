/**
 * The game plane with REDIS_URL (what it is: game-plane.ts): a lease in Redis (`<prefix>game-plane`) names
 * the one process that holds it; the others mirror its live state and hand it the requests that act on it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  errorMessage,
  gamePlaneAnswer,
  gamePlaneAsk,
  liveMessage,
  type GamePlaneAnswer,
  type GamePlaneCall,
  type LiveEvent,
} from '@spawnpoint/contracts';
import { REQUEST_ID_HEADER } from '@spawnpoint/logging';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { GamePlane } from './game-plane.ts';
import { noteFailedSubscriptions } from './redis-resubscribe.ts';

/** Headers that belong to one hop, never handed on. */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'x-forwarded-for']);
// A forwarded request waits at most this long for the holder's answer (a move of a large world may take minutes).
const FORWARD_MAX_MS = 15 * 60_000;
/** What a hand-over meets when no process holds the game plane this moment. */
const NO_HOLDER = Symbol('no holder');
// A request that meets a takeover waits for the new holder: asks again this often, up to two leases and this.
const TAKEOVER_POLL_MS = 250;
const TAKEOVER_MARGIN_MS = 5_000;
// How often the holder sends mirrors its whole live state, besides every change as it happens.
const SNAPSHOT_MS = 15_000;

const switching = (): GamePlaneAnswer => ({
  id: 'none',
  statusCode: 503,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: Buffer.from(
    JSON.stringify({
      status: 'TEMPORARILY_DISABLED',
      message: `${errorMessage('TEMPORARILY_DISABLED').split('.')[0]}: the service is handing its servers to another of its machines. Try again in a few seconds.`,
    }),
  ).toString('base64'),
});

/** The part of a handed request enough to answer it, when the rest is not one this process can run. */
const looseCall = z.object({ type: z.literal('call'), call: z.object({ id: z.string().min(1).max(64), from: z.string().min(1).max(64) }) });
const refusedCall = (): GamePlaneAnswer => ({
  id: 'none',
  statusCode: 400,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: Buffer.from(JSON.stringify({ status: 'INVALID_INPUT', message: errorMessage('INVALID_INPUT') })).toString('base64'),
});

// Takes the lease when it is free, keeps it when it is ours (set again if Redis lost it); 0: another holds it.
const KEEP_LEASE = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if not holder then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 2 end
return 0
`;
const RELEASE_LEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** `request` as the holder runs it: its headers but the hop's, its body in base64, the client's address. */
function callOf(request: FastifyRequest, id: string, from: string): GamePlaneCall {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (HOP_HEADERS.has(name) || value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const raw = request.body;
  let body = '';
  if (Buffer.isBuffer(raw)) body = raw.toString('base64');
  else if (raw !== undefined && raw !== null) {
    body = Buffer.from(JSON.stringify(raw)).toString('base64');
    headers['content-type'] = 'application/json';
  }
  // The holder's logs name the request as this process's do.
  headers[REQUEST_ID_HEADER] = request.id;
  return {
    id,
    from,
    // HEAD is answered as GET without the body (Fastify drops it here); the holder runs it as GET.
    method: (request.method === 'HEAD' ? 'GET' : request.method) as GamePlaneCall['method'],
    url: request.url,
    headers,
    body,
    remoteAddress: request.ip,
  };
}

type Waiting = { resolve: (answer: GamePlaneAnswer | typeof NO_HOLDER) => void; timer: NodeJS.Timeout };

class RedisGamePlane implements GamePlane {
  readonly mode = 'redis';
  readonly origin = randomBytes(8).toString('hex');
  private readonly key: string;
  private readonly channels: { live: string; asks: string; answers: (to: string) => string };
  private readonly subscriber: Redis;
  // `leased`: the lease in Redis is this process's (it renews it); `holding`: it also acts on it (agents,
  // proxies and handed requests), from when its takeover work is done.
  private leased = false;
  private holding = false;
  private lost = false;
  private closed = false;
  private lastRenewed = 0;
  private readySince = Date.now();
  private lastHolder: string | null = null;
  private readonly heldListeners: (() => void | Promise<void>)[] = [];
  private readonly lostListeners: (() => void)[] = [];
  private readonly liveListeners: ((event: LiveEvent) => void)[] = [];
  private makeSnapshot: (() => LiveEvent) | null = null;
  private run: ((call: GamePlaneCall) => Promise<GamePlaneAnswer>) | null = null;
  private readonly waiting = new Map<string, Waiting>();
  private timer: NodeJS.Timeout | null = null;
  private snapshots: NodeJS.Timeout | null = null;

  constructor(
    private readonly commands: Redis,
    prefix: string,
    private readonly leaseMs: number,
    private readonly log: FastifyBaseLogger,
  ) {
    this.key = `${prefix}game-plane`;
    this.channels = {
      live: `${prefix}game-plane:live`,
      asks: `${prefix}game-plane:asks`,
      answers: (to: string) => `${prefix}game-plane:answers:${to}`,
    };
    this.subscriber = noteFailedSubscriptions(commands.duplicate(), log);
    this.subscriber.on('error', (err: Error) => log.warn({ err }, 'Redis connection error (it reconnects)'));
    this.subscriber.on('ready', () => (this.readySince = Date.now()));
    this.subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channels.live) this.heardLive(text);
      else if (channel === this.channels.asks) this.heardAsk(text);
      else if (channel === this.channels.answers(this.origin)) this.heardAnswer(text);
    });
  }

  held = () => this.holding;
  onHeld = (listener: () => void | Promise<void>) => void this.heldListeners.push(listener);
  onLost = (listener: () => void) => void this.lostListeners.push(listener);
  onLive = (listener: (event: LiveEvent) => void) => void this.liveListeners.push(listener);
  snapshot = (make: () => LiveEvent) => void (this.makeSnapshot = make);
  serve = (runner: (call: GamePlaneCall) => Promise<GamePlaneAnswer>) => void (this.run = runner);

  share = (event: LiveEvent) => {
    if (this.holding) void this.publish(this.channels.live, { holder: this.origin, event });
  };

  async forward(request: FastifyRequest): Promise<GamePlaneAnswer | null> {
    // A takeover takes at most a lease (the dead holder's runs out), a tick to notice it and the reload.
    const deadline = Date.now() + 2 * this.leaseMs + TAKEOVER_MARGIN_MS;
    for (;;) {
      if (this.holding) return null;
      // Taking the lease over and not done yet: wait. An old holder still listening would take the
      // request and drop it, and this process settles nothing it waits for once it holds the lease.
      const answer = this.leased ? NO_HOLDER : await this.handOnce(request);
      if (answer !== NO_HOLDER) return answer;
      if (Date.now() >= deadline || this.closed || this.lost) return switching();
      await new Promise((resolve) => setTimeout(resolve, TAKEOVER_POLL_MS));
    }
  }

  async start(): Promise<void> {
    // A duplicate of a lazily connecting client waits to be connected; another connects by itself.
    if (this.subscriber.status === 'wait') await this.subscriber.connect();
    await this.subscriber.subscribe(this.channels.live, this.channels.answers(this.origin));
    const taken = await this.commands.set(this.key, this.origin, 'PX', this.leaseMs, 'NX');
    if (taken === 'OK') await this.becomeHolder();
    else {
      this.lastHolder = await this.commands.get(this.key);
      this.log.info({ holder: this.lastHolder }, 'another API process holds the game plane: this one mirrors it');
      await this.publish(this.channels.asks, { type: 'snapshot' });
    }
    const tick = () => void this.tick().catch((err: unknown) => this.log.warn({ err }, 'game-plane lease check failed'));
    this.timer = setInterval(tick, this.leaseMs / 4);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.snapshots) clearInterval(this.snapshots);
    this.settleAll();
    this.holding = false;
    // Handed over at once rather than after the lease runs out.
    if (this.leased) await this.release();
    this.leased = false;
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }

  private publish(channel: string, message: unknown): Promise<number> {
    return this.commands.publish(channel, JSON.stringify(message)).catch((err: unknown) => {
      this.log.warn({ err }, 'could not publish on a game-plane channel');
      return 0;
    });
  }

  // The holder changed (or this process takes over): what was handed to the old one is handed again.
  private settleAll(): void {
    for (const pending of this.waiting.values()) {
      clearTimeout(pending.timer);
      pending.resolve(NO_HOLDER);
    }
    this.waiting.clear();
  }

  private heardLive(text: string): void {
    const message = liveMessage.safeParse(parse(text));
    if (!message.success) return this.log.warn('dropped a live event that is not the protocol');
    if (this.holding || message.data.holder === this.origin) return;
    this.lastHolder = message.data.holder;
    for (const listener of this.liveListeners) listener(message.data.event);
  }

  private heardAsk(text: string): void {
    const raw = parse(text);
    const ask = gamePlaneAsk.safeParse(raw);
    if (!this.holding) return;
    if (!ask.success) {
      // Not a call this process can run (an unknown method, too large): said at once rather than never.
      const loose = looseCall.safeParse(raw);
      if (loose.success) void this.publish(this.channels.answers(loose.data.call.from), { ...refusedCall(), id: loose.data.call.id });
      return;
    }
    if (ask.data.type === 'snapshot') {
      if (this.makeSnapshot) this.share(this.makeSnapshot());
      return;
    }
    const call = ask.data.call;
    void (this.run ? this.run(call) : Promise.resolve({ ...switching(), id: call.id }))
      .catch((err: unknown): GamePlaneAnswer => {
        this.log.error({ err, url: call.url }, 'a request handed to the game plane failed');
        return { ...switching(), id: call.id };
      })
      .then((answer) => this.publish(this.channels.answers(call.from), { ...answer, id: call.id }));
  }

  private heardAnswer(text: string): void {
    const answer = gamePlaneAnswer.safeParse(parse(text));
    if (!answer.success) return;
    const pending = this.waiting.get(answer.data.id);
    if (!pending) return;
    this.waiting.delete(answer.data.id);
    clearTimeout(pending.timer);
    pending.resolve(answer.data);
  }

  private giveUp(why: string): void {
    this.lost = true;
    this.leased = false;
    this.holding = false;
    // Handed requests go to the holder from now on (a process that gave up drops them: see heardAsk).
    void this.subscriber.unsubscribe(this.channels.asks).catch(() => undefined);
    if (this.snapshots) clearInterval(this.snapshots);
    this.log.fatal({ origin: this.origin }, why);
    for (const listener of this.lostListeners) listener();
  }

  private async becomeHolder(): Promise<void> {
    // Closed while the lease was being taken: handed back at once, not left to run out.
    if (this.closed) {
      await this.release();
      return;
    }
    this.leased = true;
    this.lastRenewed = Date.now();
    this.settleAll();
    try {
      // What it mirrored is replaced from the database (game-plane-wiring.ts) before it acts on anything.
      for (const listener of this.heldListeners) await listener();
      if (this.lost || this.closed) return;
      // Holding before it listens for handed requests: Redis delivers one published just after the
      // subscription in the same read as the subscription's reply, before this function goes on, and a
      // process not yet holding drops it — its asker (perhaps this process) then waited 15 minutes.
      this.holding = true;
      await this.subscriber.subscribe(this.channels.asks);
    } catch (err) {
      // Not acting on it while the lease is handed back.
      this.holding = false;
      this.log.error({ err }, 'could not take the game plane over');
      await this.release();
      return this.giveUp('this API process could not take the game plane over and gave it up');
    }
    if (this.lost || this.closed) return;
    this.log.info({ origin: this.origin }, 'this API process holds the game plane now');
    this.sendSnapshots();
  }

  /**
   * Mirrors hear every change as it happens, but pub/sub keeps nothing for a process that was away (a Redis
   * restart): the whole state goes out every SNAPSHOT_MS as well, the first a lease after taking over (once
   * the nodes have reconnected and said what runs; until then mirrors keep what they had).
   */
  private sendSnapshots(): void {
    const send = () => {
      if (this.holding && this.makeSnapshot) this.share(this.makeSnapshot());
    };
    setTimeout(send, this.leaseMs).unref();
    this.snapshots = setInterval(send, SNAPSHOT_MS);
    this.snapshots.unref();
  }

  private release(): Promise<unknown> {
    return this.commands.eval(RELEASE_LEASE, 1, this.key, this.origin).catch(() => 0);
  }

  private async tick(): Promise<void> {
    if (this.closed || this.lost) return;
    if (this.leased) return this.renew();
    // After Redis comes back, the holder renews first: a mirror waits one lease before it may take it.
    if (this.subscriber.status !== 'ready' || Date.now() - this.readySince < this.leaseMs) return;
    const current = await this.commands.get(this.key).catch(() => undefined);
    if (current === undefined) return;
    if (current !== this.lastHolder && this.waiting.size) this.settleAll();
    this.lastHolder = current;
    if (current !== null) {
      // Its lease may run out before the next tick (a holder that died renews no more): look again the moment
      // it does, so a takeover takes the rest of the lease, not up to a quarter lease more.
      const left = await this.commands.pttl(this.key).catch(() => -1);
      if (left >= 0 && left < this.leaseMs / 4) setTimeout(() => void this.tick().catch(() => undefined), left + 5).unref();
      return;
    }
    const taken = await this.commands.set(this.key, this.origin, 'PX', this.leaseMs, 'NX').catch(() => null);
    if (taken === 'OK') await this.becomeHolder();
  }

  private async renew(): Promise<void> {
    const kept = await this.commands.eval(KEEP_LEASE, 1, this.key, this.origin, this.leaseMs).catch((err: unknown) => {
      this.log.warn({ err }, 'could not renew the game-plane lease (Redis does not answer)');
      return null;
    });
    if (kept === 0) return this.giveUp('another API process holds the game plane now: this one stops acting on it');
    if (kept !== null) this.lastRenewed = Date.now();
    // Not renewed for a whole lease: another process may hold it by now, so this one must not act again.
    else if (Date.now() - this.lastRenewed >= this.leaseMs)
      this.giveUp('the game-plane lease could not be renewed in time: this one stops acting on it');
  }

  /** Hands `request` to the holder once: its answer, or NO_HOLDER when none holds the plane this moment. */
  private handOnce(request: FastifyRequest): Promise<GamePlaneAnswer | typeof NO_HOLDER> {
    const id = randomUUID();
    const call = callOf(request, id, this.origin);
    return new Promise<GamePlaneAnswer | typeof NO_HOLDER>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve({ ...switching(), id });
      }, FORWARD_MAX_MS);
      this.waiting.set(id, { resolve, timer });
      void this.publish(this.channels.asks, { type: 'call', call }).then((receivers) => {
        // Nobody holds the game plane this moment (a holder is being replaced): the caller waits for one.
        if (receivers > 0 || !this.waiting.has(id)) return;
        this.waiting.delete(id);
        clearTimeout(timer);
        resolve(NO_HOLDER);
      });
    });
  }
}

/** The game plane of one of several API processes sharing `commands`' Redis under `prefix`. */
export function redisGamePlane(commands: Redis, prefix: string, leaseMs: number, log: FastifyBaseLogger): GamePlane {
  return new RedisGamePlane(commands, prefix, leaseMs, log);
}
