import { tell } from './chat.ts';
import type { PluginPlayer, PluginServer } from './squid.ts';

/**
 * A player command whose failures reach the player in red instead of ending the process (flying-squid
 * rethrows a command's unexpected error outside any handler, which stops the game).
 */
export function playerCommand(
  serv: PluginServer,
  command: { base: string; aliases?: string[]; info: string; usage: string; op?: boolean },
  action: (player: PluginPlayer, args: string[]) => unknown,
): void {
  serv.commands.add({
    ...command,
    onlyPlayer: true,
    action: async (params, ctx) => {
      const player = ctx.player;
      if (!player) return;
      try {
        await action(
          player,
          params
            .trim()
            .split(/\s+/)
            .filter((a) => a !== ''),
        );
      } catch (err) {
        tell(serv, player, `&c${err instanceof Error ? err.message : String(err)}`);
      }
    },
  });
}
