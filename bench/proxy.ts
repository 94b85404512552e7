/**
 * Join proxy figures, each process on its own: a stand-in game port (bulk sender and echo),
 * the real join proxy (apps/proxy) with a routing table held in memory, and this process as the clients.
 * - status-pings: status pings of a server that is not running, answered by one proxy, each on a new
 *   connection as server lists do, 64 at a time for 5 s; the proxy's memory before and after;
 * - proxy-throughput: 256 MB from the game port to the client, through the proxy vs. direct, five of each
 *   in turns, best of each;
 * - proxy-latency: round trips of one byte (2,000), p50 and p99 through the proxy vs. direct, three runs of
 *   each in turns, the run with the middle p99 of each side.
 */
import { spawn } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { startJoinProxy } from '../apps/proxy/src/join-proxy.ts';
import { packet, readPacket, writeString, writeVarInt } from '../apps/proxy/src/protocol.ts';
import { RouteTable } from '../apps/proxy/src/route-table.ts';

const DOMAIN = 'play.bench.test';
const BULK_BYTES = 256 * 1024 * 1024;
const role = process.argv[2];

function handshake(name: string, nextState: 1 | 2): Buffer {
  const port = Buffer.alloc(2);
  port.writeUInt16BE(25565);
  return packet(0x00, writeVarInt(769), writeString(`${name}.${DOMAIN}`), port, writeVarInt(nextState));
}

function announce(value: object): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

if (role === 'game') {
  // Bulk: after the first bytes (the replayed handshake), send BULK_BYTES and close. Echo: send back every byte.
  const chunk = Buffer.alloc(64 * 1024, 7);
  const bulk = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      let left = BULK_BYTES;
      const pump = () => {
        while (left > 0) {
          left -= chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
        socket.end();
      };
      pump();
    });
  }).listen(0, '127.0.0.1');
  const echo = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.pipe(socket);
  }).listen(0, '127.0.0.1');
  await Promise.all([bulk, echo].map((s) => new Promise((r) => s.once('listening', r))));
  announce({ bulk: (bulk.address() as AddressInfo).port, echo: (echo.address() as AddressInfo).port });
} else if (role === 'proxy') {
  const [bulkPort, echoPort] = process.argv.slice(3).map(Number) as [number, number];
  const table = new RouteTable();
  const route = (name: string, port: number, state: 'online' | 'sleeping') => ({
    name,
    serverId: name,
    host: '127.0.0.1',
    port,
    state,
    maxPlayers: 10,
    version: '1.21.4',
    icon: null,
    motd: '',
    proxyProtocol: false,
    joinStart: 'always' as const,
  });
  table.replace({
    playDomain: DOMAIN,
    routes: [route('bulk', bulkPort, 'online'), route('echo', echoPort, 'online'), route('sleepy', 1, 'sleeping')],
  });
  const log = { info: () => undefined, warn: () => undefined, debug: () => undefined };
  const proxy = await startJoinProxy(
    { table, log, wake: async () => ({ result: 'refused', message: 'bench' }), connectionsPerSecondPerAddress: 1_000_000 },
    { port: 0, host: '127.0.0.1' },
  );
  announce({ proxy: proxy.port });
  // Memory on request (a line on stdin), after a full collection: what the proxy holds, not garbage not yet collected.
  const collect = (globalThis as { gc?: () => void }).gc;
  createInterface({ input: process.stdin }).on('line', () => {
    collect?.();
    announce({ heap: process.memoryUsage().heapUsed, rss: process.memoryUsage().rss });
  });
} else {
  await main();
}

async function main(): Promise<void> {
  const self = path.join(import.meta.dirname, 'proxy.ts');
  const start = (args: string[]) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', self, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout });
    const next = () => new Promise<Record<string, number>>((resolve) => lines.once('line', (line) => resolve(JSON.parse(line))));
    return { child, next };
  };
  const game = start(['game']);
  const ports = (await game.next()) as { bulk: number; echo: number };
  const proxyProcess = start(['proxy', String(ports.bulk), String(ports.echo)]);
  const { proxy: proxyPort } = (await proxyProcess.next()) as { proxy: number };
  const memory = async () => {
    proxyProcess.child.stdin?.write('\n');
    return (await proxyProcess.next()) as { heap: number; rss: number };
  };

  try {
    // --- status pings answered by the proxy ---
    const request = Buffer.concat([handshake('sleepy', 1), packet(0x00), packet(0x01, Buffer.alloc(8))]);
    const pingOnce = () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(proxyPort, '127.0.0.1');
        let got = Buffer.alloc(0);
        let ok = false;
        socket.on('data', (chunk) => {
          got = Buffer.concat([got, chunk]);
          const first = readPacket(got, 64 * 1024);
          if (first.kind === 'ok' && readPacket(got.subarray(first.size), 64).kind === 'ok') ok = true;
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(ok));
        socket.write(request);
      });
    const before = await memory();
    let answered = 0;
    let failed = 0;
    const until = Date.now() + 5_000;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (Date.now() < until) {
          if (await pingOnce()) answered++;
          else failed++;
        }
      }),
    );
    const after = await memory();
    console.log(
      JSON.stringify({
        bench: 'status-pings',
        perSecond: Math.round(answered / 5),
        failed,
        proxyHeapMb: [Math.round(before.heap / 1e6), Math.round(after.heap / 1e6)],
        proxyRssMb: [Math.round(before.rss / 1e6), Math.round(after.rss / 1e6)],
        target: '≥ 5,000/s, memory flat',
      }),
    );

    // --- bulk throughput, through the proxy vs. direct ---
    const bulk = (port: number) =>
      new Promise<number>((resolve, reject) => {
        const started = process.hrtime.bigint();
        let received = 0;
        const socket: Socket = connect(port, '127.0.0.1');
        socket.on('data', (chunk) => (received += chunk.length));
        socket.on('error', reject);
        socket.on('close', () => {
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          if (received < BULK_BYTES) reject(new Error(`only ${received} bytes`));
          else resolve(received / 1e6 / seconds);
        });
        socket.write(Buffer.concat([handshake('bulk', 2), packet(0x00, writeString('Bench'))]));
      });
    // Taken in turns, five of each, best of each: the three processes share two cores with whatever else
    // the machine does, so a single pair swings by a third either way.
    let direct = 0;
    let proxied = 0;
    for (let round = 0; round < 5; round++) {
      direct = Math.max(direct, await bulk(ports.bulk));
      proxied = Math.max(proxied, await bulk(proxyPort));
    }
    console.log(
      JSON.stringify({
        bench: 'proxy-throughput',
        directMBps: Math.round(direct),
        proxyMBps: Math.round(proxied),
        ratio: Number((proxied / direct).toFixed(2)),
        target: '≥ 0.9×',
      }),
    );

    // --- added round-trip latency ---
    const roundTrips = async (port: number) => {
      const socket = connect({ port, host: '127.0.0.1', noDelay: true });
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(Buffer.concat([handshake('echo', 2), packet(0x00, writeString('Bench'))]));
      // The echo of the opening bytes first.
      const opening = handshake('echo', 2).length + packet(0x00, writeString('Bench')).length;
      await new Promise<void>((resolve) => {
        let n = 0;
        const onData = (chunk: Buffer) => {
          n += chunk.length;
          if (n >= opening) {
            socket.off('data', onData);
            resolve();
          }
        };
        socket.on('data', onData);
      });
      const times: number[] = [];
      for (let i = 0; i < 2_000; i++) {
        const t0 = process.hrtime.bigint();
        socket.write(Buffer.from([i & 0xff]));
        await new Promise((resolve) => socket.once('data', resolve));
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      socket.destroy();
      times.sort((a, b) => a - b);
      return { p50: times[Math.floor(times.length * 0.5)] ?? 0, p99: times[Math.floor(times.length * 0.99)] ?? 0 };
    };
    // Three runs of each in turns; the middle p99 of each side, so one scheduler hiccup does not decide it.
    const runs: { direct: { p50: number; p99: number }; proxy: { p50: number; p99: number } }[] = [];
    for (let round = 0; round < 3; round++) runs.push({ direct: await roundTrips(ports.echo), proxy: await roundTrips(proxyPort) });
    const middle = (side: 'direct' | 'proxy') => [...runs].sort((a, b) => a[side].p99 - b[side].p99)[1]![side];
    const directRtt = middle('direct');
    const proxyRtt = middle('proxy');
    console.log(
      JSON.stringify({
        bench: 'proxy-latency',
        directMs: { p50: Number(directRtt.p50.toFixed(3)), p99: Number(directRtt.p99.toFixed(3)) },
        proxyMs: { p50: Number(proxyRtt.p50.toFixed(3)), p99: Number(proxyRtt.p99.toFixed(3)) },
        addedP99Ms: Number((proxyRtt.p99 - directRtt.p99).toFixed(3)),
        target: 'added p99 ≤ 1 ms',
      }),
    );
  } finally {
    game.child.kill();
    proxyProcess.child.kill();
  }
}
