import {
  PUBLIC_LIST_NAMESPACE,
  PUBLIC_WATCH_MAX,
  publicServerEvent,
  SOCKET_OPTIONS,
  type ClientToServerEvents,
  type PublicServerEvent,
  type ServerToClientEvents,
} from '@spawnpoint/contracts';
import type { Socket } from 'socket.io-client';
import { settings } from './settings.ts';

type PublicSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
interface Watcher {
  names: string[];
  onChange: (event: PublicServerEvent) => void;
}

let socket: PublicSocket | null = null;
let connecting: Promise<PublicSocket> | null = null;
const watchers = new Set<Watcher>();

function names(): string[] {
  return [...new Set([...watchers].flatMap((w) => w.names))].slice(0, PUBLIC_WATCH_MAX);
}

/** One anonymous socket for the public list's live counts, opened while some page watches servers. */
function open(): Promise<PublicSocket> {
  connecting ??= import('socket.io-client').then(({ io }) => {
    const created: PublicSocket = io(`${settings.socketBaseUrl || ''}${PUBLIC_LIST_NAMESPACE}`, SOCKET_OPTIONS);
    // Said again after every reconnect: the server forgets what a socket watched.
    created.on('connect', () => created.emit('public:watch', { names: names() }));
    created.on('public:server', (payload) => {
      const event = publicServerEvent.safeParse(payload);
      if (!event.success) return;
      for (const watcher of watchers) if (watcher.names.includes(event.data.name)) watcher.onChange(event.data);
    });
    socket = created;
    // Every page stopped watching while the library loaded.
    if (watchers.size === 0) {
      created.disconnect();
      socket = null;
      connecting = null;
    }
    return created;
  });
  return connecting;
}

/** Live state and players of these listed servers while the page shows them; returns the stop function. */
export function watchPublicServers(watched: string[], onChange: (event: PublicServerEvent) => void): () => void {
  const watcher = { names: watched, onChange };
  watchers.add(watcher);
  void open().then((s) => s.connected && s.emit('public:watch', { names: names() }));
  return () => {
    watchers.delete(watcher);
    if (!socket) return;
    if (watchers.size === 0) {
      socket.disconnect();
      socket = null;
      connecting = null;
    } else if (socket.connected) socket.emit('public:watch', { names: names() });
  };
}
