import {
  BACKGROUND_PALETTE,
  CONSOLE_BACKGROUND,
  CONSOLE_FOREGROUND,
  FOREGROUND_PALETTE,
  color256,
  readableOn,
  toHex,
} from './console-palette.ts';

/** A run of a console line with one look. Colours are final: the foreground is already readable on the background. */
export interface Segment {
  text: string;
  color: string;
  /** Only when the line asked for one (SGR 40–47, 100–107, 48;5;n, 48;2;r;g;b): drawn behind this text only. */
  background?: string;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strike?: boolean;
}

interface Style {
  fg: string | null;
  bg: string | null;
  bold: boolean;
  italic: boolean;
  underline: boolean;
  strike: boolean;
  inverse: boolean;
}

const plain = (): Style => ({ fg: null, bg: null, bold: false, italic: false, underline: false, strike: false, inverse: false });

// CSI sequences (SGR and others, such as cursor moves JLine may print), OSC sequences (titles, links), other escapes.
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[([0-9;:?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]?/g;

function applySgr(style: Style, params: string): void {
  const codes = params === '' ? [0] : params.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i] as number;
    if (code === 0) Object.assign(style, plain());
    else if (code === 1) style.bold = true;
    else if (code === 3) style.italic = true;
    else if (code === 4) style.underline = true;
    else if (code === 7) style.inverse = true;
    else if (code === 9) style.strike = true;
    else if (code === 22) style.bold = false;
    else if (code === 23) style.italic = false;
    else if (code === 24) style.underline = false;
    else if (code === 27) style.inverse = false;
    else if (code === 29) style.strike = false;
    else if (code >= 30 && code <= 37) style.fg = FOREGROUND_PALETTE[code - 30] as string;
    else if (code >= 90 && code <= 97) style.fg = FOREGROUND_PALETTE[code - 90 + 8] as string;
    else if (code === 39) style.fg = null;
    else if (code >= 40 && code <= 47) style.bg = BACKGROUND_PALETTE[code - 40] as string;
    else if (code >= 100 && code <= 107) style.bg = BACKGROUND_PALETTE[code - 100 + 8] as string;
    else if (code === 49) style.bg = null;
    else if (code === 38 || code === 48) {
      const background = code === 48;
      let color: string | null = null;
      if (codes[i + 1] === 5 && codes[i + 2] !== undefined) {
        color = color256(Math.min(255, codes[i + 2] as number), background);
        i += 2;
      } else if (codes[i + 1] === 2 && codes[i + 4] !== undefined) {
        color = toHex([codes[i + 2], codes[i + 3], codes[i + 4]].map((c) => Math.min(255, c as number)) as [number, number, number]);
        i += 4;
      } else break;
      if (background) style.bg = color;
      else style.fg = color;
    }
  }
}

function segmentOf(text: string, style: Style): Segment {
  let fg = style.fg ?? CONSOLE_FOREGROUND;
  let bg = style.bg;
  if (style.inverse) [fg, bg] = [bg ?? CONSOLE_BACKGROUND, fg];
  const segment: Segment = { text, color: readableOn(fg, bg ?? CONSOLE_BACKGROUND) };
  if (bg) segment.background = bg;
  if (style.bold) segment.bold = true;
  if (style.italic) segment.italic = true;
  if (style.underline) segment.underline = true;
  if (style.strike) segment.strike = true;
  return segment;
}

function sameLook(a: Segment, b: Segment): boolean {
  return (
    a.color === b.color &&
    a.background === b.background &&
    a.bold === b.bold &&
    a.italic === b.italic &&
    a.underline === b.underline &&
    a.strike === b.strike
  );
}

/**
 * One console line as coloured runs. Each line starts plain: a line that sets a background and never resets
 * it does not colour the lines after it. Escape sequences other than colours and styles are dropped, and so
 * are other control characters (a tab is kept).
 */
export function parseAnsiLine(line: string): Segment[] {
  const segments: Segment[] = [];
  const style = plain();
  let last = 0;
  const push = (text: string) => {
    // eslint-disable-next-line no-control-regex
    const clean = text.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, '');
    if (!clean) return;
    const segment = segmentOf(clean, style);
    const previous = segments[segments.length - 1];
    // A sequence that changed nothing visible (a cursor move, a title) does not split the run.
    if (previous && sameLook(previous, segment)) previous.text += clean;
    else segments.push(segment);
  };
  for (const match of line.matchAll(ESCAPES)) {
    push(line.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[2] === 'm') applySgr(style, match[1] ?? '');
  }
  push(line.slice(last));
  return segments;
}
