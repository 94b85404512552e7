import { tellAll } from './chat.ts';
import type { SquidPlugin } from './squid.ts';

/** Says each message in turn, one every interval, to everybody in the game. */
export function broadcastsPlugin(settings: { messages: string[]; intervalSeconds: number }): SquidPlugin {
  return {
    server(serv) {
      const messages = settings.messages.filter((m) => m.trim() !== '');
      if (messages.length === 0) return;
      let next = 0;
      const timer = setInterval(() => {
        if (serv.players.length === 0) return;
        tellAll(serv, messages[next]!);
        next = (next + 1) % messages.length;
      }, settings.intervalSeconds * 1000);
      // The timer alone never keeps the process alive once the game closed.
      timer.unref();
    },
  };
}
