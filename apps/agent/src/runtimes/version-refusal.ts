import { wrongVersionMessage } from '@spawnpoint/contracts';

/** The parts of minecraft-protocol's server and its connections this needs. */
interface ProtocolServer {
  mcversion: { version: number; minecraftVersion: string };
  on(event: 'connection', listener: (client: HandshakingClient) => void): unknown;
}
interface HandshakingClient {
  state: string;
  end(reason: string): void;
  prependOnceListener(event: 'set_protocol', listener: (packet: { protocolVersion: number; nextState: number }) => void): unknown;
}

/**
 * minecraft-protocol ends a login from another protocol while the connection is still in its handshake
 * state, where no disconnect packet can be written: the player saw "Connection lost" and nothing else. Such
 * a login is put in the login state first, so the game's end writes a disconnect, and its words are ours
 * (the version to choose in the launcher), not "Wrong protocol version, expected: 769".
 */
export function sayWrongVersion(server: ProtocolServer): void {
  const { version: protocol, minecraftVersion } = server.mcversion;
  const words = wrongVersionMessage(minecraftVersion);
  server.on('connection', (client) => {
    client.prependOnceListener('set_protocol', (packet) => {
      if (packet.nextState !== 2 || packet.protocolVersion === protocol) return;
      client.state = 'login';
      const end = client.end.bind(client);
      client.end = () => end(words);
    });
  });
}
