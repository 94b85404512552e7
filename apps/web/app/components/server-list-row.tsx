import type { MotdSpan } from '@spawnpoint/contracts';
import { MotdLine } from './motd-text.tsx';
import { ServerIcon } from './pixel-art.tsx';

/**
 * One entry of Minecraft's multiplayer list as the game draws it: icon, name, players, connection bars and
 * the two MOTD lines, in our pixel face. The Appearance page previews with it; the public server list shows
 * each server with it.
 */
export function ServerListRow({
  name,
  icon,
  fallbackId,
  lines,
  players,
}: {
  name: string;
  /** The icon's address (or data URL); null draws the default block of `fallbackId`. */
  icon: string | null;
  fallbackId: string;
  lines: MotdSpan[][];
  players: { online: number; max: number };
}) {
  return (
    <div
      data-testid="motd-preview"
      className="flex min-w-0 items-start gap-3 overflow-hidden rounded-md bg-[#1b1b1b] p-2 text-[15px] leading-[1.35] ring-1 ring-black/40"
      style={{ fontFamily: 'var(--font-pixel)' }}
    >
      {icon ? (
        <img
          src={icon}
          alt=""
          width={64}
          height={64}
          className="shrink-0"
          style={{ imageRendering: 'pixelated' }}
          data-testid="preview-icon"
        />
      ) : (
        <ServerIcon serverId={fallbackId} size={64} className="rounded-none ring-0" />
      )}
      <div className="min-w-0 flex-1">
        <div className="flex items-baseline justify-between gap-2">
          <span className="truncate text-white" style={{ textShadow: '0.125em 0.125em 0 #3f3f3f' }}>
            {name}
          </span>
          <span className="flex shrink-0 items-end gap-2">
            <span className="text-[#AAAAAA]" style={{ textShadow: '0.125em 0.125em 0 #2a2a2a' }}>
              {players.online}
              <span className="text-[#555555]">/</span>
              {players.max}
            </span>
            <span className="flex items-end gap-px" role="img" aria-label="Good connection">
              {[3, 5, 7, 9, 11].map((h) => (
                <span key={h} className="w-[3px] bg-[#55FF55]" style={{ height: h, boxShadow: '1px 1px 0 #155415' }} />
              ))}
            </span>
          </span>
        </div>
        {[0, 1].map((line) => (
          <div key={line} className="overflow-hidden whitespace-pre" data-testid={`preview-line-${line + 1}`}>
            <MotdLine spans={lines[line] ?? []} />
          </div>
        ))}
      </div>
    </div>
  );
}
