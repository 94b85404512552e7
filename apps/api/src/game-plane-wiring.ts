import { randomUUID } from 'node:crypto';
import { inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Subscriptions } from './billing/subscriptions.ts';
import type { Db } from './db/db-type.ts';
import { servers as serverTable } from './db/schema.ts';
import type { GamePlane } from './game-plane.ts';
import { HANDED_HEADER } from './http/api-server.ts';
import type { NodeRegistry } from './nodes.ts';
import type { ProxyGateway } from './proxy-gateway.ts';
import type { ServerHub } from './server-hub.ts';
import type { ServerDirectory } from './servers/directory.ts';
import type { FreeTier } from './servers/free-tier.ts';
import type { PowerDispatcher } from './servers/power.ts';
import type { ScheduleRunner } from './servers/schedule-runner.ts';
import type { ServerMover } from './servers/server-mover.ts';

/** After a takeover, how long a node has to say hello before its servers' last known states are given up. */
const TAKEOVER_HELLO_WAIT_MS = 30_000;
// A call to a node that has not reconnected since the takeover waits this long for it (agents reconnect in seconds).
const TAKEOVER_CALL_WAIT_MS = 15_000;

/** What the game plane moves between API processes, and what the holder runs. */
export interface GamePlaneParts {
  gamePlane: GamePlane;
  app: FastifyInstance;
  /** The marks of requests handed to this process (http/api-server.ts). */
  handedHere: Set<string>;
  db: Db;
  nodes: NodeRegistry;
  hub: ServerHub;
  proxies: ProxyGateway;
  directory: ServerDirectory;
  freeTier: FreeTier;
  power: PowerDispatcher;
  mover: ServerMover;
  schedules: ScheduleRunner;
  subscriptions: Subscriptions;
  /** Whether a join proxy is connected to the holder, as a mirror knows it. */
  mirror: { proxies: boolean };
}

/**
 * The game plane (game-plane.ts): mirrors keep the holder's live state and hand it requests; the holder
 * answers them. Held from the start (one process, or the first of several), or taken over later from
 * another process; agents, proxies and handed requests are taken once this is done.
 */
export async function startGamePlane(parts: GamePlaneParts): Promise<void> {
  const { gamePlane, app, handedHere, nodes, hub, proxies, mirror } = parts;
  gamePlane.onLive((event) => {
    if (event.type === 'node') return nodes.applyLive(event.node);
    if (event.type === 'proxies') return void (mirror.proxies = event.connected);
    if (event.type === 'snapshot') {
      for (const node of event.nodes) nodes.applyLive(node);
      mirror.proxies = event.proxies;
    }
    hub.applyLive(event);
  });
  gamePlane.snapshot(() => ({ type: 'snapshot', servers: hub.live(), nodes: nodes.live(), proxies: proxies.connected() }));
  gamePlane.serve(async (call) => {
    const handed = randomUUID();
    handedHere.add(handed);
    try {
      const answer = await app.inject({
        method: call.method,
        url: call.url,
        headers: { ...call.headers, [HANDED_HEADER]: handed },
        ...(call.body ? { payload: Buffer.from(call.body, 'base64') } : {}),
        remoteAddress: call.remoteAddress,
      });
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers))
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.map(String) : String(value);
      return { id: call.id, statusCode: answer.statusCode, headers, body: answer.rawPayload.toString('base64') };
    } finally {
      handedHere.delete(handed);
    }
  });
  let starting = true;
  gamePlane.onHeld(async () => {
    if (!starting) await takeOver(parts);
    // Sleeping, play time and the start queue; schedules and renewals (each claimed by compare-and-set).
    parts.freeTier.attach(parts.power, (server) => parts.mover.store(server));
    parts.schedules.start();
    parts.subscriptions.start();
  });
  await gamePlane.start();
  starting = false;
}

/**
 * Taken over: start from the database, as a fresh start would, not from what was mirrored — but the starts
 * that were waiting in the old holder's queue wait here again (those it held in memory only).
 */
async function takeOver({ db, nodes, hub, proxies, directory, freeTier, power, mirror }: GamePlaneParts): Promise<void> {
  const waiting = hub.placedServers().filter((id) => hub.stateOf(id) === 'queued');
  // Calls to the nodes the old holder had wait for them to connect here (seconds), not fail meanwhile.
  nodes.expectReturning(TAKEOVER_CALL_WAIT_MS);
  nodes.applyLive(null);
  mirror.proxies = false;
  hub.takeOver();
  // The last known states stand until each node's hello; one that has not come back by then is gone,
  // and its servers show offline with the console line saying why.
  setTimeout(() => {
    for (const nodeId of hub.nodesOfPlaced()) if (!nodes.isConnected(nodeId)) hub.intake.gone(nodeId);
  }, TAKEOVER_HELLO_WAIT_MS).unref();
  await directory.placeAll();
  await proxies.load();
  await freeTier.loadPlans();
  const rows = waiting.length ? await db.select().from(serverTable).where(inArray(serverTable.id, waiting)) : [];
  for (const row of rows) power.waitAgain(row, hub.stateOf(row.id) === 'sleeping' ? 'sleeping' : 'offline');
}
