import type { FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import type { Config } from './config.ts';
import type { Db } from './db/db-type.ts';
import type { ServerRow } from './db/rows.ts';
import type { GamePlane } from './game-plane.ts';
import { liveGauges } from './metrics.ts';
import { NodeRegistry } from './nodes.ts';
import { ProxyGateway } from './proxy-gateway.ts';
import type { Realtime } from './realtime.ts';
import { ServerHub } from './server-hub.ts';
import { ServerDirectory } from './servers/directory.ts';
import { FreeTier } from './servers/free-tier.ts';
import { NodeSpecs } from './servers/node-specs.ts';
import { agentPlacement } from './servers/placement.ts';
import { portReallocator } from './servers/port-allocator.ts';
import { PowerDispatcher } from './servers/power.ts';
import { ServerMover } from './servers/server-mover.ts';

/** What the game services are made of: the configuration, the database, the log, the game plane, the sockets. */
export interface GameServiceParts {
  config: Config;
  db: Db;
  log: FastifyBaseLogger;
  gamePlane: GamePlane;
  io: Realtime;
  registry: Registry;
}

/**
 * The services that run servers, wired to each other: nodes and the live state, the free tier's rules,
 * placement, moves through storage, the power line, the server lists and the join proxies' routing table.
 * Agents and join proxies are taken by the process that holds the game plane; the others mirror it.
 */
export async function gameServices({ config, db, log, gamePlane, io, registry }: GameServiceParts) {
  const nodes = new NodeRegistry(config.AGENTS, log);
  const hub = new ServerHub(io, nodes);
  nodes.accepting = () => gamePlane.held();
  nodes.share = (node) => gamePlane.share({ type: 'node', node });
  hub.share = (event) => gamePlane.share(event);
  nodes.attach(io, hub.intake);
  // Sleeping, play time, active servers per account and the start queue (servers/free-tier.ts).
  const freeTier = new FreeTier(config, db, hub, io, log);
  // Caches of a server's row and the join proxies follow a new port, node or storage.
  const moved = (server: ServerRow) => {
    directory.invalidate(server.ownerId);
    proxies.upsert(server);
  };
  // Where servers go (servers/placement.ts), and sleeping servers moving through shared storage.
  const placement = agentPlacement(nodes, hub);
  const mover = new ServerMover(db, nodes, hub, placement, moved, log);
  const power = new PowerDispatcher(
    nodes,
    hub,
    (server) => portReallocator(db, nodes, server),
    moved,
    freeTier.rules,
    config.START_QUEUE_MAX,
    mover,
  );
  power.fetchAnswerMs = config.FETCH_ANSWER_SECONDS * 1000;
  // Starts that waited for a node's hello (its free slots were unknown until then) go at once.
  nodes.onGreeted = (nodeId) => power.drain(nodeId);
  liveGauges(registry, { io, nodes, hub, power });
  // Join proxies get the routing table from memory and every change after it (proxy-gateway.ts).
  let proxiesConnected = () => false;
  const directory = new ServerDirectory(db, hub, nodes, config, () => proxiesConnected(), log);
  const proxies = new ProxyGateway(db, hub, nodes, power, config, log, () => directory.appearance.all());
  // A mirror knows from the holder whether a join proxy is connected there.
  const mirror = { proxies: false };
  proxiesConnected = () => (gamePlane.held() ? proxies.connected() : mirror.proxies);
  proxies.accepting = () => gamePlane.held();
  proxies.share = (connected) => gamePlane.share({ type: 'proxies', connected });
  await proxies.load();
  proxies.attach(io);
  hub.onStateChange((serverId) => proxies.changed(serverId));
  directory.appearance.onChange((serverId, look) => proxies.setAppearance(serverId, look));
  await directory.load();
  directory.extras = (row) => freeTier.extras(row);
  // A node that (re)connects learns its servers' specs again and stops games it should not run.
  const nodeSpecs = new NodeSpecs(db, nodes, hub, log);
  hub.intake.onHello = (nodeId, running) =>
    void nodeSpecs
      .greeted(nodeId, running)
      .catch((err: unknown) => log.error({ err, nodeId }, 'could not send a node the specs of its servers'));

  hub.intake.onRefused = (nodeId, serverId, dropped) =>
    log.warn({ nodeId, serverId, dropped }, 'a node sent events about a server that is not placed on it: dropped');
  return { nodes, hub, freeTier, placement, mover, power, directory, proxies, mirror, nodeSpecs };
}
