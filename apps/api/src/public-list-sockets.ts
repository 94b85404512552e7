import {
  BROWSER_MESSAGE_BYTES_MAX,
  PUBLIC_LIST_NAMESPACE,
  PUBLIC_SOCKETS_PER_ADDRESS_MAX,
  publicWatchPayload,
  type PublicServerEvent,
} from '@spawnpoint/contracts';
import type { Given } from './context.ts';
import { clientAddress } from './http/client-address.ts';
import { LiveCounts, type Realtime } from './realtime.ts';

/** What this module is given of the context (context.ts). */
type Services = Given<'config', 'directory' | 'hub'>;

// Changes are sent at most this often per server (a busy server's count moves with every join).
const FLUSH_MS = 1000;
const room = (name: string) => `list:${name}`;

/**
 * Live counts for the public server list and the public server pages: anonymous sockets on their own
 * namespace, capped per address and in message size, that may only say which listed servers they show
 * (`public:watch`); they then get `public:server` with each one's state and players when it changes.
 * Nothing else is accepted, and nothing but what the list already shows is sent.
 */
export function handlePublicListSockets(io: Realtime, ctx: Services): void {
  const { directory, hub } = ctx.game;
  const ns = io.of(PUBLIC_LIST_NAMESPACE);
  const perAddress = new LiveCounts();

  ns.on('connection', (socket) => {
    const address = clientAddress(socket.handshake, ctx.config.TRUST_PROXY);
    if (perAddress.of(address) >= PUBLIC_SOCKETS_PER_ADDRESS_MAX) {
      socket.disconnect(true);
      return;
    }
    perAddress.add(address);
    socket.conn.on('packet', (packet: { data?: unknown }) => {
      const bytes = typeof packet.data === 'string' ? Buffer.byteLength(packet.data) : 0;
      if (bytes > BROWSER_MESSAGE_BYTES_MAX) socket.disconnect(true);
    });
    // A page says what it shows when it loads or pages: a few messages a second are plenty.
    let windowStart = 0;
    let windowCount = 0;
    socket.on('public:watch', (payload: unknown) => {
      const now = Date.now();
      if (now - windowStart > 1000) {
        windowStart = now;
        windowCount = 0;
      }
      if (++windowCount > 5) return;
      const parsed = publicWatchPayload.safeParse(payload);
      if (!parsed.success) return;
      for (const joined of socket.rooms) if (joined.startsWith('list:')) void socket.leave(joined);
      for (const name of parsed.data.names) void socket.join(room(name.toLowerCase()));
    });
    socket.on('disconnect', () => perAddress.remove(address));
  });

  const pending = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  const flush = async () => {
    timer = null;
    const ids = [...pending];
    pending.clear();
    for (const serverId of ids) {
      const entry = await directory.listing.entryById(serverId).catch(() => null);
      if (!entry) continue;
      const event: PublicServerEvent = { name: entry.name, state: entry.state, players: entry.players };
      ns.to(room(entry.name)).emit('public:server', event);
    }
  };
  const changed = (serverId: string) => {
    pending.add(serverId);
    timer ??= setTimeout(() => void flush(), FLUSH_MS);
  };
  hub.onStateChange((serverId) => changed(serverId));
  hub.intake.onInGame((serverId) => changed(serverId));
}
