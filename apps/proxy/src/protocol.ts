/**
 * The few pieces of the Minecraft Java protocol the join proxy reads and writes, on raw bytes. Everything a
 * client sends is hostile: every read is bounded, a truncated VarInt is "need more", an over-long one is
 * invalid, and nothing here throws on any input. The proxy forwards the client's own bytes unchanged; these
 * readers only look at them.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { motdComponent, type MotdComponentPart } from '@spawnpoint/contracts';

/** The handshake packet (with its length prefix) may be at most this long. */
export const HANDSHAKE_MAX_BYTES = 1024;

export type Read<T> = { kind: 'ok'; value: T; size: number } | { kind: 'incomplete' } | { kind: 'invalid'; reason: string };

/** A VarInt (at most 5 bytes, a signed 32-bit value) at `offset`. */
export function readVarInt(buf: Buffer, offset = 0): Read<number> {
  let value = 0;
  for (let i = 0; i < 5; i++) {
    const byte = buf[offset + i];
    if (byte === undefined) return { kind: 'incomplete' };
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return { kind: 'ok', value, size: i + 1 };
  }
  return { kind: 'invalid', reason: 'VarInt longer than 5 bytes' };
}

export function writeVarInt(value: number): Buffer {
  const bytes: number[] = [];
  let v = value >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (v !== 0);
  return Buffer.from(bytes);
}

export function writeString(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([writeVarInt(bytes.length), bytes]);
}

/** A framed packet: VarInt length, VarInt id, payload. */
export function packet(id: number, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat([writeVarInt(id), ...payload]);
  return Buffer.concat([writeVarInt(body.length), body]);
}

/** One framed packet at the start of `buf`, at most `maxBytes` with its length prefix. */
export function readPacket(buf: Buffer, maxBytes: number): Read<{ id: number; body: Buffer }> {
  const length = readVarInt(buf);
  if (length.kind === 'invalid') return length;
  if (length.kind === 'incomplete') return buf.length >= 5 ? { kind: 'invalid', reason: 'bad length' } : length;
  if (length.value <= 0) return { kind: 'invalid', reason: 'empty or negative packet length' };
  if (length.size + length.value > maxBytes) return { kind: 'invalid', reason: `packet longer than ${maxBytes} bytes` };
  const end = length.size + length.value;
  if (buf.length < end) return { kind: 'incomplete' };
  const frame = buf.subarray(length.size, end);
  const id = readVarInt(frame);
  if (id.kind !== 'ok') return { kind: 'invalid', reason: 'bad packet id' };
  return { kind: 'ok', value: { id: id.value, body: frame.subarray(id.size) }, size: end };
}

/**
 * The player name of a Login Start packet at the start of `buf` (its first field in every version since
 * 1.7), or null when it is not all there yet or is not a valid name. Only read to tell the API who is
 * joining; the bytes go to the game unchanged.
 */
export function readLoginName(buf: Buffer): string | null {
  const read = readPacket(buf, HANDSHAKE_MAX_BYTES);
  if (read.kind !== 'ok' || read.value.id !== 0) return null;
  const length = readVarInt(read.value.body);
  if (length.kind !== 'ok' || length.value < 1 || length.value > 16) return null;
  const name = read.value.body.subarray(length.size, length.size + length.value).toString('utf8');
  return /^[A-Za-z0-9_]{1,16}$/.test(name) ? name : null;
}

export type NextState = 1 | 2 | 3;

export interface Handshake {
  protocolVersion: number;
  /** The address as sent, with any Forge marker or TCPShield suffix (see normaliseAddress). */
  address: string;
  port: number;
  /** 1 status, 2 login, 3 transfer. */
  nextState: NextState;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The handshake at the start of a connection. `size` is how many bytes it took; the proxy forwards those
 * same bytes. A first byte 0xFE is a legacy (pre-1.7) server-list ping, which has no handshake.
 */
export function readHandshake(buf: Buffer): Read<Handshake> | { kind: 'legacy' } {
  if (buf.length > 0 && buf[0] === 0xfe) return { kind: 'legacy' };
  // The packet id (0) follows the length: anything else is not Minecraft (an HTTP request, say), known at once.
  const length = readVarInt(buf);
  if (length.kind === 'ok' && buf.length > length.size && buf[length.size] !== 0x00) return { kind: 'invalid', reason: 'not a handshake' };
  const frame = readPacket(buf, HANDSHAKE_MAX_BYTES);
  if (frame.kind !== 'ok') return frame;
  const { id, body } = frame.value;
  if (id !== 0) return { kind: 'invalid', reason: `not a handshake (packet ${id})` };
  const protocol = readVarInt(body);
  if (protocol.kind !== 'ok') return { kind: 'invalid', reason: 'bad protocol version' };
  let at = protocol.size;
  const addressLength = readVarInt(body, at);
  if (addressLength.kind !== 'ok' || addressLength.value < 0) return { kind: 'invalid', reason: 'bad address length' };
  at += addressLength.size;
  if (at + addressLength.value + 3 > body.length) return { kind: 'invalid', reason: 'address runs past the packet' };
  let address: string;
  try {
    address = utf8.decode(body.subarray(at, at + addressLength.value));
  } catch {
    return { kind: 'invalid', reason: 'address is not UTF-8' };
  }
  at += addressLength.value;
  const port = body.readUInt16BE(at);
  at += 2;
  const next = readVarInt(body, at);
  if (next.kind !== 'ok') return { kind: 'invalid', reason: 'bad next state' };
  at += next.size;
  if (next.value !== 1 && next.value !== 2 && next.value !== 3) return { kind: 'invalid', reason: `unknown next state ${next.value}` };
  if (at !== body.length) return { kind: 'invalid', reason: 'bytes after the handshake fields' };
  return { kind: 'ok', value: { protocolVersion: protocol.value, address, port, nextState: next.value }, size: frame.size };
}

/**
 * The host a player typed, from the handshake's address: cut at the first NUL (Forge appends `\0FML\0`,
 * `\0FML2\0`, `\0FML3\0`, `\0FORGE`), at `///` (TCPShield appends `///ip:port///time///signature`) and
 * at a backslash; trailing dots removed (a fully qualified name); lower case.
 */
export function normaliseAddress(raw: string): string {
  let host = raw;
  for (const cut of ['\0', '///', '\\']) {
    const at = host.indexOf(cut);
    if (at >= 0) host = host.slice(0, at);
  }
  return host.replace(/\.+$/, '').toLowerCase();
}

/**
 * The server name in a normalised host: the label right under the play domain
 * (`myserver.play.example` and `www.myserver.play.example` → `myserver`), or null when the host is not
 * under it (an IP address, the bare domain, another site).
 */
export function serverNameOf(host: string, playDomain: string): string | null {
  const domain = normaliseAddress(playDomain);
  if (!host.endsWith(`.${domain}`)) return null;
  const labels = host.slice(0, -(domain.length + 1)).split('.');
  const name = labels[labels.length - 1] ?? '';
  return /^[a-z0-9-]{1,63}$/.test(name) ? name : null;
}

/** A legacy (0xFE) ping: which format to answer in, and the host 1.6 clients send. */
export interface LegacyPing {
  /** `old`: a bare 0xFE (1.3 and older); `modern`: 0xFE 0x01 (1.4 to 1.6). */
  format: 'old' | 'modern';
  protocolVersion?: number;
  host?: string;
}

const PING_HOST = Buffer.from('MC|PingHost', 'utf16le').swap16();

function utf16be(bytes: Buffer): string {
  return Buffer.from(bytes).swap16().toString('utf16le');
}

/**
 * Reads a legacy ping. `complete` is false while a 1.6 ping (0xFE 0x01 0xFA + MC|PingHost) may still be
 * arriving; the proxy answers with what it has once no more comes (1.4 and 1.5 send only 0xFE 0x01).
 */
export function readLegacyPing(buf: Buffer): { complete: boolean; ping: LegacyPing } {
  if (buf.length < 2 || buf[1] !== 0x01) return { complete: buf.length >= 2, ping: { format: 'old' } };
  const modern: LegacyPing = { format: 'modern' };
  if (buf.length < 3) return { complete: false, ping: modern };
  if (buf[2] !== 0xfa) return { complete: true, ping: modern };
  // 0xFA, short channel length (11), the channel in UTF-16BE, short data length, then the data.
  const headerEnd = 3 + 2 + PING_HOST.length + 2;
  if (buf.length < headerEnd) return { complete: false, ping: modern };
  if (buf.readUInt16BE(3) !== 11 || !buf.subarray(5, 5 + PING_HOST.length).equals(PING_HOST)) return { complete: true, ping: modern };
  const dataLength = buf.readUInt16BE(headerEnd - 2);
  if (buf.length < headerEnd + dataLength) return { complete: false, ping: modern };
  const data = buf.subarray(headerEnd, headerEnd + dataLength);
  if (data.length < 3) return { complete: true, ping: modern };
  const hostChars = data.readUInt16BE(1);
  if (3 + hostChars * 2 > data.length) return { complete: true, ping: { ...modern, protocolVersion: data[0] } };
  return {
    complete: true,
    ping: { format: 'modern', protocolVersion: data[0], host: utf16be(data.subarray(3, 3 + hostChars * 2)) },
  };
}

export interface StatusInfo {
  versionName: string;
  protocolVersion: number;
  online: number;
  max: number;
  motd: string;
  /** A PNG data URL shown beside the entry in the server list (modern pings only). */
  favicon?: string | null;
  /** The server's own MOTD: its first line, in its colours, above `motd` (modern pings only). */
  serverMotd?: string;
}

/** The status answer's description: the server's first MOTD line in its colours, then the proxy's line in grey. */
function description(info: StatusInfo): { text: string; extra?: MotdComponentPart[] } {
  const first = (info.serverMotd ?? '').replace(/\r\n?/g, '\n').split('\n')[0] ?? '';
  const own = first.trim() ? motdComponent(first).extra : undefined;
  if (!own?.length) return { text: info.motd };
  return { text: '', extra: [...own, { text: '\n' }, { text: info.motd, color: 'gray' }] };
}

/** The answer to a legacy ping: 0xFF, the length in UTF-16 units, the text in UTF-16BE. */
export function legacyPingResponse(format: LegacyPing['format'], info: StatusInfo): Buffer {
  const text =
    format === 'modern'
      ? ['§1', String(info.protocolVersion), info.versionName, info.motd, String(info.online), String(info.max)].join('\0')
      : [info.motd.replaceAll('§', ''), String(info.online), String(info.max)].join('§');
  const body = Buffer.from(text, 'utf16le').swap16();
  const head = Buffer.alloc(3);
  head[0] = 0xff;
  head.writeUInt16BE(body.length / 2, 1);
  return Buffer.concat([head, body]);
}

/** The status response packet (JSON) of the modern server-list ping. */
export function statusResponse(info: StatusInfo): Buffer {
  const json = JSON.stringify({
    version: { name: info.versionName, protocol: info.protocolVersion },
    players: { max: info.max, online: info.online, sample: [] },
    description: description(info),
    ...(info.favicon ? { favicon: info.favicon } : {}),
    enforcesSecureChat: false,
  });
  return packet(0x00, writeString(json));
}

/** The login-state Disconnect packet: a JSON chat component the client shows on its disconnect screen. */
export function loginDisconnect(message: string): Buffer {
  return packet(0x00, writeString(JSON.stringify({ text: message })));
}

/** PROXY protocol v2's fixed signature. */
const PROXY_V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);

/** An IPv6 address as its 16 bytes (`::` runs and an embedded IPv4 tail included); null when it is none. */
export function ipv6Bytes(address: string): Buffer | null {
  if (!isIPv6(address)) return null;
  let text = address.split('%')[0]!;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  if (groups.length !== 8) return null;
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g || '0', 16), i * 2));
  return out;
}

/**
 * The PROXY protocol v2 header that opens a connection to a game server which expects one: the player's
 * address and port (source) and the address they connected to (destination). An IPv4 address mapped into
 * IPv6 (`::ffff:1.2.3.4`) is sent as IPv4; two addresses of different families, as IPv6.
 */
export function proxyV2Header(source: { address: string; port: number }, destination: { address: string; port: number }): Buffer {
  const unmap = (a: string) => (a.startsWith('::ffff:') && isIPv4(a.slice(7)) ? a.slice(7) : a);
  const src = unmap(source.address);
  const dst = unmap(destination.address);
  const ports = Buffer.alloc(4);
  ports.writeUInt16BE(source.port, 0);
  ports.writeUInt16BE(destination.port, 2);
  if (isIPv4(src) && isIPv4(dst)) {
    const v4 = (a: string) => Buffer.from(a.split('.').map(Number));
    const body = Buffer.concat([v4(src), v4(dst), ports]);
    return Buffer.concat([PROXY_V2_SIGNATURE, Buffer.from([0x21, 0x11, 0x00, body.length]), body]);
  }
  const v6 = (a: string) => (isIPv4(a) ? ipv6Bytes(`::ffff:${a}`) : ipv6Bytes(a)) ?? Buffer.alloc(16);
  const body = Buffer.concat([v6(src), v6(dst), ports]);
  return Buffer.concat([PROXY_V2_SIGNATURE, Buffer.from([0x21, 0x21, 0x00, body.length]), body]);
}
