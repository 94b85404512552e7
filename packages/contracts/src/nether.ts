/** Overworld ↔ Nether coordinates: x and z scale by 8; y stays, kept inside each dimension's range. */
export type Dimension = 'overworld' | 'nether';

export const Y_RANGE: Record<Dimension, { min: number; max: number }> = {
  // Java Edition 1.18+: the Overworld spans -64..319; portals in the Nether generate within 1..126.
  overworld: { min: -64, max: 319 },
  nether: { min: 1, max: 126 },
};

export interface Coordinates {
  x: number;
  y: number;
  z: number;
}

const clamp = (v: number, min: number, max: number) => Math.min(max, Math.max(min, v));

/** Block coordinates in the other dimension. Nether → Overworld multiplies; Overworld → Nether divides and floors. */
export function convertCoordinates(from: Dimension, at: Coordinates): Coordinates & { dimension: Dimension } {
  const to: Dimension = from === 'overworld' ? 'nether' : 'overworld';
  const scale = (v: number) => (from === 'overworld' ? Math.floor(v / 8) : Math.floor(v) * 8);
  const range = Y_RANGE[to];
  return { dimension: to, x: scale(at.x), y: clamp(Math.floor(at.y), range.min, range.max), z: scale(at.z) };
}

export function teleportCommand(at: Coordinates): string {
  return `/tp @s ${at.x} ${at.y} ${at.z}`;
}
