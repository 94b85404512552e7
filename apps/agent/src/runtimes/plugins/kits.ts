import { parseKitLine, type KitDefinition } from '@spawnpoint/contracts';
import { createRequire } from 'node:module';
import { tell } from './chat.ts';
import { playerCommand } from './player-command.ts';
import type { SquidPlugin } from './squid.ts';

// Resolved from the node's install (the launcher's own location), like flying-squid itself.
const require = createRequire(import.meta.url);

/** /kit <name> gives a set of items; each player may take a kit once per cooldown. */
export function kitsPlugin(settings: { kits: string[]; cooldownMinutes: number }): SquidPlugin {
  return {
    server(serv) {
      const Item = (require('prismarine-item') as (registry: unknown) => new (type: number, count: number) => unknown)(serv.registry);
      const kits = new Map<string, KitDefinition>();
      for (const line of settings.kits) {
        if (line.trim() === '') continue;
        const kit = parseKitLine(line);
        if (typeof kit === 'string') continue; // checked by the agent before the start
        const unknown = kit.items.filter((i) => !serv.registry.itemsByName[i.item]);
        if (unknown.length)
          serv.info(`[Kits] ${kit.name}: ${unknown.map((i) => i.item).join(', ')} is not an item of this version; left out.`);
        kits.set(kit.name, { ...kit, items: kit.items.filter((i) => serv.registry.itemsByName[i.item]) });
      }
      const lastTaken = new Map<string, number>();

      playerCommand(serv, { base: 'kit', info: 'List the kits, or take one', usage: '/kit [name]' }, (player, args) => {
        if (!args[0]) {
          tell(serv, player, kits.size ? `&eKits: ${[...kits.keys()].join(', ')}. Take one with /kit <name>.` : '&eThere are no kits.');
          return;
        }
        const kit = kits.get(args[0].toLowerCase());
        if (!kit) throw new Error(`There is no kit called ${args[0]}.`);
        const key = `${player.uuid}:${kit.name}`;
        const wait = (lastTaken.get(key) ?? 0) + settings.cooldownMinutes * 60_000 - Date.now();
        if (wait > 0) throw new Error(`You can take the ${kit.name} kit again in ${Math.ceil(wait / 60_000)} min.`);
        for (const { item, count } of kit.items) {
          const slot = player.inventory.firstEmptyInventorySlot();
          if (slot === null) throw new Error('Your inventory is full.');
          player.inventory.updateSlot(slot, new Item(serv.registry.itemsByName[item]!.id, count));
        }
        lastTaken.set(key, Date.now());
        tell(serv, player, `&aYou took the ${kit.name} kit.`);
      });
    },
  };
}
