import { DEFAULT_SKIN_NAMES, offlineUuid } from '@spawnpoint/contracts';
import { describe, expect, it } from 'vitest';
import { headArt, headFor, headRects } from './player-heads.ts';

describe('player heads', () => {
  it('draws every default character as 8×8 pixels, each a colour of its palette', () => {
    for (const name of DEFAULT_SKIN_NAMES) {
      const art = headArt[name];
      expect(art.rows, name).toHaveLength(8);
      for (const row of art.rows) {
        expect(row, name).toHaveLength(8);
        for (const letter of row) expect(art.colors[letter], `${name}: ${letter}`).toMatch(/^#[0-9a-f]{6}$/);
      }
    }
  });

  it('gives each character a face of its own', () => {
    const faces = new Set(DEFAULT_SKIN_NAMES.map((name) => JSON.stringify(headArt[name])));
    expect(faces.size).toBe(DEFAULT_SKIN_NAMES.length);
  });

  it('shows the face the game would: the UUID’s default skin, else the offline UUID of the name', () => {
    // Notch offline → floorMod(hashCode, 18) = 4 → makena; Steve offline → 11 → efe (wide).
    expect(headFor('Notch').skin).toBe('makena');
    expect(headFor('Steve').skin).toBe('efe');
    expect(headFor('whoever', '069a79f4-44e9-4726-a5be-fca90e38aaf5').skin).toBe('alex');
    expect(headFor('Notch', 'not a uuid').skin).toBe(headFor('Notch', offlineUuid('Notch')).skin);
  });

  it('covers all 64 pixels with rectangles of one row each', () => {
    for (const name of DEFAULT_SKIN_NAMES) {
      const rects = headRects(headArt[name]);
      expect(rects.reduce((sum, r) => sum + r.width, 0)).toBe(64);
    }
  });
});
