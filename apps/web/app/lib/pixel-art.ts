/**
 * Spawnpoint's own pixel art, made from code (no game textures): block faces with a little noise, a server's
 * default icon derived from its id, and the landing page's blocks. Deterministic: the same seed always gives
 * the same pixels, so prerendered pages and the app draw the same picture.
 */

/** A square of pixels, row by row, each a colour `#rrggbb`. */
export type PixelGrid = string[][];

/** FNV-1a, 32 bits: a stable number from a string. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A small seeded generator (mulberry32): numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `#rrggbb` of a colour given as hue (degrees), saturation and lightness (0–100). */
export function hsl(h: number, s: number, l: number): string {
  const sat = s / 100;
  const light = Math.min(100, Math.max(0, l)) / 100;
  const k = (n: number) => (n + h / 30) % 12;
  const a = sat * Math.min(light, 1 - light);
  const channel = (n: number) => Math.round(255 * (light - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)))));
  return `#${[channel(0), channel(8), channel(4)].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

export const SERVER_ICON_PATTERNS = ['ore', 'bricks', 'planks', 'crystal'] as const;
export type ServerIconPattern = (typeof SERVER_ICON_PATTERNS)[number];

/**
 * A server's default icon until owners can upload one: an 8×8 block face whose pattern (ore, bricks,
 * planks or crystal) and colour come from the server's id.
 */
export function serverIcon(serverId: string): { pattern: ServerIconPattern; hue: number; pixels: PixelGrid } {
  const hash = hashString(serverId);
  const pattern = SERVER_ICON_PATTERNS[hash % SERVER_ICON_PATTERNS.length] as ServerIconPattern;
  const hue = Math.floor(hash / SERVER_ICON_PATTERNS.length) % 360;
  const random = seededRandom(hash);
  const noise = () => Math.round((random() - 0.5) * 8);
  const pixels: PixelGrid = [];
  for (let y = 0; y < 8; y++) {
    const row: string[] = [];
    for (let x = 0; x < 8; x++) {
      let color: string;
      if (pattern === 'ore') {
        // Stone with specks of the server's colour.
        const speck = random() < 0.22;
        color = speck ? hsl(hue, 75, 55 + noise()) : hsl(220, 6, 52 + noise());
      } else if (pattern === 'bricks') {
        const mortar = y % 3 === 2 || (x + (Math.floor(y / 3) % 2) * 4) % 8 === 0;
        color = mortar ? hsl(hue, 12, 78) : hsl(hue, 55, 42 + noise());
      } else if (pattern === 'planks') {
        const seam = y % 4 === 3 || (x === (y < 4 ? 5 : 2) && y % 4 !== 3);
        color = seam ? hsl(hue, 45, 26) : hsl(hue, 48, 46 + noise());
      } else {
        // A faceted gem: light towards the top left, dark towards the bottom right.
        const edge = x === 0 || y === 0 || x === 7 || y === 7;
        color = edge ? hsl(hue, 55, 28) : hsl(hue, 70, 64 - (x + y) * 3 + noise());
      }
      row.push(color);
    }
    pixels.push(row);
  }
  return { pattern, hue, pixels };
}

// Textures use four shades per material, so a face is a few paths (one per colour), not 256 rectangles.
const shade = (random: () => number, low: number) => low + Math.floor(random() * 4) * 4;

/** The top of a grass block, 16×16: greens with noise. */
export function grassTop(seed = 7): PixelGrid {
  const random = seededRandom(seed);
  return Array.from({ length: 16 }, () => Array.from({ length: 16 }, () => hsl(104, 48, shade(random, 36))));
}

/** The side of a grass block, 16×16: dirt, under an uneven fringe of grass. */
export function grassSide(seed = 11): PixelGrid {
  const random = seededRandom(seed);
  const fringe = Array.from({ length: 16 }, () => 2 + Math.floor(random() * 3));
  return Array.from({ length: 16 }, (_, y) =>
    Array.from({ length: 16 }, (_, x) => (y < (fringe[x] as number) ? hsl(104, 48, shade(random, 34)) : hsl(28, 38, shade(random, 28)))),
  );
}

/** Stone, 16×16. */
export function stoneFace(seed = 13): PixelGrid {
  const random = seededRandom(seed);
  return Array.from({ length: 16 }, () => Array.from({ length: 16 }, () => hsl(220, 5, shade(random, 42))));
}

/** A grid as one SVG path per colour (runs of a row merged), for pictures with few colours and many pixels. */
export function gridPaths(pixels: PixelGrid): { color: string; d: string }[] {
  const paths = new Map<string, string[]>();
  for (const r of gridRects(pixels)) {
    const parts = paths.get(r.color) ?? [];
    parts.push(`M${r.x} ${r.y}h${r.width}v1h-${r.width}z`);
    paths.set(r.color, parts);
  }
  return [...paths].map(([color, parts]) => ({ color, d: parts.join('') }));
}

/** A grid as rectangles, a row's run of one colour as one rectangle (so an SVG needs fewer elements). */
export function gridRects(pixels: PixelGrid): { x: number; y: number; width: number; color: string }[] {
  const rects: { x: number; y: number; width: number; color: string }[] = [];
  pixels.forEach((row, y) => {
    let x = 0;
    while (x < row.length) {
      const color = row[x] as string;
      let end = x + 1;
      while (row[end] === color) end++;
      rects.push({ x, y, width: end - x, color });
      x = end;
    }
  });
  return rects;
}
