import { pluginData } from './plugin-data.ts';
import { tell } from './chat.ts';
import { playerCommand } from './player-command.ts';
import type { SquidPlugin } from './squid.ts';

type Place = { x: number; y: number; z: number };
type Homes = Record<string, Record<string, Place>>;

const place = (v: unknown): v is Place =>
  typeof v === 'object' && v !== null && ['x', 'y', 'z'].every((k) => Number.isFinite((v as Record<string, unknown>)[k]));
function checkHomes(value: unknown): Homes | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const homes: Homes = {};
  for (const [uuid, places] of Object.entries(value)) {
    if (typeof places !== 'object' || places === null) continue;
    homes[uuid] = Object.fromEntries(Object.entries(places).filter(([name, p]) => /^[a-z0-9_-]{1,16}$/.test(name) && place(p))) as Record<
      string,
      Place
    >;
  }
  return homes;
}

/** /sethome, /home, /homes and /delhome; homes kept in plugins/homes/homes.json by player UUID. */
export function homesPlugin(settings: { maxHomes: number }): SquidPlugin {
  return {
    server(serv) {
      const data = pluginData('homes', 'homes.json', checkHomes, (line) => serv.info(`[Homes] ${line}`));
      const homes: Homes = data.value ?? {};
      const nameOf = (args: string[]) => {
        const name = (args[0] ?? 'home').toLowerCase();
        if (!/^[a-z0-9_-]{1,16}$/.test(name)) throw new Error('A home name is 1 to 16 letters, digits, - or _.');
        return name;
      };

      playerCommand(serv, { base: 'sethome', info: 'Save where you stand as a home', usage: '/sethome [name]' }, (player, args) => {
        const name = nameOf(args);
        const mine = (homes[player.uuid] ??= {});
        if (!(name in mine) && Object.keys(mine).length >= settings.maxHomes)
          throw new Error(`You have ${settings.maxHomes} homes already. Remove one with /delhome <name>.`);
        const { x, y, z } = player.position;
        mine[name] = { x, y, z };
        data.save(homes);
        tell(serv, player, `&aHome ${name} saved.`);
      });
      playerCommand(serv, { base: 'home', info: 'Go to one of your homes', usage: '/home [name]' }, async (player, args) => {
        const name = nameOf(args);
        const target = homes[player.uuid]?.[name];
        if (!target) throw new Error(`You have no home called ${name}. Save one with /sethome ${name}.`);
        await player.teleport(player.position.clone().set(target.x, target.y, target.z));
        tell(serv, player, `&aWelcome home (${name}).`);
      });
      playerCommand(serv, { base: 'homes', info: 'List your homes', usage: '/homes' }, (player) => {
        const names = Object.keys(homes[player.uuid] ?? {});
        tell(serv, player, names.length ? `&eYour homes: ${names.join(', ')}` : '&eYou have no homes yet. Save one with /sethome.');
      });
      playerCommand(serv, { base: 'delhome', info: 'Forget one of your homes', usage: '/delhome <name>' }, (player, args) => {
        if (!args[0]) throw new Error('Usage: /delhome <name>');
        const name = nameOf(args);
        if (!homes[player.uuid]?.[name]) throw new Error(`You have no home called ${name}.`);
        delete homes[player.uuid]![name];
        data.save(homes);
        tell(serv, player, `&aHome ${name} removed.`);
      });
    },
  };
}
