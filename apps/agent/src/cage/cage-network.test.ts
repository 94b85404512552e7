import { createServer, Socket, type Server } from 'node:net';
import mineflayer, { type Bot } from 'mineflayer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../../test-support/free-port.ts';
import { until } from '../../../../test-support/until.ts';
import { pluginRuntime } from '../../test-support/plugin-runtime.ts';
import { startTestAgent, type TestAgent } from '../../test-support/test-agent.ts';
import { startTestHost, type TestHost } from '../../test-support/test-hosts.ts';
import { GAME_FLOWS_MAX } from './game-network.ts';

/**
 * A game's own network, attacked from inside (tenant code in the game process, as in cage.test.ts). The
 * hosts it tries are made on this machine (test-support/test-hosts.ts): a private, a CGNAT and a metadata
 * address that it must not reach, and a documentation address standing for the internet, which it must.
 * The node's own services are servers this test opens on loopback and on the node's own addresses.
 */
let t: TestAgent;
const hosts: TestHost[] = [];
const servers: Server[] = [];
const bots: Bot[] = [];
const HOST_PORT = 8080;

function listen(host: string, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer((s) => s.end('hello from the node')).listen(port, host, () => {
      servers.push(server);
      resolve((server.address() as { port: number }).port);
    });
    server.once('error', reject);
  });
}

beforeAll(async () => {
  hosts.push(await startTestHost('internet', '198.51.100.2', '198.51.100.1', HOST_PORT));
  hosts.push(await startTestHost('private', '10.203.0.2', '10.203.0.1', HOST_PORT));
  hosts.push(await startTestHost('cgnat', '100.100.0.2', '100.100.0.1', HOST_PORT));
  hosts.push(await startTestHost('metadata', '169.254.169.254', '169.254.169.253', 80));
  t = await startTestAgent('cage-network', { runtimes: { 'flying-squid': pluginRuntime } });
});
afterAll(async () => {
  for (const bot of bots) bot.end();
  await t?.close();
  for (const server of servers) server.close();
  for (const host of hosts) host.close();
});

const consoleOf = (id: string) => t.agent.servers.get(id)?.console.lines().join('\n') ?? '';

/** The JSON a plugin printed after `marker` in its server's console, once it has. */
async function reportOf(id: string, marker: string): Promise<Record<string, string>> {
  const line = await until(
    () => consoleOf(id),
    (c) => c.includes(marker),
    60_000,
  );
  return JSON.parse(line.slice(line.indexOf(marker) + marker.length).split('\n')[0] as string) as Record<string, string>;
}

async function create(serverId: string, plugin: string): Promise<number> {
  const port = await freePort();
  const res = await t.call('PUT', `/v1/servers/${serverId}`, {
    serverId,
    software: 'flying-squid',
    version: '1.21.4',
    port,
    memoryMb: 512,
    diskMb: 1024,
    maxPlayers: 5,
    motd: serverId,
  });
  expect(res.body.status).toBe('SUCCESS');
  const write = await fetch(`${t.base}/v1/servers/${serverId}/files/write?path=plugin.mjs`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/octet-stream' },
    body: Buffer.from(plugin),
  });
  expect(((await write.json()) as { status: string }).status).toBe('SUCCESS');
  expect((await t.call('POST', `/v1/servers/${serverId}/power`, { action: 'start' })).body.status).toBe('SUCCESS');
  await until(
    () => t.agent.servers.get(serverId)?.state,
    (s) => s === 'online',
    60_000,
  );
  return port;
}

function joinBot(host: string, port: number, username: string): Promise<Bot> {
  const bot = mineflayer.createBot({ host, port, username, auth: 'offline', version: '1.21.4' });
  bots.push(bot);
  return new Promise((resolve, reject) => {
    bot.once('spawn', () => resolve(bot));
    bot.once('kicked', (reason: unknown) => reject(new Error(`kicked: ${JSON.stringify(reason)}`)));
    bot.once('error', reject);
  });
}

/** What answers on a port of the node now: the first bytes, or the error. */
function probe(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let got = '';
    socket.setTimeout(3000, () => socket.destroy(new Error('timeout')));
    socket.on('data', (d) => (got += String(d)));
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(`refused ${err.code ?? err.message}`));
    socket.on('close', () => resolve(got ? `REACHED ${got}` : 'refused closed'));
    socket.connect(port, host);
  });
}

describe("a game's own network", () => {
  it('reaches the internet and nothing of the node, the private network, the metadata address or another game; only its port is forwarded', async () => {
    const loopbackService = await listen('127.0.0.1');
    const ipv6Service = await listen('::1');
    // The node's own address on a network it is on (here: the internet test host's link).
    const nodeService = await listen('198.51.100.1');
    const victimPort = await create('victim', '');
    const bindPort = await freePort();
    const targets: Record<string, [string, number]> = {
      internet: ['198.51.100.2', HOST_PORT],
      loopbackService: ['127.0.0.1', loopbackService],
      postgres: ['127.0.0.1', 5432],
      ipv6Loopback: ['::1', ipv6Service],
      nodeAddress: ['198.51.100.1', nodeService],
      privateHost: ['10.203.0.2', HOST_PORT],
      cgnatHost: ['100.100.0.2', HOST_PORT],
      metadata: ['169.254.169.254', 80],
      victimThroughNode: ['198.51.100.1', victimPort],
      victimOnLoopback: ['127.0.0.1', victimPort],
      agent: ['127.0.0.1', Number(new URL(t.base).port)],
    };
    const plugin = `
import net from 'node:net';
import fs from 'node:fs';
const targets = ${JSON.stringify(targets)};
// The link's other end (the node, as the game sees it), from the routing table.
const gw = fs.readFileSync('/proc/net/route', 'utf8').split('\\n').map((l) => l.split('\\t')).find((f) => f[1] === '00000000')?.[2];
if (gw) targets.gateway = [gw.match(/../g).reverse().map((h) => parseInt(h, 16)).join('.'), ${nodeService}];
const tryOne = ([host, port]) => new Promise((resolve) => {
  const s = net.connect({ host, port, timeout: 3000 });
  let got = '';
  s.on('data', (d) => (got += d));
  s.on('timeout', () => s.destroy(new Error('timeout')));
  s.on('error', (e) => resolve('refused ' + (e.code || e.message)));
  s.on('close', () => resolve(got ? 'REACHED ' + got : 'refused closed'));
});
const report = {};
for (const [name, target] of Object.entries(targets)) report[name] = await tryOne(target);
// A port that is not its own: bound inside its own network only.
report.bind = await new Promise((resolve) => {
  const server = net.createServer((s) => s.end('hijacked')).listen(${bindPort}, '0.0.0.0', () => resolve('BOUND'));
  server.on('error', (e) => resolve('refused ' + e.code));
});
console.log('NETWORK ' + JSON.stringify(report));
`;
    const port = await create('attacker', plugin);
    const report = await reportOf('attacker', 'NETWORK ');

    // The internet answers; nothing of the node, its networks or another game does.
    expect(report.internet).toBe('REACHED hello from internet');
    for (const name of [...Object.keys(targets).filter((n) => n !== 'internet'), 'gateway'])
      expect(report[name], name).toMatch(/^refused /);
    // It may bind a port in its own network, but that is not the node's port: nobody reaching the node meets it.
    expect(report.bind).toBe('BOUND');
    expect(await probe('127.0.0.1', bindPort)).toMatch(/^refused /);
    expect(await probe('198.51.100.1', bindPort)).toMatch(/^refused /);

    // Players reach both games at the node's addresses, as before.
    await joinBot('127.0.0.1', port, 'Alice');
    await joinBot('198.51.100.1', victimPort, 'Bob');
  });

  it('is made again by a restart, which brings the game back where players reach it', async () => {
    const port = await create('restarter', '');
    expect((await t.call('POST', '/v1/servers/restarter/power', { action: 'restart' })).body.status).toBe('SUCCESS');
    // Online again after having stopped: its network was released and made again at once.
    await until(
      () => ({ log: consoleOf('restarter'), state: t.agent.servers.get('restarter')?.state }),
      ({ log, state }) => log.includes('The server stopped.') && state === 'online',
      60_000,
    );
    expect(consoleOf('restarter')).not.toContain('Could not start');
    await joinBot('127.0.0.1', port, 'Carol');
  });

  it("cannot fill the node's connection table: past its own flow limit its new connections are refused, not another game's", async () => {
    const reach = `
const reach = () => new Promise((resolve) => {
  const s = net.connect({ host: '198.51.100.2', port: ${HOST_PORT}, timeout: 3000 });
  let got = '';
  s.on('data', (d) => (got += d));
  s.on('timeout', () => s.destroy(new Error('timeout')));
  s.on('error', (e) => resolve('refused ' + (e.code || e.message)));
  s.on('close', () => resolve(got ? 'REACHED ' + got : 'refused closed'));
});`;
    // One datagram to each of more ports than its limit: every one is a flow the node tracks.
    const flood = `
import net from 'node:net';
import dgram from 'node:dgram';
${reach}
const socket = dgram.createSocket('udp4');
socket.on('error', () => undefined);
const before = await reach();
for (let i = 0; i < ${GAME_FLOWS_MAX + 200}; i++) await new Promise((resolve) => socket.send('x', 20000 + i, '198.51.100.2', resolve));
console.log('FLOWS ' + JSON.stringify({ before, after: await reach() }));
`;
    await create('flooder', flood);
    const report = await reportOf('flooder', 'FLOWS ');
    expect(report.before).toBe('REACHED hello from internet');
    expect(report.after).toMatch(/^refused /);
    // Another game's flows are its own.
    await create('neighbour', `import net from 'node:net';\n${reach}\nconsole.log('NEIGHBOUR ' + (await reach()));`);
    await until(
      () => consoleOf('neighbour'),
      (c) => c.includes('NEIGHBOUR REACHED hello from internet'),
      60_000,
    );
  });
});
