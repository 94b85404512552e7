import { describe, expect, it } from 'vitest';
import {
  ipv6Bytes,
  proxyV2Header,
  HANDSHAKE_MAX_BYTES,
  legacyPingResponse,
  normaliseAddress,
  readHandshake,
  readLegacyPing,
  readLoginName,
  readPacket,
  readVarInt,
  serverNameOf,
  writeVarInt,
} from './protocol.ts';
import { handshakeBytes, protocolOf, protocols } from './test-bytes.ts';

describe('VarInt', () => {
  it('reads the protocol documentation’s examples', () => {
    const cases: [string, number][] = [
      ['00', 0],
      ['01', 1],
      ['7f', 127],
      ['8001', 128],
      ['ff01', 255],
      ['ddc701', 25565],
      ['ffff7f', 2097151],
      ['ffffffff07', 2147483647],
      ['ffffffff0f', -1],
      ['8080808008', -2147483648],
    ];
    for (const [hex, value] of cases) {
      expect(readVarInt(Buffer.from(hex, 'hex'))).toEqual({ kind: 'ok', value, size: hex.length / 2 });
      expect(writeVarInt(value).toString('hex')).toBe(hex);
    }
  });

  it('says a truncated VarInt needs more bytes and refuses one longer than 5 bytes', () => {
    expect(readVarInt(Buffer.from('80', 'hex')).kind).toBe('incomplete');
    expect(readVarInt(Buffer.from('ffffff', 'hex')).kind).toBe('incomplete');
    expect(readVarInt(Buffer.alloc(0)).kind).toBe('incomplete');
    expect(readVarInt(Buffer.from('ffffffffff01', 'hex')).kind).toBe('invalid');
  });
});

describe('the handshake', () => {
  it.each(Object.keys(protocols))('reads a %s handshake and leaves the login start that follows it alone', (version) => {
    const hs = handshakeBytes(version, 'MyServer.play.example.com', 2, 25565);
    const loginStart = Buffer.from('0a00085374657665', 'hex');
    const read = readHandshake(Buffer.concat([hs, loginStart]));
    expect(read).toEqual({
      kind: 'ok',
      value: { protocolVersion: protocolOf(version), address: 'MyServer.play.example.com', port: 25565, nextState: 2 },
      size: hs.length,
    });
  });

  it('reads status (1), login (2) and transfer (3) as the next state', () => {
    for (const next of [1, 2, 3] as const) {
      const read = readHandshake(handshakeBytes('1.21.4', 'a.play.test', next, 25570));
      expect(read.kind === 'ok' && read.value).toMatchObject({ nextState: next, port: 25570 });
    }
  });

  it('needs more bytes for every prefix of a handshake split across TCP packets, never calling it invalid', () => {
    const hs = handshakeBytes('1.20.4', 'survival.play.example.com\0FML3\0', 2);
    for (let cut = 0; cut < hs.length; cut++) expect(readHandshake(hs.subarray(0, cut)).kind).toBe('incomplete');
    expect(readHandshake(hs).kind).toBe('ok');
  });

  it('refuses an oversized handshake from its length prefix alone, before the bytes arrive', () => {
    const declared = Buffer.concat([writeVarInt(HANDSHAKE_MAX_BYTES), Buffer.from([0x00])]);
    expect(readHandshake(declared)).toMatchObject({ kind: 'invalid' });
    // A TCPShield-style address of 400 characters still fits.
    const long = handshakeBytes('1.21.4', `a.play.test///1.2.3.4:5555///1700000000///${'s'.repeat(350)}`, 2);
    expect(long.length).toBeLessThan(HANDSHAKE_MAX_BYTES);
    expect(readHandshake(long).kind).toBe('ok');
  });

  it('refuses garbage: other packets, bad next states, addresses past the packet, non-UTF-8, negative lengths', () => {
    const frame = (...bytes: number[]) => Buffer.concat([writeVarInt(bytes.length), Buffer.from(bytes)]);
    const bad = [
      frame(0x01, 0x00), // not packet 0
      frame(0x00, 0x2f, 0x01, 0x61, 0x63, 0xdd, 0x04), // next state 4
      frame(0x00, 0x2f, 0x10, 0x61, 0x63, 0xdd, 0x02), // address length 16 with one byte
      frame(0x00, 0x2f, 0x02, 0xc3, 0x28, 0x63, 0xdd, 0x02), // invalid UTF-8
      frame(0x00, 0x2f, 0x01, 0x61, 0x63, 0xdd, 0x02, 0x00), // a byte after the fields
      Buffer.from('ffffffff0f00', 'hex'), // length -1
      Buffer.from('00', 'hex'), // length 0
      Buffer.from('ffffffffff', 'hex'), // a VarInt longer than 5 bytes
      Buffer.from('GET / HTTP/1.1\r\nHost: example\r\n\r\n'),
    ];
    for (const bytes of bad) expect(readHandshake(bytes)).toMatchObject({ kind: 'invalid' });
  });

  it('never throws on random bytes', () => {
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let i = 0; i < 5000; i++) {
      const bytes = Buffer.from(Array.from({ length: Math.floor(random() * 64) }, () => Math.floor(random() * 256)));
      expect(() => readHandshake(bytes)).not.toThrow();
      expect(() => readLegacyPing(bytes)).not.toThrow();
      expect(() => readPacket(bytes, HANDSHAKE_MAX_BYTES)).not.toThrow();
    }
  });
});

describe('the Login Start', () => {
  const login = (name: Buffer) => {
    const body = Buffer.concat([writeVarInt(0), writeVarInt(name.length), name, Buffer.alloc(16)]);
    return Buffer.concat([writeVarInt(body.length), body]);
  };

  it('reads the player name, and nothing from a partial packet, another packet or a name the game would refuse', () => {
    expect(readLoginName(login(Buffer.from('Steve_01')))).toBe('Steve_01');
    expect(readLoginName(login(Buffer.from('Steve')).subarray(0, 5))).toBeNull();
    expect(readLoginName(Buffer.alloc(0))).toBeNull();
    for (const bad of ['', 'a'.repeat(17), 'Ste ve', 'Stéve', '\u202Eevil'])
      expect(readLoginName(login(Buffer.from(bad))), JSON.stringify(bad)).toBeNull();
    const otherPacket = Buffer.concat([writeVarInt(3), writeVarInt(1), Buffer.from([1, 65])]);
    expect(readLoginName(otherPacket)).toBeNull();
  });
});

describe('the address', () => {
  it('cuts Forge markers, TCPShield suffixes and backslashes, drops trailing dots and lowers the case', () => {
    const cases: [string, string][] = [
      ['MyServer.Play.Example.com', 'myserver.play.example.com'],
      ['myserver.play.example.com\0FML\0', 'myserver.play.example.com'],
      ['myserver.play.example.com\0FML2\0', 'myserver.play.example.com'],
      ['myserver.play.example.com\0FML3\0', 'myserver.play.example.com'],
      ['myserver.play.example.com\0FORGE', 'myserver.play.example.com'],
      ['myserver.play.example.com///203.0.113.9:53123///1700000000///c2lnbmF0dXJl', 'myserver.play.example.com'],
      ['myserver.play.example.com\\\\extra', 'myserver.play.example.com'],
      ['myserver.play.example.com\\extra', 'myserver.play.example.com'],
      ['myserver.play.example.com.', 'myserver.play.example.com'],
      ['myserver.play.example.com.\0FML2\0', 'myserver.play.example.com'],
    ];
    for (const [raw, host] of cases) expect(normaliseAddress(raw)).toBe(host);
  });

  it('finds the server by the label right under the play domain', () => {
    expect(serverNameOf('myserver.play.example.com', 'play.example.com')).toBe('myserver');
    expect(serverNameOf('www.myserver.play.example.com', 'Play.Example.com.')).toBe('myserver');
    expect(serverNameOf('play.example.com', 'play.example.com')).toBeNull();
    expect(serverNameOf('myserver.otherplay.example.com', 'play.example.com')).toBeNull();
    expect(serverNameOf('127.0.0.1', 'play.example.com')).toBeNull();
    expect(serverNameOf('my_server.play.example.com', 'play.example.com')).toBeNull();
  });
});

describe('legacy (0xFE) pings', () => {
  const pingHost = (host: string, port: number) => {
    const channel = Buffer.from('MC|PingHost', 'utf16le').swap16();
    const hostBytes = Buffer.from(host, 'utf16le').swap16();
    const data = Buffer.alloc(1 + 2 + hostBytes.length + 4);
    data[0] = 78; // 1.6.4
    data.writeUInt16BE(host.length, 1);
    hostBytes.copy(data, 3);
    data.writeInt32BE(port, 3 + hostBytes.length);
    const head = Buffer.from([0xfe, 0x01, 0xfa, 0x00, 11]);
    const dataLength = Buffer.alloc(2);
    dataLength.writeUInt16BE(data.length);
    return Buffer.concat([head, channel, dataLength, data]);
  };

  it('reads the 1.6 ping with its host, and waits while it is still arriving', () => {
    const bytes = pingHost('MyServer.play.example.com', 25565);
    for (let cut = 1; cut < bytes.length; cut++) expect(readLegacyPing(bytes.subarray(0, cut)).complete).toBe(false);
    expect(readLegacyPing(bytes)).toEqual({
      complete: true,
      ping: { format: 'modern', protocolVersion: 78, host: 'MyServer.play.example.com' },
    });
  });

  it('tells the 1.4–1.5 form (0xFE 0x01) from the oldest (0xFE)', () => {
    expect(readLegacyPing(Buffer.from([0xfe])).ping.format).toBe('old');
    expect(readLegacyPing(Buffer.from([0xfe, 0x01])).ping.format).toBe('modern');
    expect(readLegacyPing(Buffer.from([0xfe, 0x01, 0x00])).complete).toBe(true);
  });

  it('answers in the legacy format: 0xFF, the length in characters, UTF-16BE', () => {
    const info = { versionName: '1.21.4', protocolVersion: 78, online: 0, max: 10, motd: 'Sleeping — join to wake it' };
    const modern = legacyPingResponse('modern', info);
    expect(modern[0]).toBe(0xff);
    const text = Buffer.from(modern.subarray(3)).swap16().toString('utf16le');
    expect(modern.readUInt16BE(1)).toBe(text.length);
    expect(text.split('\0')).toEqual(['§1', '78', '1.21.4', 'Sleeping — join to wake it', '0', '10']);
    const old = legacyPingResponse('old', info);
    expect(Buffer.from(old.subarray(3)).swap16().toString('utf16le')).toBe('Sleeping — join to wake it§0§10');
  });
});

describe('PROXY protocol v2', () => {
  it('writes IPv4, unmaps IPv4-in-IPv6, and writes IPv6 addresses in full', () => {
    const v4 = proxyV2Header({ address: '::ffff:203.0.113.9', port: 53123 }, { address: '198.51.100.1', port: 25565 });
    expect(v4.toString('hex')).toBe('0d0a0d0a000d0a515549540a2111000c' + 'cb007109' + 'c6336401' + 'cf83' + '63dd');
    const v6 = proxyV2Header({ address: '2001:db8::1', port: 1 }, { address: '::1', port: 2 });
    expect(v6.subarray(12, 16).toString('hex')).toBe('21210024');
    expect(v6.subarray(16, 32).toString('hex')).toBe('20010db8000000000000000000000001');
    expect(v6.subarray(32, 48).toString('hex')).toBe('00000000000000000000000000000001');
    expect([v6.readUInt16BE(48), v6.readUInt16BE(50)]).toEqual([1, 2]);
    expect(ipv6Bytes('::ffff:1.2.3.4')?.toString('hex')).toBe('00000000000000000000ffff01020304');
    expect(ipv6Bytes('not an address')).toBeNull();
  });
});
