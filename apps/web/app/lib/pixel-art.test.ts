import { describe, expect, it } from 'vitest';
import { gridPaths, gridRects, grassSide, grassTop, hashString, hsl, serverIcon, stoneFace } from './pixel-art.ts';

describe('pixel art', () => {
  it('converts HSL as CSS does', () => {
    expect(hsl(0, 100, 50)).toBe('#ff0000');
    expect(hsl(120, 100, 25)).toBe('#008000');
    expect(hsl(0, 0, 100)).toBe('#ffffff');
  });

  it('gives a server the same 8×8 icon every time, and different servers different icons', () => {
    const id = 'a3f1c2d4-1111-4222-8333-444455556666';
    expect(serverIcon(id)).toEqual(serverIcon(id));
    const icon = serverIcon(id);
    expect(icon.pixels).toHaveLength(8);
    for (const row of icon.pixels) {
      expect(row).toHaveLength(8);
      for (const pixel of row) expect(pixel).toMatch(/^#[0-9a-f]{6}$/);
    }
    const looks = new Set(Array.from({ length: 40 }, (_, i) => JSON.stringify(serverIcon(`server-${i}`).pixels)));
    expect(looks.size).toBe(40);
    const patterns = new Set(Array.from({ length: 40 }, (_, i) => serverIcon(`server-${i}`).pattern));
    expect(patterns.size).toBe(4);
  });

  it('hashes strings stably (FNV-1a)', () => {
    expect(hashString('')).toBe(0x811c9dc5);
    expect(hashString('a')).toBe(0xe40c292c);
  });

  it('covers every pixel of a face with its rectangles', () => {
    const rects = gridRects(grassSide());
    expect(rects.reduce((sum, r) => sum + r.width, 0)).toBe(256);
  });

  it('draws a block face with a few colours, one path each, so the landing page stays light', () => {
    for (const face of [grassTop(), grassSide(), stoneFace()]) {
      const paths = gridPaths(face);
      expect(paths.length).toBeLessThanOrEqual(8);
      const pixels = paths.flatMap((p) => [...p.d.matchAll(/h(\d+)/g)].map((m) => Number(m[1])));
      expect(pixels.reduce((a, b) => a + b, 0)).toBe(256);
    }
  });
});
