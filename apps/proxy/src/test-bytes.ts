import type { ProxyRoute } from '@spawnpoint/contracts';
import { z } from 'zod';
import mc from 'minecraft-protocol';
import { readPacket, readVarInt, writeVarInt } from './protocol.ts';

/** A handshake exactly as minecraft-protocol's client writes it for `version`, framed. */
export function handshakeBytes(version: string, serverHost: string, nextState: 1 | 2 | 3, serverPort = 25565): Buffer {
  const serializer = mc.createSerializer({ state: mc.states.HANDSHAKING, isServer: false, version, customPackets: {} });
  const body = serializer.createPacketBuffer({
    name: 'set_protocol',
    params: { protocolVersion: protocolOf(version), serverHost, serverPort, nextState },
  });
  return Buffer.concat([writeVarInt(body.length), body]);
}

export const protocols: Record<string, number> = { '1.8.8': 47, '1.12.2': 340, '1.20.4': 765, '1.21.4': 769 };
export function protocolOf(version: string): number {
  const protocol = protocols[version];
  if (protocol === undefined) throw new Error(`no protocol number for ${version}`);
  return protocol;
}

/** The JSON text of a login Disconnect packet. */
export function disconnectText(bytes: Buffer): string {
  const read = readPacket(bytes, 64 * 1024);
  if (read.kind !== 'ok' || read.value.id !== 0) throw new Error(`not a disconnect: ${bytes.toString('hex')}`);
  const length = readVarInt(read.value.body);
  if (length.kind !== 'ok') throw new Error('bad string');
  const json: unknown = JSON.parse(read.value.body.subarray(length.size, length.size + length.value).toString('utf8'));
  return z.object({ text: z.string() }).parse(json).text;
}

/** A Login Start naming `username`, framed, as a 1.21.4 client sends it. */
export const loginStart = (username: string) => {
  const body = mc
    .createSerializer({ state: mc.states.LOGIN, isServer: false, version: '1.21.4', customPackets: {} })
    .createPacketBuffer({ name: 'login_start', params: { username, playerUUID: '00000000-0000-3000-8000-000000000000' } });
  return Buffer.concat([writeVarInt(body.length), body]);
};

/** A route as the API pushes it, on 127.0.0.1, for Minecraft 1.21.4. */
export function route(
  name: string,
  state: ProxyRoute['state'],
  port: number,
  icon: string | null = null,
  motd = '',
  proxyProtocol = false,
  joinStart: ProxyRoute['joinStart'] = 'always',
): ProxyRoute {
  return {
    name,
    serverId: `id-${name}`,
    host: '127.0.0.1',
    port,
    state,
    maxPlayers: 10,
    version: '1.21.4',
    icon,
    motd,
    proxyProtocol,
    joinStart,
  };
}
