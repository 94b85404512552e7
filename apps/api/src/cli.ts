/**
 * Operator commands, run next to a running API (`npm run operator -- <command>`):
 *   lock <email> | unlock <email>          lock or unlock an account (a lock ends its sessions)
 *   draw-giveaway <slug>                   draw a giveaway's winners
 *   nodes                                  list nodes: connected, draining, capacity, servers
 *   nodes drain <node> | nodes undrain <node>   stop or resume placing new servers on a node
 *   nodes remove <node>                    drain a node and check it holds no server's folder
 *   servers <part of a name>               find servers: id, owner, node, state, where its folder is
 *   servers move <server> <node>           move a stopped or sleeping server to another node (shared storage)
 * They go through the API (PGlite allows one process per database), authenticated with the operator
 * token the API keeps in DATA_DIR/operator-token (or OPERATOR_TOKEN).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { OperatorNode, OperatorServer } from '@spawnpoint/contracts';
import { loadConfig } from './config.ts';

const USAGE = `Usage: npm run operator -- <command>
  lock <email> | unlock <email>
  draw-giveaway <slug>
  nodes | nodes drain <node> | nodes undrain <node> | nodes remove <node>
  servers <part of a name> | servers move <server id or name> <node>`;

const [command, arg, arg2, arg3] = process.argv.slice(2);
const config = loadConfig();
const token = config.OPERATOR_TOKEN ?? readFileSync(path.join(config.dataDir, 'operator-token'), 'utf8').trim();

async function call<T>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
  const response = await fetch(`http://127.0.0.1:${config.PORT}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  }).catch(() => null);
  if (!response) fail(`The API is not answering on port ${config.PORT}. Start it first (npm start).`);
  const answer = (await response.json()) as { status: string; message?: string; result?: T };
  if (answer.status !== 'SUCCESS') fail(answer.message ?? answer.status);
  return answer.result as T;
}

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

/** Rows as aligned columns under a header. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [header, ...rows]
    .map((r) =>
      r
        .map((cell, i) => (cell ?? '').padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const nodeRow = (n: OperatorNode) => [
  n.nodeId,
  n.connected ? 'connected' : 'down',
  n.draining ? 'draining' : '-',
  `${n.activeServers}/${n.capacity}`,
  String(n.queuedStarts),
  String(n.placedServers),
];
const NODE_HEADER = ['NODE', 'STATUS', 'DRAIN', 'RUNNING', 'QUEUED', 'SERVERS'];
const serverRow = (s: OperatorServer) => [s.serverId, s.name, s.ownerEmail, s.nodeId, s.state, s.storedIn ? 'storage' : 'node'];
const SERVER_HEADER = ['SERVER', 'NAME', 'OWNER', 'NODE', 'STATE', 'FOLDER'];

if ((command === 'lock' || command === 'unlock') && arg) {
  const result = await call<{ sessionsEnded: number }>('POST', '/v1/operator/accounts/lock', {
    emailAddress: arg,
    locked: command === 'lock',
  });
  console.log(command === 'lock' ? `Locked ${arg}; ended ${result.sessionsEnded} session(s).` : `Unlocked ${arg}.`);
} else if (command === 'draw-giveaway' && arg) {
  const result = await call<{ seed: string; entries: number; winners: number }>('POST', '/v1/operator/giveaways/draw', { slug: arg });
  console.log(`Drew ${result.winners} winner(s) from ${result.entries} entries with seed ${result.seed}.`);
} else if (command === 'nodes' && !arg) {
  console.log(table(NODE_HEADER, (await call<OperatorNode[]>('GET', '/v1/operator/nodes')).map(nodeRow)));
} else if (command === 'nodes' && (arg === 'drain' || arg === 'undrain') && arg2) {
  const node = await call<OperatorNode>('POST', '/v1/operator/nodes/drain', { nodeId: arg2, draining: arg === 'drain' });
  console.log(table(NODE_HEADER, [nodeRow(node)]));
  console.log(
    node.draining
      ? `${node.nodeId} takes no new servers; its ${node.placedServers} server(s) keep running and starting there.`
      : `${node.nodeId} takes new servers again.`,
  );
} else if (command === 'nodes' && arg === 'remove' && arg2) {
  const node = await call<OperatorNode>('POST', '/v1/operator/nodes/remove', { nodeId: arg2 });
  console.log(table(NODE_HEADER, [nodeRow(node)]));
  console.log(
    `${node.nodeId} is drained and holds no server's folder. Take it out of AGENTS on every API process, restart them, then stop its agent.`,
  );
} else if (command === 'servers' && arg === 'move' && arg2 && arg3) {
  // A server's exact name, or its id.
  const named = (await call<OperatorServer[]>('GET', `/v1/operator/servers?name=${encodeURIComponent(arg2)}`)).find(
    (s) => s.name === arg2.toLowerCase(),
  );
  console.log(`Moving ${arg2} to ${arg3}; its folder goes through shared storage, which takes a while for a big world…`);
  const moved = await call<OperatorServer>('POST', '/v1/operator/servers/move', { serverId: named?.serverId ?? arg2, nodeId: arg3 });
  console.log(table(SERVER_HEADER, [serverRow(moved)]));
} else if (command === 'servers' && arg) {
  const found = await call<OperatorServer[]>('GET', `/v1/operator/servers?name=${encodeURIComponent(arg)}`);
  if (found.length === 0) console.log(`No server name contains "${arg}".`);
  else console.log(table(SERVER_HEADER, found.map(serverRow)));
} else {
  console.error(USAGE);
  process.exit(2);
}
