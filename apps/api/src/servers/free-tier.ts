import { activeServerLimitMessage, planById, plans, type Plan, type PlanId, type ServerDetails } from '@spawnpoint/contracts';
import { eq, inArray, ne } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import { servers } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import type { Realtime } from '../realtime.ts';
import { userRoom } from '../realtime.ts';
import type { ServerHub } from '../server-hub.ts';
import { planLimits, type PlanLimits } from './plan-limits.ts';
import { PlayTime } from './play-time.ts';
import type { PowerDispatcher, StartRules } from './power.ts';
import type { ServerRow } from '../db/rows.ts';
import { Sleeper } from './sleeper.ts';

/** How often waiting starts are looked at again (besides every stop), e.g. after a node came back. */
const QUEUE_CHECK_MS = 1000;

/**
 * The free tier's rules around power (docs/guide.md, Sleeping, the start queue and play time): sleeping
 * idle servers, daily play time, the number of active servers per account, and draining the start queue
 * when a slot frees. A server's own plan sets its idle time; an account's limits come from the best plan
 * among its servers.
 */
export class FreeTier {
  readonly limitsOf: (ownerId: string) => PlanLimits;
  /** What PowerDispatcher checks before every start, whoever asks (the owner, a player joining). */
  readonly rules: StartRules;
  private sleeper: Sleeper | null = null;
  private playTime: PlayTime | null = null;
  private power: PowerDispatcher | null = null;
  private timer: NodeJS.Timeout | null = null;

  /** Servers on a paid plan, and the plan (every other server is on Free). */
  private serverPlans = new Map<string, { ownerId: string; planId: PlanId }>();
  /** A server's own limits: its plan's idle time before it sleeps. */
  readonly serverLimitsOf: (serverId: string) => PlanLimits;

  constructor(
    config: Config,
    private db: Db,
    private hub: ServerHub,
    private io: Realtime,
    private log: FastifyBaseLogger,
  ) {
    const byPlan = new Map(plans.map((p) => [p.id, planLimits(config, p.id)]));
    const free = byPlan.get('free')!;
    // An account's limits (active servers, daily play time) are those of the best plan among its servers:
    // paying for one server lifts the free tier's account-wide limits (README: "Plans").
    this.limitsOf = (ownerId) => {
      let best: Plan = plans[0];
      for (const { ownerId: owner, planId } of this.serverPlans.values())
        if (owner === ownerId) {
          const plan = planById(planId);
          if (plan && plan.monthlyPriceCents > best.monthlyPriceCents) best = plan;
        }
      return byPlan.get(best.id) ?? free;
    };
    this.serverLimitsOf = (serverId) => byPlan.get(this.serverPlans.get(serverId)?.planId ?? 'free') ?? free;
    this.rules = {
      check: async (server: ServerRow) => {
        await this.playTime?.check(server.ownerId);
        // Queued servers count: they are on their way to running.
        const active = this.hub.activeOf(server.ownerId, server.id);
        const limit = this.limitsOf(server.ownerId).activeServers;
        if (active.length >= limit) {
          const rows = await this.db.select({ name: servers.name }).from(servers).where(inArray(servers.id, active));
          throw new ApiError('SERVER_LIMIT_REACHED', undefined, activeServerLimitMessage(limit, rows.map((r) => r.name).sort()));
        }
      },
    };
  }

  /** `afterSleep`: what happens once a server fell asleep (its folder may go to shared storage). */
  attach(power: PowerDispatcher, afterSleep?: (server: ServerRow) => Promise<void>): void {
    this.power = power;
    const rowOf = async (id: string) => (await this.db.select().from(servers).where(eq(servers.id, id)).limit(1))[0];
    const rowsOf = (ownerId: string) => this.db.select().from(servers).where(eq(servers.ownerId, ownerId));
    this.sleeper = new Sleeper(this.hub, power, rowOf, this.serverLimitsOf, this.log, afterSleep);
    this.playTime = new PlayTime(
      this.db,
      this.hub,
      power,
      rowsOf,
      this.limitsOf,
      (ownerId, status) => this.io.to(userRoom(ownerId)).emit('account:play-time', status),
      this.log,
    );
    const sleeper = this.sleeper;
    const playTime = this.playTime;
    this.hub.onStateChange((serverId, state) => {
      sleeper.stateChanged(serverId, state);
      playTime.stateChanged(serverId);
      // A slot may have freed: the next waiting start of that node goes.
      const nodeId = this.hub.nodeOf(serverId);
      if (nodeId && (state === 'offline' || state === 'sleeping')) power.drain(nodeId);
    });
    this.hub.intake.onInGame((serverId, count) => sleeper.inGame(serverId, count));
    sleeper.start();
    playTime.start();
    this.timer = setInterval(() => {
      for (const nodeId of power.queue.nodesWaiting()) power.drain(nodeId);
    }, QUEUE_CHECK_MS);
    this.timer.unref();
  }

  /** An account was deleted: its play time is no longer counted (saving it would name a missing account). */
  forgetAccount(userId: string): void {
    this.playTime?.forget(userId);
  }

  /** Reads which servers are on a paid plan (once, at start). */
  async loadPlans(): Promise<void> {
    const rows = await this.db
      .select({ id: servers.id, ownerId: servers.ownerId, planId: servers.planId })
      .from(servers)
      .where(ne(servers.planId, 'free'));
    // Loaded again when this process takes the game plane over: plans lapsed meanwhile go.
    this.serverPlans.clear();
    for (const row of rows) this.serverPlans.set(row.id, { ownerId: row.ownerId, planId: row.planId as PlanId });
  }

  /** A server's plan changed (bought, upgraded, renewed into another, lapsed). */
  planChanged(serverId: string, ownerId: string, planId: PlanId): void {
    if (planId === 'free') this.serverPlans.delete(serverId);
    else this.serverPlans.set(serverId, { ownerId, planId });
  }

  /** Reads the account's play time from the database if it is not in memory (before `extras`). */
  async prepare(ownerId: string): Promise<void> {
    await this.playTime?.load(ownerId).catch((err: unknown) => this.log.warn({ err }, 'reading play time failed'));
  }

  /** The figures of the server details that come from the plan, the queue and the play time. */
  extras(row: ServerRow): Pick<ServerDetails, 'sleepsAfterMinutes' | 'queuePosition' | 'playTime'> {
    return {
      sleepsAfterMinutes: this.serverLimitsOf(row.id).idleStopMinutes,
      queuePosition: this.power?.queue.positionOf(row.id) ?? null,
      playTime: this.playTime?.status(row.ownerId) ?? null,
    };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.sleeper?.stop();
    await this.playTime?.stop().catch((err: unknown) => this.log.warn({ err }, 'saving play time failed'));
  }
}
