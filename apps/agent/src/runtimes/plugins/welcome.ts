import { fill, tell, tellAll } from './chat.ts';
import type { SquidPlugin } from './squid.ts';

/** Greets each player who joins, and tells the others who arrived. */
export function welcomePlugin(settings: { message: string; announce: string }): SquidPlugin {
  return {
    player(player, serv) {
      player.on('connected', () => {
        if (settings.message.trim()) tell(serv, player, fill(settings.message, { player: player.username }));
        if (settings.announce.trim()) tellAll(serv, fill(settings.announce, { player: player.username }), player);
      });
    },
  };
}
