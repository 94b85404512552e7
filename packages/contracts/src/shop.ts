import { z } from 'zod';
import { idempotencyKey } from './money.ts';

/**
 * The shop: things bought once from the balance and kept. Icons belong to the account (any of
 * its servers may show one, from the Appearance page); backup slots and disk belong to the server they were
 * bought for, on top of its plan's.
 */
export interface ShopIconArt {
  /** Eight rows of eight characters, each a key of `palette`. */
  rows: readonly string[];
  palette: Readonly<Record<string, string>>;
}

interface ShopItemBase {
  id: string;
  name: string;
  summary: string;
  priceCents: number;
}
export type ShopItem =
  | (ShopItemBase & { kind: 'icon'; scope: 'account'; art: ShopIconArt })
  | (ShopItemBase & { kind: 'backup-slot'; scope: 'server'; max: number })
  | (ShopItemBase & { kind: 'disk'; scope: 'server'; diskMb: number; max: number });

// Spawnpoint's own pixel art, drawn here (no game textures).
const icon = (rows: readonly string[], palette: Record<string, string>): ShopIconArt => ({ rows, palette });

export const shopItems: readonly ShopItem[] = [
  {
    id: 'icon-creeper-face',
    kind: 'icon',
    scope: 'account',
    name: 'Green grin',
    summary: 'A blocky green face with a wide grin.',
    priceCents: 99,
    art: icon(['gggggggg', 'gGgggGgg', 'gkkggkkg', 'gkkggkkg', 'gggkkggg', 'ggkkkkgg', 'ggkggkgg', 'gggggggg'], {
      g: '#4caf50',
      G: '#66bb6a',
      k: '#1b1b1b',
    }),
  },
  {
    id: 'icon-diamond',
    kind: 'icon',
    scope: 'account',
    name: 'Diamond',
    summary: 'A cut gem on a dark stone.',
    priceCents: 149,
    art: icon(['ssssssss', 'sssddsss', 'ssdDDdss', 'sdDwDDds', 'sdDDDDds', 'ssdDDdss', 'sssddsss', 'ssssssss'], {
      s: '#3a3f47',
      d: '#1aa7b8',
      D: '#4fe3f0',
      w: '#e8feff',
    }),
  },
  {
    id: 'icon-sunset',
    kind: 'icon',
    scope: 'account',
    name: 'Sunset',
    summary: 'A square sun going down over the sea.',
    priceCents: 99,
    art: icon(['pppppppp', 'ppoyyopp', 'poyyyyop', 'oooooooo', 'bbBbbBbb', 'bBbbbbBb', 'bbbBbbbb', 'BbbbbBbb'], {
      p: '#7b3fa0',
      o: '#f08a24',
      y: '#ffd34d',
      b: '#1e4f8a',
      B: '#2f6fb8',
    }),
  },
  {
    id: 'icon-heart',
    kind: 'icon',
    scope: 'account',
    name: 'Heart',
    summary: 'A red pixel heart.',
    priceCents: 99,
    art: icon(['wwwwwwww', 'wrrwwrrw', 'rRrrrrrr', 'rrrrrrrr', 'wrrrrrrw', 'wwrrrrww', 'wwwrrwww', 'wwwwwwww'], {
      w: '#f5f0e6',
      r: '#d32f2f',
      R: '#ff8a80',
    }),
  },
  {
    id: 'backup-slot',
    kind: 'backup-slot',
    scope: 'server',
    name: 'Extra backup slot',
    summary: 'One more backup kept for this server, on top of its plan’s.',
    priceCents: 99,
    max: 10,
  },
  {
    id: 'disk-5gb',
    kind: 'disk',
    scope: 'server',
    name: '5 GB more disk',
    summary: 'Five more gigabytes for this server’s files, on top of its plan’s.',
    priceCents: 199,
    diskMb: 5120,
    max: 4,
  },
];

export function shopItem(id: string): ShopItem | undefined {
  return shopItems.find((item) => item.id === id);
}

export const shopItemView = z.object({
  id: z.string(),
  kind: z.enum(['icon', 'backup-slot', 'disk']),
  scope: z.enum(['account', 'server']),
  name: z.string(),
  summary: z.string(),
  priceCents: z.number().int(),
  /** How many the account (an icon) or this server (the others) has. */
  owned: z.number().int(),
  /** How many may be had at most (1 for an icon). */
  max: z.number().int(),
});
export type ShopItemView = z.infer<typeof shopItemView>;
export const shopResult = z.object({
  items: z.array(shopItemView),
  balanceCents: z.number().int(),
  /** The server's backups and disk with what was bought. */
  backupLimit: z.number().int(),
  diskMb: z.number().int(),
});
export type ShopResult = z.infer<typeof shopResult>;
export const shopPurchaseRequest = z.object({ itemId: z.string().min(1).max(64), idempotencyKey });

/** An icon of the account's to show as a server's icon (Appearance). */
export const appearanceShopIconRequest = z.object({ itemId: z.string().min(1).max(64) });
