/**
 * The simulated fleet of bench/fleet.ts, in its own process (so its work does not slow the measuring one):
 * NODES nodes of SERVERS servers each. Every node has a small HTTP API that accepts what the control plane
 * asks of a node (installs, port checks; nothing runs) and one Socket.IO connection to the API's `/agent`
 * namespace with its node token, as a real agent has. Each server sends its stats every 2 s; the parent
 * (over IPC) names state changes to report. Messages: parent → `{ connect: base }`, `{ state: [node, server,
 * state] }`, `{ count: true }`, `{ stop: true }`; child → `{ listening: ports }`, `{ connected: n }`, `{ installs: n }`,
 * `{ statsSent: n }`.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AGENT_NAMESPACE, AGENT_PROTOCOL_VERSION } from '@spawnpoint/contracts';
import { io, type Socket } from 'socket.io-client';

const NODES = Number(process.env.FLEET_NODES);
const SERVERS = Number(process.env.FLEET_SERVERS);
const tokens = JSON.parse(process.env.FLEET_TOKENS ?? '[]') as string[];
const STATS_MS = 2000;

const nodeId = (n: number) => `sim-${n}`;
const serverId = (n: number, s: number) => `fleet-${n}-${s}`;
const send = (message: unknown) => process.send?.(message);

let installs = 0;
function answer(res: ServerResponse, result: unknown) {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ status: 'SUCCESS', result }));
}
const servers: Server[] = [];
for (let n = 0; n < NODES; n++) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const install = /^\/v1\/servers\/([^/]+)$/.exec(req.url ?? '');
      if (req.method === 'PUT' && install) {
        installs++;
        return answer(res, { serverId: install[1], state: 'offline', maxPlayers: 10 });
      }
      if (req.url === '/v1/ports/bindable') return answer(res, { bindable: (JSON.parse(body) as { ports: number[] }).ports });
      answer(res, null);
    });
  });
  servers.push(server);
}
await Promise.all(servers.map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
send({ listening: servers.map((s) => (s.address() as AddressInfo).port) });

const sockets: Socket[] = [];
const states = new Map<string, string>();
let statsSent = 0;
let timer: NodeJS.Timeout | null = null;

process.on('message', (message: { connect?: string; state?: [number, number, string]; count?: boolean; stop?: boolean }) => {
  if (message.connect) connect(message.connect);
  if (message.count) send({ statsSent });
  if (message.state) {
    const [n, s, state] = message.state;
    states.set(serverId(n, s), state);
    sockets[n]?.emit('agent:state', { serverId: serverId(n, s), state });
  }
  if (message.stop) {
    if (timer) clearInterval(timer);
    send({ statsSent, installs });
    for (const socket of sockets) socket.close();
    for (const server of servers) server.close();
    setTimeout(() => process.exit(0), 200);
  }
});

function connect(base: string) {
  let connected = 0;
  for (let n = 0; n < NODES; n++) {
    const socket = io(`${base}${AGENT_NAMESPACE}`, {
      transports: ['websocket'],
      auth: { nodeId: nodeId(n), token: tokens[n] },
    });
    socket.on('connect', () => {
      socket.emit('agent:hello', {
        protocol: AGENT_PROTOCOL_VERSION,
        nodeId: nodeId(n),
        servers: Array.from({ length: SERVERS }, (_, s) => ({ serverId: serverId(n, s), state: states.get(serverId(n, s)) ?? 'offline' })),
        backups: [],
        javaMajors: [],
        storage: null,
      });
      send({ connected: ++connected });
    });
    sockets.push(socket);
  }
  // Every server's stats every 2 s, spread evenly: each tick sends one server of every node.
  let next = 0;
  timer = setInterval(() => {
    const s = next++ % SERVERS;
    for (let n = 0; n < NODES; n++) {
      sockets[n]?.emit('agent:stats', {
        serverId: serverId(n, s),
        cpu: Math.random() * 50,
        memory: 400 + Math.random() * 100,
        disk: 120,
        players: { online: 0, max: 10, list: [] },
        inGame: 0,
      });
      statsSent++;
    }
    if (next % 50 === 0) send({ installs });
  }, STATS_MS / SERVERS);
}
