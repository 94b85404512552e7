/**
 * What a game's own network costs (target: throughput through the forwarded port ≥ 0.9× a game on the
 * node's network). A sender stands for the game: it streams 512 MiB to whoever connects. It runs once in a
 * network made exactly as a game's (`prepareGameNetwork`, `attach`: a namespace, a veth pair, the DNAT of
 * its port) and once on the node's own network; a client on the node reads everything from 127.0.0.1:port,
 * as the join proxy and the agent do, and from the node's own non-loopback address, as a player's packets
 * arrive. Rounds alternate, median of 7 each. Needs root and nftables, as the agent does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../test-support/free-port.ts';
import { NETNS_DIR, prepareGameNetwork } from '../apps/agent/src/cage/game-network.ts';
import { median } from './game-ping.ts';

const BYTES = 512 * 1024 * 1024;
const ROUNDS = 7;
const sender = `
const chunk = Buffer.alloc(256 * 1024, 7);
require('node:net').createServer((s) => {
  let left = ${BYTES};
  const pump = () => { while (left > 0) { left -= chunk.length; if (!s.write(chunk)) return s.once('drain', pump); } s.end(); };
  pump();
}).listen(Number(process.argv[1]), '0.0.0.0', () => console.log('ready'));
`;

function startSender(port: number, netns: string | null): Promise<ChildProcess> {
  const args = [process.execPath, '-e', sender, String(port)];
  const child = netns ? spawn('nsenter', [`--net=${path.join(NETNS_DIR, netns)}`, '--', ...args]) : spawn(args[0] as string, args.slice(1));
  return new Promise((resolve, reject) => {
    child.stdout?.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the sender ended (${code})`)));
  });
}

/** MiB/s read from host:port until the sender ends the stream. */
function read(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let got = 0;
    const socket = connect(port, host);
    socket.on('data', (d) => (got += d.length));
    socket.on('error', reject);
    socket.on('end', () => {
      if (got !== BYTES) reject(new Error(`read ${got} of ${BYTES} bytes`));
      else resolve(Math.round(BYTES / 1024 / 1024 / ((performance.now() - started) / 1000)));
    });
  });
}

const nodeAddress =
  Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address ?? '127.0.0.1';
const network = await prepareGameNetwork({ subnet: '10.189.0.0/16', bindHost: '0.0.0.0', allow: [], dns: [] });
if ('problem' in network) throw new Error(`games cannot have a network of their own here: ${network.problem}`);
const runDir = await mkdtemp(path.join(tmpdir(), 'spawnpoint-bench-net-'));
const port = await freePort();
// The sender on the node's network needs a port of its own: the game's is forwarded into its namespace.
const sharedPort = await freePort();
const lease = await network.attach(port, runDir);
const figures: Record<'own' | 'shared', Record<'loopback' | 'nodeAddress', number[]>> = {
  own: { loopback: [], nodeAddress: [] },
  shared: { loopback: [], nodeAddress: [] },
};
try {
  for (let i = 0; i < ROUNDS; i++) {
    for (const kind of i % 2 ? (['shared', 'own'] as const) : (['own', 'shared'] as const)) {
      const at = kind === 'own' ? port : sharedPort;
      const child = await startSender(at, kind === 'own' ? lease.name : null);
      try {
        figures[kind].loopback.push(await read('127.0.0.1', at));
        figures[kind].nodeAddress.push(await read(nodeAddress, at));
      } finally {
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
  }
} finally {
  await network.release(runDir);
  await rm(runDir, { recursive: true, force: true });
}
const ratio = (via: 'loopback' | 'nodeAddress') => Number((median(figures.own[via]) / median(figures.shared[via])).toFixed(2));
console.log(
  JSON.stringify({
    bench: 'cage-network',
    megabytes: BYTES / 1024 / 1024,
    ownNetworkMiBps: { loopback: median(figures.own.loopback), nodeAddress: median(figures.own.nodeAddress) },
    sharedNetworkMiBps: { loopback: median(figures.shared.loopback), nodeAddress: median(figures.shared.nodeAddress) },
    ratio: { loopback: ratio('loopback'), nodeAddress: ratio('nodeAddress') },
    target: { ratio: 0.9 },
  }),
);
