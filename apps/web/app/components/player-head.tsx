import { headFor, headRects } from '../lib/player-heads.ts';

/**
 * A player's face as pixel art: the default character Minecraft shows for the player's UUID (or, without
 * one, for the UUID an offline-mode server gives the name), drawn with our own 8×8 art. Decorative unless
 * `label` is given, since the name is usually written beside it.
 */
export function PlayerHead({
  name,
  uuid,
  size = 24,
  label,
  className,
}: {
  name: string;
  uuid?: string;
  size?: number;
  label?: string;
  className?: string;
}) {
  const { skin, art } = headFor(name, uuid);
  return (
    <svg
      viewBox="0 0 8 8"
      width={size}
      height={size}
      shapeRendering="crispEdges"
      className={className ? `shrink-0 rounded-[2px] ${className}` : 'shrink-0 rounded-[2px]'}
      data-skin={skin}
      data-testid="player-head"
      {...(label ? { role: 'img', 'aria-label': label } : { 'aria-hidden': true })}
    >
      {headRects(art).map((r) => (
        <rect key={`${r.x},${r.y}`} x={r.x} y={r.y} width={r.width} height={1} fill={r.color} />
      ))}
    </svg>
  );
}
