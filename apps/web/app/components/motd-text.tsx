import { MOTD_DEFAULT_COLOUR, type MotdSpan } from '@spawnpoint/contracts';
import { useEffect, useState } from 'react';

// Characters an obfuscated span cycles through (the game swaps each for another of the same width; here
// all are drawn in the same pixel face, so any printable ones do).
const SCRAMBLE = 'ABCDEFGHJKLMNOPRSTUVWXYZabcdeghkmnopqrsuvwxyz0123456789#$%&?';

function useTicker(active: boolean): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!active) return;
    // Still for people who asked the system for less motion.
    if (typeof window !== 'undefined' && window.matchMedia?.('(prefers-reduced-motion: reduce)').matches) return;
    const timer = window.setInterval(() => setTick((t) => t + 1), 80);
    return () => window.clearInterval(timer);
  }, [active]);
  return tick;
}

function scramble(text: string, tick: number): string {
  return Array.from(text, (ch, i) => (ch === ' ' ? ' ' : SCRAMBLE[(i * 31 + tick * 17 + ch.charCodeAt(0)) % SCRAMBLE.length])).join('');
}

/** One line of a MOTD as the server list draws it: each span in its colour and formats, with its shadow. */
export function MotdLine({ spans }: { spans: MotdSpan[] }) {
  const tick = useTicker(spans.some((s) => s.obfuscated));
  if (spans.length === 0) return <span aria-hidden="true">&nbsp;</span>;
  return (
    <>
      {spans.map((span, i) => {
        const colour = span.colour ?? MOTD_DEFAULT_COLOUR;
        const decoration = [span.underlined ? 'underline' : '', span.strikethrough ? 'line-through' : ''].filter(Boolean).join(' ');
        return (
          <span
            key={i}
            data-colour={colour}
            data-format={
              [span.bold && 'bold', span.italic && 'italic', span.obfuscated && 'obfuscated'].filter(Boolean).join(' ') || undefined
            }
            style={{
              color: colour,
              fontWeight: span.bold ? 700 : 400,
              fontStyle: span.italic ? 'italic' : 'normal',
              textDecoration: decoration || 'none',
              // The game's drop shadow: the same colour at a quarter of its brightness, one pixel down right.
              textShadow: `0.125em 0.125em 0 color-mix(in srgb, ${colour} 25%, black)`,
            }}
          >
            {span.obfuscated ? (
              <>
                <span aria-hidden="true">{scramble(span.text, tick)}</span>
                <span className="sr-only">{span.text}</span>
              </>
            ) : (
              span.text
            )}
          </span>
        );
      })}
    </>
  );
}
