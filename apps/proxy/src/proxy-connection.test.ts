import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { ProxyRoute, ProxyWakeResult } from '@spawnpoint/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { packet, readPacket, readVarInt } from './protocol.ts';
import { ProxyConnection, type Phase } from './proxy-connection.ts';
import { PROXY_DEFAULTS, proxyMessages, type Settings } from './proxy-settings.ts';
import { RouteTable } from './route-table.ts';
import { disconnectText, handshakeBytes, loginStart, route as routeOn } from './test-bytes.ts';

/** A route whose game port is `port` (1 when the test never dials it). */
const route = (name: string, state: ProxyRoute['state'], port = 1) => routeOn(name, state, port);

/**
 * One connection at a time, phase by phase: each test opens a real loopback connection whose far end is a
 * ProxyConnection, sends the bytes a client sends, and reads what the proxy answered. The whole proxy (its
 * listener, limits and the API link) is join-proxy.test.ts's.
 */
const DOMAIN = 'play.example.test';
const silent = { info: () => undefined, warn: () => undefined, debug: () => undefined };
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

interface Opened {
  client: Socket;
  connection: ProxyConnection;
  /** Every byte the proxy sent, once it closed the connection. */
  all: Promise<Buffer>;
  wakes: { serverId: string; player: string }[];
  /** The routes the API pushed; a test pushes changes through it. */
  table: RouteTable;
}

/** A loopback connection with a ProxyConnection on its far end, over `routes`. */
async function open(
  routes: ProxyRoute[],
  // As the API does: it puts the server on its way (a pushed state) before it answers the wake.
  wake: (serverId: string, table: RouteTable) => ProxyWakeResult = (serverId, table) => {
    const woken = routes.find((r) => r.serverId === serverId);
    if (woken) table.apply({ name: woken.name, route: { ...woken, state: 'queued' } });
    return { result: 'started' };
  },
): Promise<Opened> {
  const table = new RouteTable();
  table.replace({ playDomain: DOMAIN, routes });
  const settings: Settings = { ...PROXY_DEFAULTS, table, log: silent, wake: async () => ({ result: 'started' }), handshakeTimeoutMs: 300 };
  const wakes: Opened['wakes'] = [];
  let made: (connection: ProxyConnection) => void = () => undefined;
  const connected = new Promise<ProxyConnection>((resolve) => (made = resolve));
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    made(
      new ProxyConnection(socket, settings, async (serverId, player) => {
        wakes.push({ serverId, player });
        return wake(serverId, table);
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = connect({ port: (server.address() as AddressInfo).port, host: '127.0.0.1' });
  client.on('error', () => undefined);
  const chunks: Buffer[] = [];
  client.on('data', (chunk: Buffer) => chunks.push(chunk));
  const all = new Promise<Buffer>((resolve) => client.once('close', () => resolve(Buffer.concat(chunks))));
  closers.push(() => {
    client.destroy();
    server.close();
  });
  return { client, connection: await connected, all, wakes, table };
}

/** The status JSON of a status response packet at the start of `bytes`. */
const statusAnswer = z.object({ description: z.object({ text: z.string() }), version: z.object({ name: z.string() }) });
function statusOf(bytes: Buffer): z.infer<typeof statusAnswer> {
  const read = readPacket(bytes, 64 * 1024);
  if (read.kind !== 'ok') throw new Error('no status packet');
  const length = readVarInt(read.value.body);
  if (length.kind !== 'ok') throw new Error('bad string');
  return statusAnswer.parse(JSON.parse(read.value.body.subarray(length.size, length.size + length.value).toString('utf8')) as unknown);
}

async function phaseBecomes(connection: ProxyConnection, phase: Phase): Promise<void> {
  await expect.poll(() => connection.phase).toBe(phase);
}

/** A stand-in game port: resolves with the first bytes a connection to it sent. */
async function gamePort(): Promise<{ port: number; firstBytes: Promise<Buffer> }> {
  let got: (bytes: Buffer) => void = () => undefined;
  const firstBytes = new Promise<Buffer>((resolve) => (got = resolve));
  const server: Server = createServer((socket) => socket.once('data', got));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return { port: (server.address() as AddressInfo).port, firstBytes };
}

describe('a proxy connection', () => {
  describe('in its handshake', () => {
    it('closes on bytes that are not a Minecraft handshake, answering nothing', async () => {
      const { client, all } = await open([]);
      client.write(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
      expect((await all).length).toBe(0);
    });

    it('closes when no handshake comes in time', async () => {
      const { connection, all } = await open([]);
      expect((await all).length).toBe(0);
      expect(connection.phase).toBe('handshake');
    });

    it('goes straight to forwarding when the named server is online, replaying the handshake to it', async () => {
      const game = await gamePort();
      const { client, connection } = await open([route('survival', 'online', game.port)]);
      const handshake = handshakeBytes('1.21.4', `survival.${DOMAIN}`, 2);
      client.write(Buffer.concat([handshake, loginStart('Steve')]));
      await phaseBecomes(connection, 'forward');
      expect((await game.firstBytes).subarray(0, handshake.length)).toEqual(handshake);
    });
  });

  describe('in a legacy ping', () => {
    it('answers a pre-1.7 server list ping once and closes', async () => {
      const { client, connection, all } = await open([route('survival', 'sleeping')]);
      client.write(Buffer.from([0xfe, 0x01]));
      const answer = await all;
      expect(answer[0]).toBe(0xff);
      expect(connection.phase).toBe('done');
    });
  });

  describe('in a status exchange', () => {
    it('answers the server list itself for a stopped server, once, and echoes the ping', async () => {
      const { client, connection, all } = await open([route('survival', 'sleeping')]);
      client.write(Buffer.concat([handshakeBytes('1.21.4', `survival.${DOMAIN}`, 1), packet(0x00), packet(0x00)]));
      await phaseBecomes(connection, 'status');
      const pingBody = Buffer.alloc(8, 7);
      client.write(packet(0x01, pingBody));
      const answer = await all;
      expect(statusOf(answer).description.text).toBe(proxyMessages.motd.sleeping);
      const first = readPacket(answer, 64 * 1024);
      if (first.kind !== 'ok') throw new Error('no status answer');
      // One status answer although two were asked, then the ping's echo.
      expect(answer.subarray(first.size)).toEqual(packet(0x01, pingBody));
      expect(connection.phase).toBe('done');
    });

    it('answers for an online server whose game port does not answer', async () => {
      const unused = await gamePort();
      closers.splice(0).forEach((close) => close());
      const { client, all } = await open([route('survival', 'online', unused.port)]);
      client.write(Buffer.concat([handshakeBytes('1.21.4', `survival.${DOMAIN}`, 1), packet(0x00)]));
      const answer = await new Promise<Buffer>((resolve) => client.once('data', resolve));
      expect(statusOf(answer).description.text).toBe(proxyMessages.motd.unreachable);
      client.end();
      await all;
    });
  });

  describe('holding a login', () => {
    it('wakes the server once for the named player and forwards the same connection when it is online', async () => {
      const game = await gamePort();
      const { client, connection, wakes, table } = await open([route('sleepy', 'sleeping', game.port)]);
      const sent = Buffer.concat([handshakeBytes('1.21.4', `sleepy.${DOMAIN}`, 2), loginStart('Steve')]);
      client.write(sent);
      await expect.poll(() => wakes).toEqual([{ serverId: 'id-sleepy', player: 'Steve' }]);
      expect(connection.phase).toBe('hold');
      // The API's pushed state once the game is up.
      table.apply({ name: 'sleepy', route: route('sleepy', 'online', game.port) });
      expect(await game.firstBytes).toEqual(sent);
      expect(connection.phase).toBe('forward');
    });

    it('tells the player the API’s refusal and does not forward', async () => {
      const { client, all, wakes } = await open([route('sleepy', 'sleeping')], () => ({ result: 'refused', message: 'Not today.' }));
      client.write(Buffer.concat([handshakeBytes('1.21.4', `sleepy.${DOMAIN}`, 2), loginStart('Steve')]));
      expect(disconnectText(await all)).toBe('Not today.');
      expect(wakes).toHaveLength(1);
    });

    it('ends the login on a refusal without words too, rather than leaving it open', async () => {
      const { client, all } = await open([route('sleepy', 'sleeping')], () => ({ result: 'refused', message: '' }));
      client.write(Buffer.concat([handshakeBytes('1.21.4', `sleepy.${DOMAIN}`, 2), loginStart('Steve')]));
      expect(disconnectText(await all)).toBe('');
    });

    it('tells a client of another version which one to choose, without waking the server', async () => {
      const { client, all, wakes } = await open([route('sleepy', 'sleeping')]);
      client.write(Buffer.concat([handshakeBytes('1.20.4', `sleepy.${DOMAIN}`, 2), loginStart('Steve')]));
      expect(disconnectText(await all)).toContain('This server runs Minecraft 1.21.4');
      expect(wakes).toEqual([]);
    });

    it('says a server that failed to start did so', async () => {
      const { client, connection, all, wakes, table } = await open([route('sleepy', 'sleeping')]);
      client.write(Buffer.concat([handshakeBytes('1.21.4', `sleepy.${DOMAIN}`, 2), loginStart('Steve')]));
      await expect.poll(() => wakes.length).toBe(1);
      await expect.poll(() => connection.phase).toBe('hold');
      table.apply({ name: 'sleepy', route: route('sleepy', 'offline') });
      expect(disconnectText(await all)).toBe(proxyMessages.failedToStart);
    });
  });

  describe('forwarding', () => {
    it('tells a login whose online server cannot be reached so', async () => {
      const unused = await gamePort();
      closers.splice(0).forEach((close) => close());
      const { client, all } = await open([route('survival', 'online', unused.port)]);
      client.write(Buffer.concat([handshakeBytes('1.21.4', `survival.${DOMAIN}`, 2), loginStart('Steve')]));
      expect(disconnectText(await all)).toBe(proxyMessages.unreachable);
    });
  });
});
