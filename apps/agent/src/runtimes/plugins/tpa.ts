import { tell } from './chat.ts';
import { playerCommand } from './player-command.ts';
import type { PluginPlayer, SquidPlugin } from './squid.ts';

/** /tpa asks to teleport to a player, who answers /tpaccept or /tpdeny before the request expires. */
export function tpaPlugin(settings: { timeoutSeconds: number }): SquidPlugin {
  // The request each player received last: who asked, and when it expires.
  const requests = new Map<PluginPlayer, { from: PluginPlayer; expires: number }>();
  return {
    server(serv) {
      const pending = (player: PluginPlayer) => {
        const request = requests.get(player);
        requests.delete(player);
        if (!request || request.expires < Date.now()) throw new Error('Nobody asked to teleport to you (or the request expired).');
        if (!serv.players.includes(request.from)) throw new Error(`${request.from.username} left the game.`);
        return request.from;
      };

      playerCommand(serv, { base: 'tpa', info: 'Ask to teleport to a player', usage: '/tpa <player>' }, (player, args) => {
        if (!args[0]) throw new Error('Usage: /tpa <player>');
        const target = serv.players.find((p) => p.username.toLowerCase() === args[0]!.toLowerCase());
        if (!target) throw new Error(`${args[0]} is not in the game.`);
        if (target === player) throw new Error('You are already where you are.');
        requests.set(target, { from: player, expires: Date.now() + settings.timeoutSeconds * 1000 });
        tell(serv, target, `&e${player.username} asks to teleport to you. Type /tpaccept or /tpdeny (${settings.timeoutSeconds} s).`);
        tell(serv, player, `&eRequest sent to ${target.username}.`);
      });
      playerCommand(serv, { base: 'tpaccept', info: 'Accept the last teleport request', usage: '/tpaccept' }, async (player) => {
        const from = pending(player);
        await from.teleport(player.position.clone());
        tell(serv, from, `&a${player.username} accepted: teleported.`);
        tell(serv, player, `&a${from.username} teleported to you.`);
      });
      playerCommand(serv, { base: 'tpdeny', info: 'Refuse the last teleport request', usage: '/tpdeny' }, (player) => {
        const from = pending(player);
        tell(serv, from, `&c${player.username} refused your teleport request.`);
        tell(serv, player, '&eRequest refused.');
      });
    },
    player(player) {
      // A player who leaves takes the requests they received with them.
      player.on('disconnected', () => requests.delete(player));
    },
  };
}
