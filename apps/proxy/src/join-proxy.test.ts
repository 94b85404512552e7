import { createHash, randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { joinStartRefusal, type ProxyWakeResult } from '@spawnpoint/contracts';
import minecraftData from 'minecraft-data';
import mc from 'minecraft-protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../test-support/free-port.ts';
import { addressKey, proxyMessages, ReadBuffer, startJoinProxy, type JoinProxy, type JoinProxyOptions } from './join-proxy.ts';
import { disconnectText, handshakeBytes, loginStart, route } from './test-bytes.ts';
import { readPacket, writeVarInt } from './protocol.ts';
import { RouteTable } from './route-table.ts';

const DOMAIN = 'play.example.test';
const silent = { info: () => undefined, warn: () => undefined, debug: () => undefined };

/** A stand-in game port that records what each connection sent and can answer. */
interface Backend {
  port: number;
  received: Buffer[];
  sockets: Socket[];
  connected: Promise<Socket>;
  close(): Promise<void>;
}

async function backend(): Promise<Backend> {
  const received: Buffer[] = [];
  const sockets: Socket[] = [];
  let firstConnection: (socket: Socket) => void = () => undefined;
  const connected = new Promise<Socket>((resolve) => (firstConnection = resolve));
  const server: Server = createServer((socket) => {
    const index = sockets.push(socket) - 1;
    received[index] = Buffer.alloc(0);
    socket.on('data', (chunk) => (received[index] = Buffer.concat([received[index] as Buffer, chunk])));
    socket.on('error', () => undefined);
    firstConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    sockets,
    connected,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A 1×1 PNG as a data URL: the proxy passes on whatever icon the API sent, it does not read images. */
const ICON = `data:image/png;base64,${Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4d20000000049454e44ae426082', 'hex').toString('base64')}`;

/** Opens a raw connection; `all` resolves with every byte the proxy sent once it closed. */
function dial(port: number): { socket: Socket; all: Promise<Buffer>; closed: Promise<void> } {
  const socket = connect({ port, host: '127.0.0.1', noDelay: true });
  socket.on('error', () => undefined);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, all: closed.then(() => Buffer.concat(chunks)), closed };
}

function pingThrough(proxyPort: number, host: string, version = '1.21.4') {
  return mc.ping({ host, port: proxyPort, version, stream: connect(proxyPort, '127.0.0.1') } as Parameters<typeof mc.ping>[0] & {
    stream: Socket;
  }) as Promise<{
    version: { name: string; protocol: number };
    players: { online: number; max: number };
    description: { text: string; extra?: { text: string; color?: string; bold?: boolean }[] };
    favicon?: string;
  }>;
}

describe('the join proxy', () => {
  let table: RouteTable;
  let proxy: JoinProxy;
  let game: Backend;
  let wakes: string[];
  let wakingPlayers: string[];
  let answerWake: (serverId: string) => Promise<ProxyWakeResult>;

  async function start(options: Partial<JoinProxyOptions> = {}) {
    proxy = await startJoinProxy(
      {
        table,
        log: silent,
        wake: (serverId, player) => (wakes.push(serverId), wakingPlayers.push(player), answerWake(serverId)),
        ...options,
      },
      { port: 0, host: '127.0.0.1' },
    );
  }

  beforeEach(async () => {
    table = new RouteTable();
    wakes = [];
    wakingPlayers = [];
    answerWake = async () => ({ result: 'started' });
    game = await backend();
    table.replace({ playDomain: DOMAIN, routes: [] });
  });
  afterEach(async () => {
    await proxy?.close();
    await game.close();
  });

  it('forwards the original bytes of an online server unchanged, sent a byte at a time, and closes both sides together', async () => {
    await start();
    table.apply({ name: 'survival', route: route('survival', 'online', game.port) });
    const sent = Buffer.concat([handshakeBytes('1.20.4', 'Survival.Play.Example.Test.\0FML2\0', 2), loginStart('Steve')]);
    const { socket, closed } = dial(proxy.port);
    for (const byte of sent) {
      socket.write(Buffer.from([byte]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const backendSide = await game.connected;
    await expect.poll(() => game.received[0]?.equals(sent)).toBe(true);
    // The game answers through the proxy.
    const answered = new Promise<Buffer>((resolve) => socket.once('data', resolve));
    backendSide.write(Buffer.from('from the game'));
    expect((await answered).toString()).toBe('from the game');
    const backendClosed = new Promise((resolve) => backendSide.once('close', resolve));
    socket.destroy();
    await backendClosed;
    await closed;
  });

  it("passes a game's burst to a slow player whole and in order, holding the game back rather than piling it up", async () => {
    await start();
    table.apply({ name: 'survival', route: route('survival', 'online', game.port) });
    const { socket } = dial(proxy.port);
    socket.removeAllListeners('data');
    socket.pause();
    socket.write(Buffer.concat([handshakeBytes('1.21.4', 'survival.play.example.test', 2), loginStart('Steve')]));
    const backendSide = await game.connected;
    // Random bytes, so a chunk overwritten or repeated in the proxy's read buffer would change the digest.
    const burst = randomBytes(64 * 1024 * 1024);
    backendSide.write(burst);
    // The player reads nothing: once the socket buffers on the way are full, the rest waits in the game.
    let last = -1;
    await expect
      .poll(
        () => {
          const waiting = backendSide.writableLength;
          const settled = waiting === last;
          last = waiting;
          return settled;
        },
        { interval: 200, timeout: 10_000 },
      )
      .toBe(true);
    expect(backendSide.writableLength).toBeGreaterThan(16 * 1024 * 1024);
    // Now a player who reads in fits and starts gets every byte.
    const digest = createHash('sha256');
    let received = 0;
    const all = new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        digest.update(chunk);
        received += chunk.length;
        if (received >= burst.length) return resolve();
        socket.pause();
        setImmediate(() => socket.resume());
      });
    });
    socket.resume();
    await all;
    expect(received).toBe(burst.length);
    expect(digest.digest('hex')).toBe(createHash('sha256').update(burst).digest('hex'));
    socket.destroy();
  });

  it("opens the game's connection with a PROXY protocol v2 header naming the player when the server asks for it", async () => {
    await start();
    table.apply({ name: 'paper', route: route('paper', 'online', game.port, null, '', true) });
    const hs = handshakeBytes('1.21.4', `paper.${DOMAIN}`, 2);
    const { socket } = dial(proxy.port);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(Buffer.concat([hs, loginStart('Alex')]));
    await expect.poll(() => (game.received[0]?.length ?? 0) >= 28 + hs.length).toBe(true);
    const got = game.received[0]!;
    // Signature, v2 PROXY, TCP over IPv4, 12 bytes of addresses and ports; then the client's own bytes.
    expect(got.subarray(0, 16).toString('hex')).toBe('0d0a0d0a000d0a515549540a2111000c');
    expect([...got.subarray(16, 20)]).toEqual([127, 0, 0, 1]);
    expect([...got.subarray(20, 24)]).toEqual([127, 0, 0, 1]);
    expect(got.readUInt16BE(24)).toBe(socket.localPort);
    expect(got.readUInt16BE(26)).toBe(proxy.port);
    expect(got.subarray(28, 28 + hs.length).equals(hs)).toBe(true);
    socket.destroy();
  });

  it('routes a TCPShield-tagged address by its name and forwards the tag unchanged', async () => {
    await start();
    const other = await backend();
    table.apply({ name: 'creative', route: route('creative', 'online', other.port) });
    table.apply({ name: 'survival', route: route('survival', 'online', game.port) });
    const hs = handshakeBytes('1.21.4', `creative.${DOMAIN}///203.0.113.9:53123///1700000000///c2lnbmF0dXJl`, 2);
    const { socket } = dial(proxy.port);
    socket.write(Buffer.concat([hs, loginStart('Alex')]));
    await expect.poll(() => other.received[0]?.subarray(0, hs.length).equals(hs)).toBe(true);
    expect(game.sockets).toHaveLength(0);
    socket.destroy();
    await other.close();
  });

  it('answers the status of an offline server itself, with the server’s own version, without waking it', async () => {
    await start();
    table.apply({ name: 'sleepy', route: route('sleepy', 'offline', game.port) });
    // Never the client's number echoed: a launcher of another version shows the server as incompatible.
    for (const version of ['1.8.8', '1.12.2', '1.21.4']) {
      const status = await pingThrough(proxy.port, `sleepy.${DOMAIN}`, version);
      expect(status.version.name).toBe('1.21.4');
      expect(status.version.protocol).toBe(minecraftData('1.21.4').version.version);
      expect(status.players).toMatchObject({ online: 0, max: 10 });
      expect(status.description.text).toBe('Offline — join to start it');
      expect(status.favicon).toBeUndefined(); // no icon: the client shows its default one
    }
    table.apply({ name: 'sleepy', route: route('sleepy', 'sleeping', game.port, ICON) });
    const sleeping = await pingThrough(proxy.port, `sleepy.${DOMAIN}`);
    expect(sleeping.description.text).toBe('Sleeping — join to wake it');
    // The server's own picture stays beside its entry in the player's list while it sleeps.
    expect(sleeping.favicon).toBe(ICON);
    // With a MOTD of its own: its first line in its colours, then the proxy's line in grey.
    table.apply({ name: 'sleepy', route: route('sleepy', 'sleeping', game.port, ICON, '§6§lGold Hills\n§7second line') });
    const own = await pingThrough(proxy.port, `sleepy.${DOMAIN}`);
    expect(own.description.extra).toEqual([
      expect.objectContaining({ text: 'Gold Hills', color: 'gold', bold: true }),
      { text: '\n' },
      { text: 'Sleeping — join to wake it', color: 'gray' },
    ]);
    expect(wakes).toEqual([]);
    expect(game.sockets).toHaveLength(0);
  });

  it('answers one status request per connection, however many a client that never reads sends', async () => {
    await start();
    table.apply({ name: 'sleepy', route: route('sleepy', 'sleeping', game.port, ICON) });
    const { socket, all } = dial(proxy.port);
    const request = Buffer.from([0x01, 0x00]);
    // The handshake, then many status requests at once (each answer carries the icon: an amplifier), then
    // the ping that ends a status exchange.
    const pingPacket = Buffer.from([0x09, 0x01, 1, 2, 3, 4, 5, 6, 7, 8]);
    socket.write(
      Buffer.concat([handshakeBytes('1.21.4', `sleepy.${DOMAIN}`, 1), ...Array.from({ length: 50 }, () => request), pingPacket]),
    );
    const sent = await all;
    const first = readPacket(sent, 1024 * 1024);
    expect(first.kind).toBe('ok');
    if (first.kind !== 'ok') return;
    expect(first.value.id).toBe(0x00);
    // That one answer, then the pong, and nothing else.
    expect(sent.subarray(first.size).equals(pingPacket)).toBe(true);
  });

  it('says a running server cannot be reached, in the server list and on login, when its game port does not answer', async () => {
    await start();
    const closed = await freePort();
    table.apply({ name: 'gone', route: route('gone', 'online', closed) });
    expect((await pingThrough(proxy.port, `gone.${DOMAIN}`)).description.text).toBe(proxyMessages.motd.unreachable);
    const { socket, all } = dial(proxy.port);
    socket.write(Buffer.concat([handshakeBytes('1.21.4', `gone.${DOMAIN}`, 2), loginStart('Steve')]));
    expect(disconnectText(await all)).toBe(proxyMessages.unreachable);
  });

  it('says "No server with this name" in the server list and on the disconnect screen', async () => {
    await start();
    const status = await pingThrough(proxy.port, `nobody.${DOMAIN}`);
    expect(status.description.text).toBe(proxyMessages.unknown);
    const { socket, all } = dial(proxy.port);
    socket.write(Buffer.concat([handshakeBytes('1.21.4', `nobody.${DOMAIN}`, 2), loginStart('Steve')]));
    expect(disconnectText(await all)).toBe('No server with this name');
    expect(wakes).toEqual([]);
  });

  it('holds a login to an offline server while it wakes, then forwards the same connection', async () => {
    await start();
    table.apply({ name: 'sleepy', route: route('sleepy', 'offline', game.port) });
    answerWake = async (serverId) => {
      expect(serverId).toBe('id-sleepy');
      table.apply({ name: 'sleepy', route: route('sleepy', 'starting', game.port) });
      return { result: 'started' };
    };
    const sent = Buffer.concat([handshakeBytes('1.21.4', `sleepy.${DOMAIN}`, 2), loginStart('Steve')]);
    const { socket } = dial(proxy.port);
    socket.write(sent);
    await expect.poll(() => wakes).toEqual(['id-sleepy']);
    // The player's name from their Login Start goes with it (the API checks bans and the whitelist).
    expect(wakingPlayers).toEqual(['Steve']);
    expect(game.sockets).toHaveLength(0);
    table.apply({ name: 'sleepy', route: route('sleepy', 'online', game.port) });
    await expect.poll(() => game.received[0]?.equals(sent)).toBe(true);
    socket.destroy();
  });

  it('tells a client of another version which one to choose, and wakes nothing for it', async () => {
    await start();
    table.apply({ name: 'sleepy', route: route('sleepy', 'sleeping', game.port) });
    for (const version of ['1.20.4', '1.8.8']) {
      const { socket, all } = dial(proxy.port);
      socket.write(Buffer.concat([handshakeBytes(version, `sleepy.${DOMAIN}`, 2), loginStart('Steve')]));
      expect(disconnectText(await all), version).toBe(
        "This server runs Minecraft 1.21.4 — choose 1.21.4 in your launcher's installations, or ask its owner to change the version.",
      );
    }
    expect(wakes).toEqual([]);
  });

  it('starts nothing for a login without a player name (none sent, garbage, or no valid name), and says why', async () => {
    await start();
    table.apply({ name: 'sleepy', route: route('sleepy', 'offline', game.port) });
    const handshake = handshakeBytes('1.21.4', `sleepy.${DOMAIN}`, 2);
    // The API checks the name against the server's bans and whitelist: without one, a stranger's client
    // would start a whitelisted server.
    const garbage = Buffer.concat([writeVarInt(3), Buffer.from([0x00, 0xff, 0xff])]);
    for (const after of [Buffer.alloc(0), garbage, loginStart('a-b'), loginStart('x'.repeat(17))]) {
      const { socket, all } = dial(proxy.port);
      socket.write(Buffer.concat([handshake, after]));
      expect(disconnectText(await all)).toBe(proxyMessages.noName);
    }
    expect(wakes).toEqual([]);
  });

  it('gives the API’s refusal, a failed start and an expired hold as disconnect messages', async () => {
    await start({ holdMs: 300 });
    table.apply({ name: 'sleepy', route: route('sleepy', 'offline', game.port) });
    const login = async () => {
      const { socket, all } = dial(proxy.port);
      socket.write(Buffer.concat([handshakeBytes('1.21.4', `sleepy.${DOMAIN}`, 2), loginStart('Steve')]));
      return disconnectText(await all);
    };
    answerWake = async () => ({ result: 'refused', message: 'Play time for today is used up.' });
    expect(await login()).toBe('Play time for today is used up.');
    answerWake = async () => {
      table.apply({ name: 'sleepy', route: route('sleepy', 'starting', game.port) });
      return { result: 'started' };
    };
    expect(await login()).toBe('The server is starting, try again in a moment.');
    table.apply({ name: 'sleepy', route: route('sleepy', 'offline', game.port) });
    answerWake = async () => {
      table.apply({ name: 'sleepy', route: route('sleepy', 'starting', game.port) });
      setImmediate(() => table.apply({ name: 'sleepy', route: route('sleepy', 'offline', game.port) }));
      return { result: 'started' };
    };
    expect(await login()).toBe(proxyMessages.failedToStart);
  });

  it('tells the player at once when the start failed before the API answered the wake', async () => {
    // An install refused in under a second: its states came and went while the proxy waited for the wake's
    // answer. The player hears the failure now, not "starting, try again" once a minute's hold is out.
    await start({ holdMs: 60_000 });
    const login = async () => {
      const { socket, all } = dial(proxy.port);
      socket.write(Buffer.concat([handshakeBytes('1.21.4', `sleepy.${DOMAIN}`, 2), loginStart('Steve')]));
      return disconnectText(await all);
    };
    table.apply({ name: 'sleepy', route: route('sleepy', 'offline', game.port) });
    answerWake = async () => {
      table.apply({ name: 'sleepy', route: route('sleepy', 'installing', game.port) });
      table.apply({ name: 'sleepy', route: route('sleepy', 'offline', game.port) });
      return { result: 'started' };
    };
    expect(await login()).toBe(proxyMessages.failedToStart);
  });

  it("keeps a server stopped when its owner's setting says so, in the server list and on login, without asking the API", async () => {
    await start();
    const login = async () => {
      const { socket, all } = dial(proxy.port);
      socket.write(Buffer.concat([handshakeBytes('1.21.4', `kept.${DOMAIN}`, 2), loginStart('Steve')]));
      return disconnectText(await all);
    };
    const motd = async () => (await pingThrough(proxy.port, `kept.${DOMAIN}`)).description.text;
    // Only from sleep: a server its owner stopped stays stopped, an asleep one still wakes.
    table.apply({ name: 'kept', route: route('kept', 'offline', game.port, null, '', false, 'sleeping') });
    expect(await motd()).toBe(proxyMessages.motd.stopped);
    expect(await login()).toBe(joinStartRefusal);
    table.apply({ name: 'kept', route: route('kept', 'sleeping', game.port, null, '', false, 'sleeping') });
    expect(await motd()).toBe(proxyMessages.motd.sleeping);
    // Never: not even from sleep.
    table.apply({ name: 'kept', route: route('kept', 'sleeping', game.port, null, '', false, 'never') });
    expect(await motd()).toBe(proxyMessages.motd.stopped);
    expect(await login()).toBe(joinStartRefusal);
    expect(wakes).toEqual([]);
  });

  it('answers legacy (0xFE) pings in the legacy format', async () => {
    await start();
    table.apply({ name: 'sleepy', route: route('sleepy', 'sleeping', game.port) });
    const channel = Buffer.from('MC|PingHost', 'utf16le').swap16();
    const host = `sleepy.${DOMAIN}`;
    const data = Buffer.alloc(3 + host.length * 2 + 4);
    data[0] = 78;
    data.writeUInt16BE(host.length, 1);
    Buffer.from(host, 'utf16le').swap16().copy(data, 3);
    data.writeInt32BE(25565, 3 + host.length * 2);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(data.length);
    const { socket, all } = dial(proxy.port);
    socket.write(Buffer.concat([Buffer.from([0xfe, 0x01, 0xfa, 0x00, 11]), channel, length, data]));
    const answer = await all;
    expect(answer[0]).toBe(0xff);
    expect(Buffer.from(answer.subarray(3)).swap16().toString('utf16le').split('\0')).toEqual([
      '§1',
      // The server's protocol (1.21.4), not the old client's.
      '769',
      '1.21.4',
      'Sleeping — join to wake it',
      '0',
      '10',
    ]);
    // The oldest form (a lone 0xFE) gets the oldest answer once nothing more comes.
    const oldest = dial(proxy.port);
    oldest.socket.write(Buffer.from([0xfe]));
    const text = Buffer.from((await oldest.all).subarray(3))
      .swap16()
      .toString('utf16le');
    expect(text).toBe(`${proxyMessages.unknown}§0§0`);
  });

  it('closes garbage, oversized handshakes, truncated VarInts and slow-loris connections, and keeps serving', async () => {
    await start({ handshakeTimeoutMs: 300 });
    table.apply({ name: 'sleepy', route: route('sleepy', 'offline', game.port) });
    const closedWith = async (bytes: Buffer) => {
      const { socket, all } = dial(proxy.port);
      socket.write(bytes);
      return all;
    };
    // Garbage and oversized: closed at once, nothing answered.
    expect(await closedWith(Buffer.from('GET / HTTP/1.1\r\n\r\n'))).toHaveLength(0);
    expect(await closedWith(Buffer.concat([writeVarInt(5000), Buffer.alloc(1100)]))).toHaveLength(0);
    expect(await closedWith(Buffer.alloc(2000, 0x05))).toHaveLength(0);
    // A truncated VarInt, and a handshake that never finishes: closed after the handshake time.
    const started = Date.now();
    expect(await closedWith(Buffer.from([0x80, 0x80]))).toHaveLength(0);
    const partial = handshakeBytes('1.21.4', `sleepy.${DOMAIN}`, 1);
    expect(await closedWith(partial.subarray(0, 5))).toHaveLength(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    // Slow-loris: a byte now and then still ends at the handshake time.
    const loris = dial(proxy.port);
    const timer = setInterval(() => loris.socket.write(Buffer.from([0x80])), 50);
    await loris.closed;
    clearInterval(timer);
    expect(proxy.connections()).toBe(0);
    // Still answering.
    expect((await pingThrough(proxy.port, `sleepy.${DOMAIN}`)).description.text).toBe('Offline — join to start it');
  });

  it('closes new connections beyond the per-address rate at once', async () => {
    await start({ connectionsPerSecondPerAddress: 3 });
    const dials = Array.from({ length: 20 }, () => dial(proxy.port));
    // Within a second at most 3 (6 if the dials straddle a second) stay open; the rest are closed unanswered.
    await expect.poll(() => dials.filter((d) => d.socket.destroyed || d.socket.readableEnded).length).toBeGreaterThanOrEqual(14);
    for (const d of dials) d.socket.destroy();
  });

  it('holds at most a few open connections per address, so idle ones from a few addresses cannot lock out the rest', async () => {
    await start({ maxConnectionsPerAddress: 3 });
    // Offline: the proxy answers its status itself.
    table.apply({ name: 'up', route: route('up', 'offline', game.port) });
    const idle = Array.from({ length: 3 }, () => dial(proxy.port));
    await Promise.all(idle.map((d) => new Promise((resolve) => d.socket.once('connect', resolve))));
    await expect.poll(() => proxy.connections()).toBe(3);
    // A fourth from the same address is closed at once, unanswered.
    const fourth = dial(proxy.port);
    expect((await fourth.all).length).toBe(0);
    // Another address is served meanwhile (its status answered) …
    const other = await mc
      .ping({
        host: `up.${DOMAIN}`,
        port: proxy.port,
        stream: connect({ port: proxy.port, host: '127.0.0.1', localAddress: '127.0.0.2' }),
      } as Parameters<typeof mc.ping>[0] & { stream: Socket })
      .catch((err: unknown) => err);
    expect(other).not.toBeInstanceOf(Error);
    // … and once one of the first address's connections closes, it may open another.
    idle[0]?.socket.destroy();
    await expect.poll(() => proxy.connections()).toBe(2);
    const again = dial(proxy.port);
    await new Promise((resolve) => again.socket.once('connect', resolve));
    await expect.poll(() => proxy.connections()).toBe(3);
    for (const d of [...idle, again]) d.socket.destroy();
  });

  it('counts an IPv6 /64 as one address, and IPv4 written IPv6-mapped as itself', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
  });
});

describe("a forwarded connection's read buffer", () => {
  it('grows while reads fill it, up to 256 KiB, keeps one buffer meanwhile, and shrinks back after a run of small reads', () => {
    const buffer = new ReadBuffer();
    const first = buffer.next();
    expect(first.length).toBe(16 * 1024);
    buffer.filled(100);
    expect(buffer.next()).toBe(first);
    const sizes: number[] = [];
    for (let i = 0; i < 6; i++) {
      const current = buffer.next();
      buffer.filled(current.length);
      sizes.push(buffer.next().length);
    }
    expect(sizes).toEqual([32, 64, 128, 256, 256, 256].map((k) => k * 1024));
    const grown = buffer.next();
    for (let i = 0; i < ReadBuffer.smallReadsToShrink - 1; i++) buffer.filled(1_000);
    expect(buffer.next()).toBe(grown);
    // One large read in between starts the count again.
    buffer.filled(200 * 1024);
    for (let i = 0; i < ReadBuffer.smallReadsToShrink - 1; i++) buffer.filled(1_000);
    expect(buffer.next()).toBe(grown);
    buffer.filled(1_000);
    expect(buffer.next().length).toBe(16 * 1024);
  });
});
