import { timingSafeEqual } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  AGENT_NAMESPACE,
  AGENT_PROTOCOL_VERSION,
  agentCommandRequest,
  agentPortsRequest,
  agentServerSpec,
  type AgentServerSpec,
  findSoftware,
  powerAction,
  serverIdParams,
  type AgentToApiEvents,
  type ServerState,
} from '@spawnpoint/contracts';
import { loggerOptions } from '@spawnpoint/logging';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { io, type Socket } from 'socket.io-client';
import { z } from 'zod';
import type { AgentConfig } from './config.ts';
import { InvalidStateError, ManagedServer, type ServerEvents } from './managed-server.ts';
import { warmUpPing } from './stats-sampler.ts';
import { flyingSquidRuntime } from './runtimes/flying-squid.ts';
import { javaJarRuntime } from './runtimes/java-jar.ts';
import type { Runtime } from './runtimes/types.ts';
import { ConsoleOutbox } from './console-outbox.ts';
import { playerRoutes } from './player-routes.ts';
import { canBind } from './ports.ts';
import { removeTree, SandboxError } from './sandbox.ts';
import { fileRoutes, sendSandboxError } from './server-files.ts';
import { localStorage, s3Storage } from './storage.ts';

export interface Agent {
  http: FastifyInstance;
  servers: Map<string, ManagedServer>;
  /**
   * Stops the agent. With `stopServers` (the default) its servers are stopped gracefully first;
   * without, they keep running and the next agent adopts them.
   */
  close(options?: { stopServers?: boolean }): Promise<void>;
}

const CONSOLE_FLUSH_MS = 16;
// A batch not acknowledged by then is sent again (the socket dropped in between).
const CONSOLE_ACK_TIMEOUT_MS = 10_000;

function tokenMatches(expected: string, header: string | undefined): boolean {
  const given = Buffer.from(header?.startsWith('Bearer ') ? header.slice(7) : '');
  const want = Buffer.from(expected);
  return given.length === want.length && timingSafeEqual(given, want);
}

function fail(reply: FastifyReply, status: number, code: string, message: string) {
  return reply.status(status).send({ status: code, message });
}

/** The node daemon: an authenticated HTTP API for actions and one socket to the API for events. */
export async function createAgent(config: AgentConfig): Promise<Agent> {
  const runtimes: Record<string, Runtime> = {
    'flying-squid': flyingSquidRuntime,
    'java-jar': javaJarRuntime(config.softwareDir),
  };
  const servers = new Map<string, ManagedServer>();
  const runningBackups = new Map<string, string>();
  const installing = new Map<string, Promise<{ server: ManagedServer; err: unknown }>>();
  const socket: Socket<Record<string, never>, AgentToApiEvents> = io(`${config.API_URL}${AGENT_NAMESPACE}`, {
    auth: { nodeId: config.AGENT_NODE_ID, token: config.AGENT_TOKEN },
    reconnectionDelay: 500,
    reconnectionDelayMax: 5000,
    transports: ['websocket'],
    // Connected once the servers an earlier agent left running are adopted, so the hello lists them.
    autoConnect: false,
  });

  const outbox = new ConsoleOutbox(
    (serverId, lines) =>
      new Promise<boolean>((resolve) => {
        socket.timeout(CONSOLE_ACK_TIMEOUT_MS).emit('agent:console', { serverId, lines }, (err: Error | null) => resolve(!err));
      }),
    () => socket.connected,
  );
  let flushTimer: NodeJS.Timeout | null = null;
  const flush = () => {
    flushTimer = null;
    outbox.flush();
  };
  // What waited while the API was away goes out once it is back.
  socket.on('connect', () => outbox.flush());

  const events: ServerEvents = {
    state: (serverId, state) => socket.connected && socket.emit('agent:state', { serverId, state }),
    lines: (serverId, lines) => {
      outbox.add(serverId, lines);
      flushTimer ??= setTimeout(flush, CONSOLE_FLUSH_MS);
    },
    stats: (serverId, stats) => socket.connected && socket.emit('agent:stats', { serverId, ...stats }),
  };

  const newServer = (spec: AgentServerSpec) =>
    new ManagedServer(
      spec,
      path.join(config.serversDir, spec.serverId),
      path.join(config.runDir, spec.serverId),
      runtimes[findSoftware(spec.software)?.runtime ?? 'flying-squid'] as Runtime,
      config.GAME_BIND_HOST,
      config.STOP_TIMEOUT_SECONDS * 1000,
      events,
    );

  await warmUpPing();

  // Servers still running from before an agent restart.
  for (const entry of await readdir(config.runDir, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory()) continue;
    const spec = agentServerSpec.safeParse(
      await readFile(path.join(config.runDir, entry.name, 'spec.json'), 'utf8').then(JSON.parse, () => null),
    );
    if (!spec.success || spec.data.serverId !== entry.name) continue;
    const server = newServer(spec.data);
    if (await server.adopt()) servers.set(spec.data.serverId, server);
  }

  const statuses = () => [...servers.values()].map((s) => ({ serverId: s.spec.serverId, state: s.state as ServerState }));
  socket.on('connect', () => {
    socket.emit('agent:hello', {
      protocol: AGENT_PROTOCOL_VERSION,
      nodeId: config.AGENT_NODE_ID,
      servers: statuses(),
      backups: [...runningBackups].map(([serverId, backupId]) => ({ serverId, backupId })),
    });
  });

  const http = Fastify({
    logger: loggerOptions({ level: config.LOG_LEVEL, format: config.logFormat, name: `agent ${config.AGENT_NODE_ID}` }),
    bodyLimit: 64 * 1024,
  });
  http.addHook('onRequest', async (request, reply) => {
    if (!tokenMatches(config.AGENT_TOKEN, request.headers.authorization)) return fail(reply, 401, 'NOT_AUTHENTICATED', 'Bad node token.');
  });
  http.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
    if (error instanceof SandboxError) return sendSandboxError(reply, error);
    if (error instanceof z.ZodError) return fail(reply, 400, 'INVALID_INPUT', error.issues[0]?.message ?? 'Invalid input.');
    if (error instanceof InvalidStateError) return fail(reply, 409, 'INVALID_STATE', error.message);
    if (error.statusCode && error.statusCode < 500) return fail(reply, 400, 'INVALID_INPUT', 'Invalid input.');
    http.log.error({ err: error }, 'agent error');
    return fail(reply, 500, 'INTERNAL_ERROR', 'The node could not do that.');
  });

  const known = (id: string) => {
    const server = servers.get(id);
    if (!server) throw new SandboxError('NOT_FOUND', 'This server is not on this node.');
    return server;
  };

  const storage = config.S3_URL ? s3Storage(config.S3_URL) : localStorage(config.storageDir);
  await storage.cleanup();
  fileRoutes(http, {
    servers,
    storage,
    // How a backup ended is never dropped: emitted while the API is away, it is sent on reconnect
    // (Socket.IO buffers it). Progress is only worth sending live.
    emitBackup: (event) => {
      if (event.phase === 'running') {
        if (socket.connected) socket.volatile.emit('agent:backup', event);
      } else socket.emit('agent:backup', event);
    },
    runningBackups,
  });

  playerRoutes(http, servers);

  http.get('/v1/servers', async () => ({ status: 'SUCCESS', result: statuses() }));

  // The control plane allocates ports from its own records; only the node knows what else listens here.
  http.post('/v1/ports/bindable', async (request) => {
    const { ports } = agentPortsRequest.parse(request.body);
    const free = await Promise.all(ports.map((port) => canBind(port, config.GAME_BIND_HOST)));
    return { status: 'SUCCESS', result: { bindable: ports.filter((_, i) => free[i]) } };
  });

  // Install or update a server's spec; idempotent. The API sends the whole spec before every start.
  http.put('/v1/servers/:serverId', async (request) => {
    const { serverId } = serverIdParams.parse(request.params);
    const spec = agentServerSpec.parse(request.body);
    if (spec.serverId !== serverId)
      throw new z.ZodError([{ code: 'custom', path: ['serverId'], message: 'Mismatched server id.', input: spec.serverId }]);
    const failed = (err: unknown) => {
      if (err instanceof SandboxError) throw err;
      throw new InvalidStateError(err instanceof Error ? err.message : String(err));
    };
    let server = servers.get(serverId);
    if (server) {
      server.spec = spec;
      await server.install().catch(failed);
    } else {
      // A new server is known to the other endpoints only once its folder is installed, so nobody sees a
      // half-made folder; concurrent installs of one new server share the work.
      let pending = installing.get(serverId);
      if (!pending) {
        const made = newServer(spec);
        pending = made
          .install()
          .then(
            () => null,
            (err: unknown) => err,
          )
          .then((err) => {
            servers.set(serverId, made);
            installing.delete(serverId);
            return { server: made, err };
          });
        installing.set(serverId, pending);
      }
      const done = await pending;
      server = done.server;
      if (done.err) failed(done.err);
      // Another request created it meanwhile: this request's spec is the newer one (a start may have
      // moved the server to another port).
      if (server.spec !== spec) {
        server.spec = spec;
        await server.install().catch(failed);
      }
    }
    return { status: 'SUCCESS', result: { serverId, state: server.state, maxPlayers: await server.maxPlayers() } };
  });

  http.post('/v1/servers/:serverId/power', async (request) => {
    const { serverId } = serverIdParams.parse(request.params);
    const { action } = z.object({ action: powerAction }).parse(request.body);
    const server = known(serverId);
    // Answered once the action is accepted (state and disk checked); progress and later failures arrive
    // as state events and console lines.
    await server.request(action);
    return { status: 'SUCCESS', result: { serverId, state: server.state } };
  });

  http.post('/v1/servers/:serverId/command', async (request) => {
    const { serverId } = serverIdParams.parse(request.params);
    const { command } = agentCommandRequest.parse(request.body);
    known(serverId).command(command);
    return { status: 'SUCCESS', result: null };
  });

  http.get('/v1/servers/:serverId/console', async (request) => {
    const { serverId } = serverIdParams.parse(request.params);
    return { status: 'SUCCESS', result: { lines: servers.get(serverId)?.console.lines() ?? [] } };
  });

  http.delete('/v1/servers/:serverId', async (request) => {
    const { serverId } = serverIdParams.parse(request.params);
    const server = servers.get(serverId);
    if (server) {
      await server.power('kill');
      await server.closeSandbox();
      servers.delete(serverId);
    }
    await storage.removePrefix(`backups/${serverId}`);
    // Through descriptors: a link the game planted in its folder is removed, never followed.
    await removeTree(path.join(config.serversDir, serverId));
    await rm(path.join(config.runDir, serverId), { recursive: true, force: true });
    return { status: 'SUCCESS', result: null };
  });

  await http.listen({ port: config.AGENT_PORT, host: config.AGENT_HOST });
  socket.connect();

  return {
    http,
    servers,
    async close({ stopServers = true } = {}) {
      if (stopServers) await Promise.all([...servers.values()].map((s) => s.shutdown()));
      else for (const server of servers.values()) server.detach();
      flush();
      socket.close();
      await http.close();
    },
  };
}
