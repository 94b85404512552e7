import mc from 'minecraft-protocol';
import { writeVarInt } from './protocol.ts';

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
