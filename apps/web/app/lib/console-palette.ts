/**
 * The console's colours. Every foreground is readable on the console's background (WCAG AA: at least
 * 4.5:1), ANSI "black" included (a grey, since black on a dark console cannot be read). Background colours
 * (SGR 40–47, 100–107) are deep tones so the default light text stays readable on them; and any pair that
 * still falls short — red text on a red background, or a 256-colour or true-colour pair a plugin chose — is
 * adjusted at render time: the text is mixed towards white or black, whichever gets there, until it passes.
 */

export const MIN_CONTRAST = 4.5;
export const CONSOLE_BACKGROUND = '#020617';
export const CONSOLE_FOREGROUND = '#e2e8f0';

/** SGR 30–37 then 90–97: black, red, green, yellow, blue, magenta, cyan, white; normal then bright. */
export const FOREGROUND_PALETTE = [
  '#8b95a7',
  '#f87171',
  '#4ade80',
  '#facc15',
  '#60a5fa',
  '#e879f9',
  '#22d3ee',
  '#e2e8f0',
  '#a3adbd',
  '#fca5a5',
  '#86efac',
  '#fde68a',
  '#93c5fd',
  '#f0abfc',
  '#67e8f9',
  '#ffffff',
] as const;

/** SGR 40–47 then 100–107, in the same order. */
export const BACKGROUND_PALETTE = [
  '#000000',
  '#7f1d1d',
  '#14532d',
  '#713f12',
  '#1e3a8a',
  '#701a75',
  '#164e63',
  '#cbd5e1',
  '#334155',
  '#991b1b',
  '#166534',
  '#854d0e',
  '#1d4ed8',
  '#86198f',
  '#155e75',
  '#f8fafc',
] as const;

type Rgb = [number, number, number];

export function parseHex(hex: string): Rgb {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

export function toHex([r, g, b]: Rgb): string {
  return `#${[r, g, b].map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

/** Relative luminance (WCAG 2.x). */
export function luminance(hex: string): number {
  const [r, g, b] = parseHex(hex).map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** Contrast ratio (WCAG 2.x), from 1 to 21. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

function mix(from: Rgb, to: Rgb, t: number): Rgb {
  return [0, 1, 2].map((i) => from[i as 0] + (to[i as 0] - from[i as 0]) * t) as Rgb;
}

const adjusted = new Map<string, string>();

/**
 * `fg` as shown on `bg`: itself when readable (≥ 4.5:1), else mixed towards white or black (the one with
 * more contrast against `bg`, which always reaches 4.5:1) by the least amount that makes it readable.
 */
export function readableOn(fg: string, bg: string): string {
  if (contrast(fg, bg) >= MIN_CONTRAST) return fg;
  const key = `${fg}${bg}`;
  const cached = adjusted.get(key);
  if (cached) return cached;
  const target: Rgb = contrast('#ffffff', bg) >= contrast('#000000', bg) ? [255, 255, 255] : [0, 0, 0];
  const start = parseHex(fg);
  let result = toHex(target);
  for (let step = 1; step <= 20; step++) {
    const candidate = toHex(mix(start, target, step / 20));
    if (contrast(candidate, bg) >= MIN_CONTRAST) {
      result = candidate;
      break;
    }
  }
  if (adjusted.size > 4096) adjusted.clear();
  adjusted.set(key, result);
  return result;
}

/** A colour of xterm's 256-colour table: 0–15 the palette above, 16–231 the 6×6×6 cube, 232–255 greys. */
export function color256(index: number, background: boolean): string {
  if (index < 16) return (background ? BACKGROUND_PALETTE : FOREGROUND_PALETTE)[index] as string;
  if (index < 232) {
    const n = index - 16;
    const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
    return toHex([level(Math.floor(n / 36)), level(Math.floor(n / 6) % 6), level(n % 6)]);
  }
  const grey = 8 + (index - 232) * 10;
  return toHex([grey, grey, grey]);
}
