import { defaultSkinOf, isUuid, offlineUuid, type DefaultSkinName } from '@spawnpoint/contracts';

/**
 * Our own 8×8 pixel-art faces for the nine default characters of Minecraft (drawn for Spawnpoint, not the
 * game's textures). Each face is eight rows of eight letters, each letter a colour of its palette:
 * H hair, S skin, D shaded skin, W eye white, E iris, M mouth, B beard or dark hair, A accessory.
 */
export interface HeadArt {
  rows: readonly string[];
  colors: Readonly<Record<string, string>>;
}

export const HEAD_LETTERS = ['H', 'S', 'D', 'W', 'E', 'M', 'B', 'A'] as const;

export const headArt: Record<DefaultSkinName, HeadArt> = {
  alex: {
    rows: ['HHHHHHHH', 'HHHHHHHH', 'HHHHHSSH', 'HSSSSSSH', 'HWESSEWS', 'HSSSSSSS', 'HSSMMSSS', 'HSSSSSSS'],
    colors: { H: '#d9742b', S: '#f3c9a6', D: '#e2ac86', W: '#ffffff', E: '#3f8f46', M: '#c8735e' },
  },
  ari: {
    rows: ['HHHHHHHH', 'HHHHHHHH', 'HHSHHSHH', 'SSSSSSSS', 'SWESSEWS', 'SSSDDSSS', 'SSSMMSSS', 'SSSSSSSS'],
    colors: { H: '#4a2f22', S: '#e6b48c', D: '#cf9972', W: '#ffffff', E: '#5a3a26', M: '#a65a4a' },
  },
  efe: {
    rows: ['BHHHHHHB', 'HHHHHHHH', 'HAAAAAAH', 'HSSSSSSH', 'SWESSEWS', 'SSSDDSSS', 'SSMMMMSS', 'SSSSSSSS'],
    colors: { H: '#1f1712', B: '#2e241d', A: '#e0b53a', S: '#8a5a3b', D: '#744a30', W: '#f4efe9', E: '#2b1b12', M: '#5a2e24' },
  },
  kai: {
    rows: ['HHHHHHHH', 'HHHHHHHH', 'DHHHHHHD', 'SSSSSSSS', 'SEWSSWES', 'SSSDDSSS', 'SSSMMSSS', 'SSSSSSSS'],
    colors: { H: '#14161c', S: '#d9a77c', D: '#c28e64', W: '#ffffff', E: '#2a2a33', M: '#8e4e3c' },
  },
  makena: {
    rows: ['HHHHHHHH', 'HHHHHHHH', 'HSSSSSSH', 'HSSSSSSH', 'BWESSEWB', 'HSSDDSSH', 'BSSMMSSB', 'HSSSSSSH'],
    colors: { H: '#1b1411', B: '#3a2a22', S: '#6e4630', D: '#5b3826', W: '#f4efe9', E: '#24160f', M: '#b2565a' },
  },
  noor: {
    rows: ['AAAAAAAA', 'HHHHHHHH', 'HHSSSSHH', 'HSSSSSSH', 'HWESSEWH', 'HSSDDSSH', 'HSSMMSSH', 'HSSSSSSH'],
    colors: { A: '#7b4fb8', H: '#201814', S: '#c99470', D: '#b07c59', W: '#ffffff', E: '#3b2a1e', M: '#9c4f47' },
  },
  steve: {
    rows: ['HHHHHHHH', 'HHHHHHHH', 'HSSSSSSH', 'SSSSSSSS', 'SWESSEWS', 'SSSDDSSS', 'SSBMMBSS', 'SSBBBBSS'],
    colors: { H: '#3b2a1d', S: '#c8956f', D: '#a97752', B: '#6b4a33', W: '#ffffff', E: '#4a4fb0', M: '#7d4a3a' },
  },
  sunny: {
    rows: ['HHHHHHHH', 'HHHHHHHH', 'HSHSSHSH', 'SSSSSSSS', 'SWESSEWS', 'SSSSSSSS', 'SSSMMSSS', 'SSSSSSSS'],
    colors: { H: '#e8c14f', S: '#9c6a48', D: '#845839', W: '#ffffff', E: '#2f6e8e', M: '#5e3326' },
  },
  zuri: {
    rows: ['HHHHHHHH', 'HDDDDDDH', 'DSSSSSSD', 'SSSSSSSS', 'SEWSSWES', 'SSSDDSSS', 'SBBMMBBS', 'SSBBBBSS'],
    colors: { H: '#17110d', D: '#3d2a20', B: '#241a14', S: '#5f3b28', W: '#f4efe9', E: '#1d120c', M: '#8a4a3e' },
  },
};

/** The face shown for a player: their UUID's default skin (online-mode), else that of the name's offline UUID. */
export function headFor(name: string, uuid?: string): { skin: DefaultSkinName; art: HeadArt } {
  const id = uuid && isUuid(uuid) ? uuid : offlineUuid(name);
  const skin = defaultSkinOf(id).name;
  return { skin, art: headArt[skin] };
}

/** A face as rectangles, a row's run of one colour as one rectangle (so an SVG needs few elements). */
export function headRects(art: HeadArt): { x: number; y: number; width: number; color: string }[] {
  const rects: { x: number; y: number; width: number; color: string }[] = [];
  art.rows.forEach((row, y) => {
    let x = 0;
    while (x < row.length) {
      const letter = row[x] as string;
      let end = x + 1;
      while (row[end] === letter) end++;
      rects.push({ x, y, width: end - x, color: art.colors[letter] ?? '#000000' });
      x = end;
    }
  });
  return rects;
}
