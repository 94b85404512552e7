import { connect, type Socket } from 'node:net';
import { pipeline } from 'node:stream';
import type { ProxyRoute } from '@spawnpoint/contracts';
import { proxyV2Header } from './protocol.ts';

const NOTHING = Buffer.alloc(0);

export interface GameRelayOptions {
  /** What the client sent before the game was dialled (its handshake, maybe its Login Start): sent first. */
  first: Buffer;
  connectTimeoutMs: number;
  /** The game port did not answer (refused, timed out); the client is left open for the caller to answer. */
  onUnreachable(err: Error): void;
}

/**
 * Joins a player's connection to its game's port: dials it, writes `first`, then relays both ways until
 * either side closes, which closes the other.
 */
export function relayToGame(client: Socket, route: ProxyRoute, options: GameRelayOptions): void {
  // The game's bytes (the heavy direction: chunks, entities) are read into a buffer this connection keeps
  // and written straight on to the player, instead of a new buffer per read through a stream pipeline;
  // that is what keeps a bulk transfer near direct speed (bench/proxy.ts). While the player's socket
  // still holds a chunk (a slow player), reading from the game stops, so the buffer is never overwritten
  // under a pending write and the game feels the player's backpressure.
  const relay = new ReadBuffer();
  const readAgain = () => {
    if (!backend.destroyed) backend.resume();
  };
  const backend = connect({
    host: route.host,
    port: route.port,
    noDelay: true,
    onread: {
      buffer: () => relay.next(),
      callback: (bytes, buffer) => {
        relay.filled(bytes);
        if (client.destroyed) return false;
        client.write(buffer.subarray(0, bytes));
        if (client.writableLength === 0) return true;
        // The write waits for the player and holds this buffer: an empty write after it calls back once
        // it has gone out (writes keep their order), and only then is the game read again.
        client.write(NOTHING, readAgain);
        return false;
      },
    },
  });
  let connected = false;
  const connectTimer = setTimeout(() => backend.destroy(new Error('connect timeout')), options.connectTimeoutMs);
  backend.on('error', (err) => {
    if (connected) return;
    clearTimeout(connectTimer);
    client.off('close', closeBoth);
    options.onUnreachable(err);
  });
  // Both sides close together (a client that leaves while the game port is dialled ends that too).
  const closeBoth = () => {
    clearTimeout(connectTimer);
    client.destroy();
    backend.destroy();
  };
  client.once('close', closeBoth);
  backend.once('connect', () => {
    connected = true;
    clearTimeout(connectTimer);
    if (client.destroyed) return closeBoth();
    backend.once('close', closeBoth);
    // A game server that asked for it learns the player's real address before the first byte of theirs.
    if (route.proxyProtocol && client.remoteAddress && client.localAddress)
      backend.write(
        proxyV2Header(
          { address: client.remoteAddress, port: client.remotePort ?? 0 },
          { address: client.localAddress, port: client.localPort ?? 0 },
        ),
      );
    backend.write(options.first);
    // The player's bytes (small: moves, chat) go through a pipeline, which respects backpressure too.
    pipeline(client, backend, closeBoth);
    backend.once('end', () => client.end());
  });
}

/**
 * The buffer one forwarded connection reads its game's bytes into: 16 KiB at first (a player's ordinary
 * stream is far below that per read), doubled each time a read fills it, up to 256 KiB (a burst such as the
 * chunks sent on joining), and back to 16 KiB after a run of small reads, so a thousand players who joined
 * hold 16 MB between them, not the 256 MB of their joining bursts. Pages of it that no read reached are
 * never touched, so they take no memory.
 */
export class ReadBuffer {
  static readonly first = 16 * 1024;
  static readonly most = 256 * 1024;
  /** Reads in a row that used at most a quarter of a grown buffer, after which it shrinks. */
  static readonly smallReadsToShrink = 32;
  private buffer = Buffer.allocUnsafe(ReadBuffer.first);
  private size = ReadBuffer.first;
  private smallReads = 0;

  /** The buffer for the next read (Node asks once at connect and after every read). */
  next(): Buffer {
    // A new buffer only when the size changes; the old one may still be held by a write to the player
    // (reading waits for that write, and the garbage collector frees the old buffer after it).
    if (this.buffer.length !== this.size) this.buffer = Buffer.allocUnsafe(this.size);
    return this.buffer;
  }

  filled(bytes: number): void {
    const length = this.buffer.length;
    if (bytes >= length) {
      this.smallReads = 0;
      if (length < ReadBuffer.most) this.size = length * 2;
    } else if (length === ReadBuffer.first || bytes > length / 4) {
      this.smallReads = 0;
    } else if (++this.smallReads >= ReadBuffer.smallReadsToShrink) {
      this.smallReads = 0;
      this.size = ReadBuffer.first;
    }
  }
}
