import type { ShopIconArt } from '@spawnpoint/contracts';
import { gridPaths, gridRects, grassSide, grassTop, serverIcon, stoneFace, type PixelGrid } from '../lib/pixel-art.ts';

/** Pixels as SVG rectangles in the current user space, one unit a pixel. */
function Pixels({ pixels }: { pixels: PixelGrid }) {
  return (
    <>
      {gridRects(pixels).map((r) => (
        <rect key={`${r.x},${r.y}`} x={r.x} y={r.y} width={r.width} height={1} fill={r.color} />
      ))}
    </>
  );
}

/** A texture of few colours as one path per colour (a thin stroke of the same colour hides seams once skewed). */
function Texture({ id, pixels }: { id: string; pixels: PixelGrid }) {
  return (
    <g id={id}>
      {gridPaths(pixels).map((p) => (
        <path key={p.color} d={p.d} fill={p.color} stroke={p.color} strokeWidth="0.08" />
      ))}
    </g>
  );
}

/**
 * A server's icon: its default block (pattern and colour from its id) until the Appearance feature lets
 * owners upload their own. Decorative: the server's name is always beside it.
 */
export function ServerIcon({ serverId, size = 40, className = '' }: { serverId: string; size?: number; className?: string }) {
  const icon = serverIcon(serverId);
  return (
    <svg
      viewBox="0 0 8 8"
      width={size}
      height={size}
      shapeRendering="crispEdges"
      className={`shrink-0 rounded-md ring-1 ring-black/10 ${className}`}
      aria-hidden="true"
      data-testid="server-icon"
      data-pattern={icon.pattern}
    >
      <Pixels pixels={icon.pixels} />
    </svg>
  );
}

// Isometric projection of a 16×16 face: 30° axes, a block 16 pixels tall.
const COS = 0.866;
const W = 16 * COS;
const faces = {
  top: (x: number, y: number) => `matrix(${COS} 0.5 ${-COS} 0.5 ${x + W} ${y})`,
  left: (x: number, y: number) => `matrix(${COS} 0.5 0 1 ${x} ${y + 8})`,
  right: (x: number, y: number) => `matrix(${COS} -0.5 0 1 ${x + W} ${y + 16})`,
};

interface Block {
  /** Ids of textures given to IsoBlocks. */
  top: string;
  side: string;
  /** Grid position: i to the right and down, j to the left and down, k up. */
  at: [i: number, j: number, k: number];
}

/**
 * Blocks in isometric view, drawn back to front, the two visible sides shaded as if lit from above left.
 * Each texture is drawn once and reused (`<use>`), so the page carries a few kilobytes of paths. The ids
 * are fixed: one picture of this kind per page.
 */
function IsoBlocks({ textures, blocks, className }: { textures: Record<string, PixelGrid>; blocks: Block[]; className?: string }) {
  const placed = blocks
    .map((b) => ({ ...b, x: (b.at[0] - b.at[1]) * W, y: (b.at[0] + b.at[1]) * 8 - b.at[2] * 16 }))
    .sort((a, b) => a.at[0] + a.at[1] - (b.at[0] + b.at[1]) || a.at[2] - b.at[2]);
  const minX = Math.min(...placed.map((b) => b.x));
  const minY = Math.min(...placed.map((b) => b.y));
  const maxX = Math.max(...placed.map((b) => b.x)) + 2 * W;
  const maxY = Math.max(...placed.map((b) => b.y)) + 32;
  return (
    <svg viewBox={`${minX} ${minY} ${maxX - minX} ${maxY - minY}`} className={className} aria-hidden="true" focusable="false">
      <defs>
        {Object.entries(textures).map(([id, pixels]) => (
          <Texture key={id} id={id} pixels={pixels} />
        ))}
      </defs>
      {placed.map((b) => (
        <g key={b.at.join(',')}>
          <use href={`#${b.top}`} transform={faces.top(b.x, b.y)} />
          <g transform={faces.left(b.x, b.y)}>
            <use href={`#${b.side}`} />
            <rect width="16" height="16" fill="#000" opacity="0.12" />
          </g>
          <g transform={faces.right(b.x, b.y)}>
            <use href={`#${b.side}`} />
            <rect width="16" height="16" fill="#000" opacity="0.3" />
          </g>
        </g>
      ))}
    </svg>
  );
}

/** The landing page's picture: a small island of grass with stone stacked on it. */
export function BlockIsland({ className }: { className?: string }) {
  const grass = { top: 'sp-grass-top', side: 'sp-grass-side' };
  const stone = { top: 'sp-stone-top', side: 'sp-stone-side' };
  return (
    <IsoBlocks
      className={className}
      textures={{ 'sp-grass-top': grassTop(), 'sp-grass-side': grassSide(), 'sp-stone-top': stoneFace(), 'sp-stone-side': stoneFace(17) }}
      blocks={[
        { ...grass, at: [0, 0, 0] },
        { ...grass, at: [1, 0, 0] },
        { ...grass, at: [0, 1, 0] },
        { ...grass, at: [1, 1, 0] },
        { ...grass, at: [2, 0, 0] },
        { ...stone, at: [0, 0, 1] },
        { ...stone, at: [1, 0, 1] },
        { ...stone, at: [0, 0, 2] },
      ]}
    />
  );
}

/** A row of grass blocks seen from the side, as wide as its box: the ground under the landing page's hero. */
export function GrassGround({ className }: { className?: string }) {
  return (
    <svg className={className} width="100%" height="48" aria-hidden="true" focusable="false" shapeRendering="crispEdges">
      <defs>
        <pattern id="sp-ground" width="16" height="16" patternUnits="userSpaceOnUse">
          {gridPaths(grassSide(23)).map((p) => (
            <path key={p.color} d={p.d} fill={p.color} />
          ))}
        </pattern>
      </defs>
      <g transform="scale(3)">
        <rect width="100%" height="16" fill="url(#sp-ground)" />
      </g>
    </svg>
  );
}

/** One of the shop's icons, drawn from its 8×8 pixel art (the server receives the same pixels as a 64×64 PNG). */
export function ShopIconArtwork({ art, size = 48, label }: { art: ShopIconArt; size?: number; label: string }) {
  const pixels: PixelGrid = art.rows.map((row) => Array.from(row, (key) => art.palette[key] ?? '#000000'));
  return (
    <svg
      viewBox="0 0 8 8"
      width={size}
      height={size}
      shapeRendering="crispEdges"
      className="shrink-0 rounded-md ring-1 ring-black/10"
      role="img"
      aria-label={label}
    >
      <Pixels pixels={pixels} />
    </svg>
  );
}
