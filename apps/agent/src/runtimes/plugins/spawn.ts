import { pluginData } from './plugin-data.ts';
import { tell } from './chat.ts';
import { playerCommand } from './player-command.ts';
import type { SquidPlugin, Vec3Like } from './squid.ts';

type Place = { x: number; y: number; z: number };
const checkPlace = (v: unknown): Place | null =>
  typeof v === 'object' && v !== null && ['x', 'y', 'z'].every((k) => Number.isFinite((v as Record<string, unknown>)[k]))
    ? (v as Place)
    : null;

/**
 * /spawn goes to the world spawn; /setspawn (operators) makes where they stand the spawn of everybody,
 * new players included. Kept in plugins/spawn/spawn.json.
 */
export function spawnPlugin(): SquidPlugin {
  let fixed: Place | null = null;
  return {
    server(serv) {
      const data = pluginData('spawn', 'spawn.json', checkPlace, (line) => serv.info(`[Spawn] ${line}`));
      fixed = data.value;
      const worldSpawn = serv.getSpawnPoint.bind(serv);
      // New players appear at the spawn an operator set (flying-squid picks a random one otherwise).
      serv.getSpawnPoint = async (world) => {
        const point = await worldSpawn(world);
        return fixed ? point.set(fixed.x, fixed.y, fixed.z) : point;
      };
      const spawnOf = (position: Vec3Like, own: Vec3Like) => (fixed ? position.clone().set(fixed.x, fixed.y, fixed.z) : own.clone());

      playerCommand(serv, { base: 'spawn', info: 'Go to the world spawn', usage: '/spawn' }, async (player) => {
        await player.teleport(spawnOf(player.position, player.spawnPoint));
        tell(serv, player, '&aTeleported to the spawn.');
      });
      playerCommand(serv, { base: 'setspawn', info: 'Make where you stand the spawn', usage: '/setspawn', op: true }, (player) => {
        const { x, y, z } = player.position;
        fixed = { x, y, z };
        data.save(fixed);
        tell(serv, player, `&aThe spawn is now at ${Math.floor(x)} ${Math.floor(y)} ${Math.floor(z)}.`);
      });
    },
  };
}
