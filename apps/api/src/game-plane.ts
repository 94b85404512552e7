/**
 * Which API process runs the game plane: the agents' and join proxies' sockets, the servers' live state,
 * power, the start queue, sleeping, play time, backups and schedules. One process at a time does, so none
 * of that is ever decided twice:
 * - without REDIS_URL the one process always holds it;
 * - with REDIS_URL the holder is whoever holds a lease in Redis (`<prefix>game-plane`, renewed every quarter
 *   of GAME_PLANE_LEASE_SECONDS). The others are mirrors: they refuse agents and proxies (which then try the
 *   next address in their API_URL list), keep a copy of the live state from the holder's `LiveEvent`s (so
 *   they answer the polled lists and stream consoles to their own browsers), and hand every request that
 *   acts on the game plane to the holder over Redis, which runs it as if it had arrived there (`app.inject`
 *   with the client's address) and sends back its answer.
 * - When the holder dies its lease runs out, another process takes it, reloads what the database says, and
 *   the agents and proxies reconnect to it; games keep running on their nodes meanwhile. A holder that finds
 *   the lease taken by another (it could not renew in time) has lost it and must not act again: `onLost`
 *   (the API's main exits, so its service manager starts it again, as a mirror).
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

export interface GamePlane {
  readonly mode: 'single' | 'redis';
  /** This process's id on the cluster channels. */
  readonly origin: string;
  /** Whether this process runs the game plane now. */
  held(): boolean;
  /**
   * Runs when this process comes to hold the game plane (in `start`, in single mode). The process takes agents,
   * proxies and handed requests only once every listener is done; one that fails gives the lease up.
   */
  onHeld(listener: () => void | Promise<void>): void;
  /** Another process holds the lease this one held: this one must stop acting at once. */
  onLost(listener: () => void): void;
  /** The holder tells the mirrors (a no-op without REDIS_URL). */
  share(event: LiveEvent): void;
  /** A mirror is told (never called on the holder). */
  onLive(listener: (event: LiveEvent) => void): void;
  /** The holder's whole live state, sent when a mirror asks (it just started) and on taking over. */
  snapshot(make: () => LiveEvent): void;
  /** How the holder runs a request handed to it. */
  serve(run: (call: GamePlaneCall) => Promise<GamePlaneAnswer>): void;
  /**
   * A mirror hands a request to the holder and gets its answer. While the plane is between holders (the
   * holder died, or this process is taking over) it waits for the next one, at most a takeover's time;
   * null when this process came to hold the plane meanwhile (the caller runs the request itself).
   */
  forward(request: FastifyRequest): Promise<GamePlaneAnswer | null>;
  /** Takes the lease if it is free (or always, in single mode), then keeps it or watches for it. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export function singleGamePlane(): GamePlane {
  const held: (() => void | Promise<void>)[] = [];
  let started = false;
  return {
    mode: 'single',
    origin: 'single',
    held: () => started,
    onHeld: (listener) => void held.push(listener),
    onLost: () => undefined,
    share: () => undefined,
    onLive: () => undefined,
    snapshot: () => undefined,
    serve: () => undefined,
    forward: () => Promise.reject(new Error('one process holds the game plane itself')),
    async start() {
      for (const listener of held) await listener();
      started = true;
    },
    close: async () => undefined,
  };
}

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

export function redisGamePlane(commands: Redis, prefix: string, leaseMs: number, log: FastifyBaseLogger): GamePlane {
  const origin = randomBytes(8).toString('hex');
  const key = `${prefix}game-plane`;
  const channels = {
    live: `${prefix}game-plane:live`,
    asks: `${prefix}game-plane:asks`,
    answers: (to: string) => `${prefix}game-plane:answers:${to}`,
  };
  const subscriber = commands.duplicate();
  subscriber.on('error', (err: Error) => log.warn({ err }, 'Redis connection error (it reconnects)'));
  // `leased`: the lease in Redis is this process's (it renews it); `holding`: it also acts on it (agents,
  // proxies and handed requests), from when its takeover work is done.
  let leased = false;
  let holding = false;
  let lost = false;
  let lastRenewed = 0;
  let readySince = Date.now();
  subscriber.on('ready', () => (readySince = Date.now()));
  const heldListeners: (() => void | Promise<void>)[] = [];
  const lostListeners: (() => void)[] = [];
  const liveListeners: ((event: LiveEvent) => void)[] = [];
  let makeSnapshot: (() => LiveEvent) | null = null;
  let run: ((call: GamePlaneCall) => Promise<GamePlaneAnswer>) | null = null;
  const waiting = new Map<string, { resolve: (answer: GamePlaneAnswer | typeof NO_HOLDER) => void; timer: NodeJS.Timeout }>();
  let lastHolder: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  let snapshots: NodeJS.Timeout | null = null;
  let closed = false;

  const publish = (channel: string, message: unknown) =>
    commands.publish(channel, JSON.stringify(message)).catch((err: unknown) => {
      log.warn({ err }, 'could not publish on a game-plane channel');
      return 0;
    });
  const share = (event: LiveEvent) => {
    if (holding) void publish(channels.live, { holder: origin, event });
  };
  // The holder changed (or this process takes over): what was handed to the old one is handed again.
  const settleAll = () => {
    for (const pending of waiting.values()) {
      clearTimeout(pending.timer);
      pending.resolve(NO_HOLDER);
    }
    waiting.clear();
  };

  const parse = (text: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };

  subscriber.on('message', (channel: string, text: string) => {
    if (channel === channels.live) {
      const message = liveMessage.safeParse(parse(text));
      if (!message.success) return log.warn('dropped a live event that is not the protocol');
      if (holding || message.data.holder === origin) return;
      lastHolder = message.data.holder;
      for (const listener of liveListeners) listener(message.data.event);
    } else if (channel === channels.asks) {
      const raw = parse(text);
      const ask = gamePlaneAsk.safeParse(raw);
      if (!holding) return;
      if (!ask.success) {
        // Not a call this process can run (an unknown method, too large): said at once rather than never.
        const loose = looseCall.safeParse(raw);
        if (loose.success) void publish(channels.answers(loose.data.call.from), { ...refusedCall(), id: loose.data.call.id });
        return;
      }
      if (ask.data.type === 'snapshot') {
        if (makeSnapshot) share(makeSnapshot());
        return;
      }
      const call = ask.data.call;
      void (run ? run(call) : Promise.resolve({ ...switching(), id: call.id }))
        .catch((err: unknown): GamePlaneAnswer => {
          log.error({ err, url: call.url }, 'a request handed to the game plane failed');
          return { ...switching(), id: call.id };
        })
        .then((answer) => publish(channels.answers(call.from), { ...answer, id: call.id }));
    } else if (channel === channels.answers(origin)) {
      const answer = gamePlaneAnswer.safeParse(parse(text));
      if (!answer.success) return;
      const pending = waiting.get(answer.data.id);
      if (!pending) return;
      waiting.delete(answer.data.id);
      clearTimeout(pending.timer);
      pending.resolve(answer.data);
    }
  });

  const giveUp = (why: string) => {
    lost = true;
    leased = false;
    holding = false;
    // Handed requests go to the holder from now on (a process that gave up drops them: see the handler).
    void subscriber.unsubscribe(channels.asks).catch(() => undefined);
    if (snapshots) clearInterval(snapshots);
    log.fatal({ origin }, why);
    for (const listener of lostListeners) listener();
  };

  const becomeHolder = async () => {
    // Closed while the lease was being taken: handed back at once, not left to run out.
    if (closed) {
      await release();
      return;
    }
    leased = true;
    lastRenewed = Date.now();
    settleAll();
    try {
      // What it mirrored is replaced from the database (game-plane-wiring.ts) before it acts on anything.
      for (const listener of heldListeners) await listener();
      if (lost || closed) return;
      // Holding before it listens for handed requests: Redis delivers one published just after the
      // subscription in the same read as the subscription's reply, before this function goes on, and a
      // process not yet holding drops it — its asker (perhaps this process) then waited 15 minutes.
      holding = true;
      await subscriber.subscribe(channels.asks);
    } catch (err) {
      // Not acting on it while the lease is handed back.
      holding = false;
      log.error({ err }, 'could not take the game plane over');
      await release();
      return giveUp('this API process could not take the game plane over and gave it up');
    }
    if (lost || closed) return;
    log.info({ origin }, 'this API process holds the game plane now');
    // Mirrors hear every change as it happens, but pub/sub keeps nothing for a process that was away (a
    // Redis restart): the whole state goes out every SNAPSHOT_MS as well, the first a lease after taking
    // over (once the nodes have reconnected and said what runs; until then mirrors keep what they had).
    const sendSnapshot = () => {
      if (holding && makeSnapshot) share(makeSnapshot());
    };
    setTimeout(sendSnapshot, leaseMs).unref();
    snapshots = setInterval(sendSnapshot, SNAPSHOT_MS);
    snapshots.unref();
  };

  const release = () =>
    commands
      .eval(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`, 1, key, origin)
      .catch(() => 0);

  const tick = async () => {
    if (closed || lost) return;
    if (leased) {
      const kept = await commands.eval(KEEP_LEASE, 1, key, origin, leaseMs).catch((err: unknown) => {
        log.warn({ err }, 'could not renew the game-plane lease (Redis does not answer)');
        return null;
      });
      if (kept === 0) return giveUp('another API process holds the game plane now: this one stops acting on it');
      if (kept !== null) lastRenewed = Date.now();
      // Not renewed for a whole lease: another process may hold it by now, so this one must not act again.
      else if (Date.now() - lastRenewed >= leaseMs)
        giveUp('the game-plane lease could not be renewed in time: this one stops acting on it');
      return;
    }
    // After Redis comes back, the holder renews first: a mirror waits one lease before it may take it.
    if (subscriber.status !== 'ready' || Date.now() - readySince < leaseMs) return;
    const current = await commands.get(key).catch(() => undefined);
    if (current === undefined) return;
    if (current !== lastHolder && waiting.size) settleAll();
    lastHolder = current;
    if (current !== null) {
      // Its lease may run out before the next tick (a holder that died renews no more): look again the moment
      // it does, so a takeover takes the rest of the lease, not up to a quarter lease more.
      const left = await commands.pttl(key).catch(() => -1);
      if (left >= 0 && left < leaseMs / 4) setTimeout(() => void tick().catch(() => undefined), left + 5).unref();
      return;
    }
    const taken = await commands.set(key, origin, 'PX', leaseMs, 'NX').catch(() => null);
    if (taken === 'OK') await becomeHolder();
  };

  /** Hands `request` to the holder once: its answer, or NO_HOLDER when none holds the plane this moment. */
  const handOnce = async (request: FastifyRequest): Promise<GamePlaneAnswer | typeof NO_HOLDER> => {
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
    const id = randomUUID();
    // The holder's logs name the request as this process's do.
    headers[REQUEST_ID_HEADER] = request.id;
    const call: GamePlaneCall = {
      id,
      from: origin,
      // HEAD is answered as GET without the body (Fastify drops it here); the holder runs it as GET.
      method: (request.method === 'HEAD' ? 'GET' : request.method) as GamePlaneCall['method'],
      url: request.url,
      headers,
      body,
      remoteAddress: request.ip,
    };
    return new Promise<GamePlaneAnswer | typeof NO_HOLDER>((resolve) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve({ ...switching(), id });
      }, FORWARD_MAX_MS);
      waiting.set(id, { resolve, timer });
      void publish(channels.asks, { type: 'call', call }).then((receivers) => {
        // Nobody holds the game plane this moment (a holder is being replaced): the caller waits for one.
        if (receivers > 0 || !waiting.has(id)) return;
        waiting.delete(id);
        clearTimeout(timer);
        resolve(NO_HOLDER);
      });
    });
  };

  return {
    mode: 'redis',
    origin,
    held: () => holding,
    onHeld: (listener) => void heldListeners.push(listener),
    onLost: (listener) => void lostListeners.push(listener),
    share,
    onLive: (listener) => void liveListeners.push(listener),
    snapshot: (make) => void (makeSnapshot = make),
    serve: (runner) => void (run = runner),
    async forward(request) {
      // A takeover takes at most a lease (the dead holder's runs out), a tick to notice it and the reload.
      const deadline = Date.now() + 2 * leaseMs + TAKEOVER_MARGIN_MS;
      for (;;) {
        if (holding) return null;
        // Taking the lease over and not done yet: wait. An old holder still listening would take the
        // request and drop it, and this process settles nothing it waits for once it holds the lease.
        const answer = leased ? NO_HOLDER : await handOnce(request);
        if (answer !== NO_HOLDER) return answer;
        if (Date.now() >= deadline || closed || lost) return switching();
        await new Promise((resolve) => setTimeout(resolve, TAKEOVER_POLL_MS));
      }
    },
    async start() {
      // A duplicate of a lazily connecting client waits to be connected; another connects by itself.
      if (subscriber.status === 'wait') await subscriber.connect();
      await subscriber.subscribe(channels.live, channels.answers(origin));
      const taken = await commands.set(key, origin, 'PX', leaseMs, 'NX');
      if (taken === 'OK') await becomeHolder();
      else {
        lastHolder = await commands.get(key);
        log.info({ holder: lastHolder }, 'another API process holds the game plane: this one mirrors it');
        await publish(channels.asks, { type: 'snapshot' });
      }
      timer = setInterval(() => void tick().catch((err: unknown) => log.warn({ err }, 'game-plane lease check failed')), leaseMs / 4);
      timer.unref();
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      if (snapshots) clearInterval(snapshots);
      settleAll();
      holding = false;
      // Handed over at once rather than after the lease runs out.
      if (leased) await release();
      leased = false;
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
