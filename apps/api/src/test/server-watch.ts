import { createClient } from 'minecraft-protocol';
import mineflayer, { type Bot } from 'mineflayer';
import { io as connect, type Socket } from 'socket.io-client';
import { until } from '../../../../test-support/until.ts';
import type { Send } from './build-test-app.ts';

/**
 * The states a server's owner sees on its page, each with when it arrived, and its console lines: a real
 * socket signed in with the owner's token, subscribed to the server. `sockets` collects it for cleanup.
 */
export async function watchServer(send: Send, base: string, sockets: Socket[], cookie: string, serverId: string) {
  const token = (await send('GET', '/v1/user/websocket', cookie)).json().result.token as string;
  const socket = connect(base, { transports: ['websocket'], reconnection: false });
  sockets.push(socket);
  const seen: { state: string; at: number; stoppedBecause: string | null }[] = [];
  socket.on('server:state', (e: { serverId: string; state: string; stoppedBecause?: string | null }) => {
    if (e.serverId === serverId) seen.push({ state: e.state, at: Date.now(), stoppedBecause: e.stoppedBecause ?? null });
  });
  const lines: string[] = [];
  socket.on('server:console', (e: { serverId: string; lines: string[] }) => e.serverId === serverId && lines.push(...e.lines));
  // What the page would show as an error toast (something failed after it was answered).
  const errors: { status: string; message: string }[] = [];
  socket.on('server:error', (e: { serverId: string; status: string; message: string }) => e.serverId === serverId && errors.push(e));
  await new Promise<void>((resolve) => {
    socket.once('auth:success', () => resolve());
    socket.emit('auth', { token });
  });
  socket.emit('server:subscribe', { serverId });
  // The subscription first repeats the current state; the test watches what happens after it.
  await until(
    () => seen.length,
    (n) => n > 0,
  );
  seen.splice(0);
  const at = (state: string) => seen.find((s) => s.state === state)?.at;
  const reached = (state: string, timeoutMs = 60_000) =>
    until(
      () => at(state),
      (v) => v !== undefined,
      timeoutMs,
    ) as Promise<number>;
  // The order of states as the page shows them (a subscription repeats the current one).
  const order = () => seen.map((s) => s.state).filter((state, i, all) => state !== all[i - 1]);
  return { seen, lines, errors, order, reached, clear: () => seen.splice(0) };
}

/** A Minecraft client (offline mode) that has logged in to the game at `port`. */
export async function joinGame(port: number, username: string) {
  const client = createClient({ host: '127.0.0.1', port, username, auth: 'offline', version: '1.21.4' });
  await new Promise<void>((resolve, reject) => {
    client.once('login', () => resolve());
    client.once('error', reject);
  });
  return client;
}

/**
 * A mineflayer bot that joins through the join proxy on 127.0.0.1:`port` by the name it types
 * (`fakeHost`, as a player's client sends the address it was given), resolved once it spawned in the world.
 * It goes into `bots` at once, so a test ends it even when the join fails.
 */
export function joinThroughProxy(port: number, address: string, username: string, bots: Bot[]): Promise<Bot> {
  const bot = mineflayer.createBot({ host: '127.0.0.1', port, fakeHost: address, username, auth: 'offline', version: '1.21.4' });
  bots.push(bot);
  const kicked = (reason: unknown) => new Error(`kicked: ${typeof reason === 'string' ? reason : JSON.stringify(reason)}`);
  return new Promise((resolve, reject) => {
    bot.once('spawn', () => resolve(bot));
    // mineflayer hears a disconnect through a plugin it loads a moment after connecting: a refusal the proxy
    // sends at once can come before it, and only the close is seen. The client's own packets are heard from
    // the start.
    const client = (bot as unknown as { _client: { once(event: string, listener: (packet: { reason?: unknown }) => void): void } })._client;
    client.once('disconnect', (packet) => reject(kicked(packet.reason)));
    client.once('kick_disconnect', (packet) => reject(kicked(packet.reason)));
    bot.once('kicked', (reason: unknown) => reject(kicked(reason)));
    // The close may also be seen before the packet comes out of the parsing streams: its reason is let through.
    bot.once('end', (reason) => void setTimeout(() => reject(new Error(`ended before spawning: ${reason}`)), 500));
    bot.once('error', reject);
  });
}
