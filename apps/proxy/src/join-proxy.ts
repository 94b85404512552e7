import { createServer, type Server, type Socket } from 'node:net';
import type { ProxyWakeResult } from '@spawnpoint/contracts';
import { ProxyConnection } from './proxy-connection.ts';
import { PROXY_DEFAULTS, type JoinProxyOptions } from './proxy-settings.ts';

export { ReadBuffer } from './game-relay.ts';
export { HELD_BYTES_MAX, PROXY_DEFAULTS, protocolOf, proxyMessages, type JoinProxyOptions, type ProxyLog } from './proxy-settings.ts';

/**
 * Whom a connection counts against: its IPv4 address (also when written IPv4-mapped), or its IPv6 /64 — one
 * subscriber's whole network, where every address costs nothing to use.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** Counts new connections per address in one-second windows; the map is emptied every second. */
class ConnectionRate {
  private window = 0;
  private counts = new Map<string, number>();
  constructor(private perSecond: number) {}
  allow(address: string, now = Date.now()): boolean {
    const window = Math.floor(now / 1000);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const n = (this.counts.get(address) ?? 0) + 1;
    this.counts.set(address, n);
    return n <= this.perSecond;
  }
}

export interface JoinProxy {
  server: Server;
  port: number;
  /** Open client connections. */
  connections(): number;
  close(): Promise<void>;
}

/** Starts listening; rejects when the port cannot be bound (EADDRINUSE, EACCES). */
export async function startJoinProxy(options: JoinProxyOptions, listen: { port: number; host?: string }): Promise<JoinProxy> {
  const settings = { ...PROXY_DEFAULTS, ...options };
  const rate = new ConnectionRate(settings.connectionsPerSecondPerAddress);
  const open = new Set<Socket>();
  const wakes = new Map<string, Promise<ProxyWakeResult>>();

  // Logins of one player arriving together for one server share one request to the API (another player
  // asks for themselves: the API may refuse one name and not another).
  const wakeOnce = (serverId: string, player: string): Promise<ProxyWakeResult> => {
    const key = `${serverId}\0${player}`;
    let pending = wakes.get(key);
    if (!pending) {
      pending = options.wake(serverId, player).finally(() => wakes.delete(key));
      wakes.set(key, pending);
    }
    return pending;
  };

  const perAddress = new Map<string, number>();
  const server = createServer({ noDelay: true }, (client) => {
    client.on('error', () => undefined); // resets are normal; the connection just ends
    const address = addressKey(client.remoteAddress ?? '');
    const held = perAddress.get(address) ?? 0;
    if (open.size >= settings.maxConnections || held >= settings.maxConnectionsPerAddress || !rate.allow(address)) {
      client.destroy();
      return;
    }
    open.add(client);
    perAddress.set(address, held + 1);
    client.once('close', () => {
      open.delete(client);
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
    // It lives as long as the socket does, through the listeners it puts on it.
    new ProxyConnection(client, settings, wakeOnce);
  });

  await new Promise<void>((resolve, reject) => {
    const failed = (err: Error) => reject(err);
    server.once('error', failed);
    server.listen(listen.port, listen.host, () => {
      server.off('error', failed);
      server.on('error', (err) => options.log.warn({ err }, 'join proxy listener error'));
      resolve();
    });
  });
  const bound = server.address();
  return {
    server,
    port: typeof bound === 'object' && bound ? bound.port : listen.port,
    connections: () => open.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}
