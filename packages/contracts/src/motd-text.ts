/**
 * Minecraft's formatting codes in a server's message of the day, and its icon: one module for the web
 * preview, the API's checks and the built-in runtime's status answer.
 *
 * A code is `§` (what the game reads) or `&` (what people type) followed by `0`–`9`/`a`–`f` (a colour),
 * `k` obfuscated, `l` bold, `m` strikethrough, `n` underlined, `o` italic, `r` reset, or `#rrggbb` (a hex
 * colour, clients 1.16+). As in the game, a colour ends the formats before it, and `r` ends everything.
 * What is saved (`toSectionCodes`) uses `§` only, and a hex colour in Spigot's `§x§r§r§g§g§b§b` form:
 * vanilla clients show that as a reset (no stray digits), and our runtime reads it back as the colour.
 *
 * This module has no zod (motd.ts holds the schemas): the built-in runtime's launcher loads it at every
 * start, and the schema library would add ≈ 20 ms to each.
 */
import { isRestrictedWord } from './restricted-words.ts';

export const MOTD_LINES = 2;
/** Visible characters per line (the width the server list shows). */
export const MOTD_LINE_MAX = 59;
/** The whole value with its codes, as stored in server.properties. */
export const MOTD_RAW_MAX = 256;

/** The game's sixteen colours (their documented RGB values), by code. */
export const motdColours = {
  '0': { name: 'black', hex: '#000000' },
  '1': { name: 'dark_blue', hex: '#0000AA' },
  '2': { name: 'dark_green', hex: '#00AA00' },
  '3': { name: 'dark_aqua', hex: '#00AAAA' },
  '4': { name: 'dark_red', hex: '#AA0000' },
  '5': { name: 'dark_purple', hex: '#AA00AA' },
  '6': { name: 'gold', hex: '#FFAA00' },
  '7': { name: 'gray', hex: '#AAAAAA' },
  '8': { name: 'dark_gray', hex: '#555555' },
  '9': { name: 'blue', hex: '#5555FF' },
  a: { name: 'green', hex: '#55FF55' },
  b: { name: 'aqua', hex: '#55FFFF' },
  c: { name: 'red', hex: '#FF5555' },
  d: { name: 'light_purple', hex: '#FF55FF' },
  e: { name: 'yellow', hex: '#FFFF55' },
  f: { name: 'white', hex: '#FFFFFF' },
} as const;
export type MotdColourCode = keyof typeof motdColours;

export const motdFormats = {
  k: 'obfuscated',
  l: 'bold',
  m: 'strikethrough',
  n: 'underlined',
  o: 'italic',
} as const;
export type MotdFormat = (typeof motdFormats)[keyof typeof motdFormats];

/** The server list draws a MOTD without codes in gray. */
export const MOTD_DEFAULT_COLOUR = motdColours['7'].hex;

export interface MotdSpan {
  text: string;
  /** `#RRGGBB`, or null for the list's default gray. */
  colour: string | null;
  bold: boolean;
  italic: boolean;
  underlined: boolean;
  strikethrough: boolean;
  obfuscated: boolean;
}

export interface ParsedMotd {
  /** One list of spans per line (at most two when valid). */
  lines: MotdSpan[][];
  /** What is wrong, in words for the page; empty when the MOTD may be saved. */
  problems: string[];
}

const plainStyle = (): Omit<MotdSpan, 'text'> => ({
  colour: null,
  bold: false,
  italic: false,
  underlined: false,
  strikethrough: false,
  obfuscated: false,
});

const isColour = (c: string): c is MotdColourCode => c in motdColours;
const isFormat = (c: string): c is keyof typeof motdFormats => c in motdFormats;

/**
 * Splits a MOTD into styled spans, line by line. Codes may use `&` or `§`; an `&` that starts no code
 * (`Tom & Jerry`) is text, a `§` that starts none is a problem (the game would swallow the next
 * character), and so is an `&` followed by a letter or digit that is no code (a typo like `&z`).
 */
export function parseMotd(raw: string): ParsedMotd {
  const problems: string[] = [];
  const lines: MotdSpan[][] = [];
  const rawLines = raw.replace(/\r\n?/g, '\n').split('\n');
  rawLines.forEach((lineText, lineIndex) => {
    const spans: MotdSpan[] = [];
    let style = plainStyle();
    let text = '';
    let visible = 0;
    const flush = () => {
      if (text) spans.push({ text, ...style });
      text = '';
    };
    const chars = Array.from(lineText);
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i] as string;
      if (ch === '&' || ch === '§') {
        const next = (chars[i + 1] ?? '').toLowerCase();
        // Spigot's hex form: §x§r§r§g§g§b§b.
        if (next === 'x') {
          const digits = [3, 5, 7, 9, 11, 13].map((k) => chars[i + k] ?? '');
          const marks = [2, 4, 6, 8, 10, 12].map((k) => chars[i + k] ?? '');
          if (marks.every((m) => m === ch) && digits.every((d) => /^[0-9a-f]$/i.test(d))) {
            flush();
            style = { ...plainStyle(), colour: `#${digits.join('').toUpperCase()}` };
            i += 13;
            continue;
          }
        }
        if (next === '#') {
          const hex = chars.slice(i + 2, i + 8).join('');
          if (/^[0-9a-f]{6}$/i.test(hex)) {
            flush();
            style = { ...plainStyle(), colour: `#${hex.toUpperCase()}` };
            i += 7;
            continue;
          }
          problems.push(`${ch}#${hex} is not a colour: write ${ch}# and six hex digits, like ${ch}#ff8800.`);
          i += 1;
          continue;
        }
        if (isColour(next)) {
          flush();
          style = { ...plainStyle(), colour: motdColours[next].hex };
          i += 1;
          continue;
        }
        if (isFormat(next)) {
          flush();
          style = { ...style, [motdFormats[next]]: true };
          i += 1;
          continue;
        }
        if (next === 'r') {
          flush();
          style = plainStyle();
          i += 1;
          continue;
        }
        if (ch === '§' || /^[\p{L}\p{N}]$/u.test(next)) {
          problems.push(
            next
              ? `${ch}${chars[i + 1] ?? ''} is not a formatting code (0–9, a–f, k–o, r or #rrggbb).`
              : `${ch} at the end of a line starts no code.`,
          );
          i += next ? 1 : 0;
          continue;
        }
      }
      if (ch < ' ' || ch === '\u007f') {
        problems.push('The message may not contain control characters.');
        continue;
      }
      text += ch;
      visible += 1;
    }
    flush();
    if (visible > MOTD_LINE_MAX)
      problems.push(`Line ${lineIndex + 1} has ${visible} characters; at most ${MOTD_LINE_MAX} fit in the server list.`);
    lines.push(spans);
  });
  if (rawLines.length > MOTD_LINES)
    problems.push(`The server list shows ${MOTD_LINES} lines; remove the line breaks after the second line.`);
  if (raw.length > MOTD_RAW_MAX) problems.push(`The message may be at most ${MOTD_RAW_MAX} characters with its codes.`);
  const plain = lines.map((l) => l.map((s) => s.text).join('')).join(' ');
  if (isRestrictedText(plain)) problems.push('Please change the message of the day.');
  return { lines, problems: [...new Set(problems)] };
}

/** Whether some word of the text is one a public name may not contain (the offensive ones). */
export function isRestrictedText(text: string): boolean {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .some((word) => word !== '' && isRestrictedWord(word));
}

/** The MOTD as the game stores it: every code with `§`, hex colours in Spigot's `§x` form. */
export function toSectionCodes(raw: string): string {
  return raw
    .replace(/\r\n?/g, '\n')
    .replace(/[&§]#([0-9a-f]{6})/gi, (_m, hex: string) => `§x${Array.from(hex.toLowerCase(), (d) => `§${d}`).join('')}`)
    .replace(/[&§]([0-9a-fk-or])/gi, (_m, code: string) => `§${code.toLowerCase()}`);
}

/**
 * The saved MOTD as the Appearance page's editor shows it: codes with `&` as the owner types them, hex
 * colours as `&#rrggbb` instead of Spigot's twelve-character `§x§r§r§g§g§b§b`. It saves back to the same text.
 */
export function toTypedCodes(saved: string): string {
  return saved
    .replace(/§x((?:§[0-9a-f]){6})/gi, (_m, digits: string) => `&#${digits.replaceAll('§', '').toLowerCase()}`)
    .replace(/§([0-9a-fk-or])/gi, (_m, code: string) => `&${code.toLowerCase()}`);
}

/** One piece of a chat component (the JSON the status answer carries). */
export interface MotdComponentPart {
  text: string;
  color?: string;
  bold?: boolean;
  italic?: boolean;
  underlined?: boolean;
  strikethrough?: boolean;
  obfuscated?: boolean;
}

/**
 * The MOTD as a chat component for a 1.7+ status answer: each span with its colour (a name for the
 * sixteen, `#rrggbb` otherwise) and formats set explicitly, lines joined with `\n`.
 */
export function motdComponent(raw: string): { text: string; extra?: MotdComponentPart[] } {
  const { lines } = parseMotd(raw);
  const extra: MotdComponentPart[] = [];
  lines.forEach((spans, index) => {
    if (index > 0) extra.push({ text: '\n' });
    for (const span of spans) {
      const named = Object.values(motdColours).find((c) => c.hex === span.colour);
      extra.push({
        text: span.text,
        color: span.colour === null ? 'gray' : (named?.name ?? span.colour.toLowerCase()),
        bold: span.bold,
        italic: span.italic,
        underlined: span.underlined,
        strikethrough: span.strikethrough,
        obfuscated: span.obfuscated,
      });
    }
  });
  return extra.length ? { text: '', extra } : { text: '' };
}

export const SERVER_ICON_SIZE = 64;
export const SERVER_ICON_MAX_BYTES = 64 * 1024;
export const SERVER_ICON_FILE = 'server-icon.png';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * Why these bytes cannot be a server icon, or null when they can: a PNG (signature, then the IHDR chunk)
 * of exactly 64×64 pixels, at most 64 KiB, ending with its IEND chunk. Only the header is read: the
 * client decodes the image itself, and a broken one shows as the default icon.
 */
export function serverIconProblem(bytes: Uint8Array): string | null {
  if (bytes.length > SERVER_ICON_MAX_BYTES) return `The icon may be at most ${SERVER_ICON_MAX_BYTES / 1024} KiB.`;
  const isPng = bytes.length >= 33 && PNG_SIGNATURE.every((b, i) => bytes[i] === b);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ascii = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (!isPng || view.getUint32(8) !== 13 || ascii(12) !== 'IHDR') return 'The icon must be a PNG image.';
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  if (width !== SERVER_ICON_SIZE || height !== SERVER_ICON_SIZE)
    return `The icon must be exactly ${SERVER_ICON_SIZE}×${SERVER_ICON_SIZE} pixels; this one is ${width}×${height}.`;
  if (bytes.length < 45 || ascii(bytes.length - 8) !== 'IEND') return 'The icon is not a complete PNG image.';
  return null;
}

/** The icon as the status answer's `favicon`. */
export const faviconOf = (png: Uint8Array) => `data:image/png;base64,${base64(png)}`;

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** A favicon data URL as the launcher accepts it (at most the icon cap once decoded). */
export const FAVICON_MAX_CHARS = Math.ceil(SERVER_ICON_MAX_BYTES / 3) * 4 + 22;
export const FAVICON_PATTERN = /^data:image\/png;base64,[A-Za-z0-9+/]+={0,2}$/;
