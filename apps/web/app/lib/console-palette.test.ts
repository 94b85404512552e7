import { describe, expect, it } from 'vitest';
import { parseAnsiLine } from './ansi.ts';
import {
  BACKGROUND_PALETTE,
  CONSOLE_BACKGROUND,
  CONSOLE_FOREGROUND,
  FOREGROUND_PALETTE,
  MIN_CONTRAST,
  color256,
  contrast,
  readableOn,
} from './console-palette.ts';

describe('console palette', () => {
  it('measures contrast as WCAG does', () => {
    expect(contrast('#ffffff', '#000000')).toBeCloseTo(21, 5);
    expect(contrast('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(contrast('#000000', '#000000')).toBe(1);
  });

  it('shows every foreground colour readably on the console background, without adjusting it', () => {
    for (const fg of [CONSOLE_FOREGROUND, ...FOREGROUND_PALETTE]) {
      expect(contrast(fg, CONSOLE_BACKGROUND), fg).toBeGreaterThanOrEqual(MIN_CONTRAST);
      expect(readableOn(fg, CONSOLE_BACKGROUND)).toBe(fg);
    }
  });

  it('keeps the default text readable on the dark background colours', () => {
    for (const bg of BACKGROUND_PALETTE.filter((c) => !['#cbd5e1', '#f8fafc'].includes(c)))
      expect(contrast(CONSOLE_FOREGROUND, bg), bg).toBeGreaterThanOrEqual(MIN_CONTRAST);
  });

  it('makes every pair of the palette readable (at least 4.5:1) after adjusting', () => {
    for (const fg of [CONSOLE_FOREGROUND, ...FOREGROUND_PALETTE, ...BACKGROUND_PALETTE])
      for (const bg of [CONSOLE_BACKGROUND, ...BACKGROUND_PALETTE, ...FOREGROUND_PALETTE])
        expect(contrast(readableOn(fg, bg), bg), `${fg} on ${bg}`).toBeGreaterThanOrEqual(MIN_CONTRAST);
  });

  it('makes every pair of the 256-colour table readable after adjusting', () => {
    const table = Array.from({ length: 256 }, (_, i) => color256(i, false));
    const backgrounds = [CONSOLE_BACKGROUND, ...Array.from({ length: 256 }, (_, i) => color256(i, true))];
    let worst = Infinity;
    for (const fg of table) for (const bg of backgrounds) worst = Math.min(worst, contrast(readableOn(fg, bg), bg));
    expect(worst).toBeGreaterThanOrEqual(MIN_CONTRAST);
    // 65,792 pairs: about a second alone, over the default 5 s when CI's other suites hold both cores.
  }, 60_000);

  it('changes an unreadable pair as little as needed: dark red on red becomes a light red, not white', () => {
    const shown = readableOn(FOREGROUND_PALETTE[1], BACKGROUND_PALETTE[1]);
    expect(contrast(shown, BACKGROUND_PALETTE[1])).toBeGreaterThanOrEqual(MIN_CONTRAST);
    expect(shown).not.toBe('#ffffff');
  });
});

describe('ANSI lines', () => {
  it('splits a line into coloured runs and resets at 0', () => {
    expect(parseAnsiLine('\x1b[32m[12:00:00 INFO]\x1b[0m: Done (1.2s)!')).toEqual([
      { text: '[12:00:00 INFO]', color: FOREGROUND_PALETTE[2] },
      { text: ': Done (1.2s)!', color: CONSOLE_FOREGROUND },
    ]);
  });

  it('keeps a background on its own run only, and each line starts plain (no spill onto the next line)', () => {
    const [warn, rest] = parseAnsiLine('\x1b[31;41mWARN\x1b[49m after');
    expect(warn?.background).toBe(BACKGROUND_PALETTE[1]);
    expect(contrast(warn?.color as string, warn?.background as string)).toBeGreaterThanOrEqual(MIN_CONTRAST);
    expect(rest?.background).toBeUndefined();
    // The line above never reset its background: the next line is plain all the same.
    expect(parseAnsiLine('\x1b[41munterminated')[0]?.background).toBe(BACKGROUND_PALETTE[1]);
    expect(parseAnsiLine('next line')).toEqual([{ text: 'next line', color: CONSOLE_FOREGROUND }]);
  });

  it('reads 256-colour and true-colour codes, bold, and inverse, adjusting unreadable text', () => {
    const [a] = parseAnsiLine('\x1b[1;38;2;10;10;30mdark blue');
    expect(a?.bold).toBe(true);
    expect(contrast(a?.color as string, CONSOLE_BACKGROUND)).toBeGreaterThanOrEqual(MIN_CONTRAST);
    const [b] = parseAnsiLine('\x1b[38;5;196;48;5;196mred on red');
    expect(contrast(b?.color as string, b?.background as string)).toBeGreaterThanOrEqual(MIN_CONTRAST);
    const [c] = parseAnsiLine('\x1b[7minverse');
    expect(c?.background).toBe(CONSOLE_FOREGROUND);
    expect(contrast(c?.color as string, CONSOLE_FOREGROUND)).toBeGreaterThanOrEqual(MIN_CONTRAST);
  });

  it('drops other escape sequences and control characters', () => {
    expect(parseAnsiLine('\x1b[2K\r> \x1b]0;title\x07ready\x07')).toEqual([{ text: '> ready', color: CONSOLE_FOREGROUND }]);
  });
});
