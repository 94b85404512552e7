import { describe, expect, it } from 'vitest';
import { fakePng } from '../../../test-support/png.ts';
import { publicMotd } from './motd.ts';
import { motdComponent, parseMotd, serverIconProblem, toSectionCodes, toTypedCodes, type MotdSpan } from './motd-text.ts';

const plain: Omit<MotdSpan, 'text'> = {
  colour: null,
  bold: false,
  italic: false,
  underlined: false,
  strikethrough: false,
  obfuscated: false,
};

describe('parseMotd', () => {
  it('turns & and § codes into styled spans, line by line', () => {
    const { lines, problems } = parseMotd('&aGreen §lBold\n&cRed');
    expect(problems).toEqual([]);
    expect(lines).toEqual([
      [
        { ...plain, text: 'Green ', colour: '#55FF55' },
        { ...plain, text: 'Bold', colour: '#55FF55', bold: true },
      ],
      [{ ...plain, text: 'Red', colour: '#FF5555' }],
    ]);
  });

  it('knows every colour and format code, in either case', () => {
    for (const code of '0123456789abcdefABCDEF') expect(parseMotd(`&${code}x`).lines[0]?.[0]?.colour).toMatch(/^#[0-9A-F]{6}$/);
    const [span] = parseMotd('&k&L&m&n&oall').lines[0] ?? [];
    expect(span).toEqual({ ...plain, text: 'all', obfuscated: true, bold: true, strikethrough: true, underlined: true, italic: true });
  });

  it('ends the formats at a colour, and everything at a reset', () => {
    expect(parseMotd('&l&obold&9blue').lines[0]).toEqual([
      { ...plain, text: 'bold', bold: true, italic: true },
      { ...plain, text: 'blue', colour: '#5555FF' },
    ]);
    expect(parseMotd('&c&lred&rplain').lines[0]).toEqual([
      { ...plain, text: 'red', colour: '#FF5555', bold: true },
      { ...plain, text: 'plain' },
    ]);
  });

  it('reads hex colours as &#rrggbb and as the saved §x form', () => {
    expect(parseMotd('&#ff8800orange').lines[0]).toEqual([{ ...plain, text: 'orange', colour: '#FF8800' }]);
    expect(parseMotd(toSectionCodes('&#ff8800orange')).lines[0]).toEqual([{ ...plain, text: 'orange', colour: '#FF8800' }]);
  });

  it('keeps an & that starts no code as text, and refuses codes that do not exist', () => {
    expect(parseMotd('Tom & Jerry').lines[0]).toEqual([{ ...plain, text: 'Tom & Jerry' }]);
    expect(parseMotd('&zoops').problems).toEqual(['&z is not a formatting code (0–9, a–f, k–o, r or #rrggbb).']);
    expect(parseMotd('§ space').problems).toHaveLength(1);
    expect(parseMotd('&#12345').problems[0]).toContain('is not a colour');
  });

  it('counts visible characters per line, not codes, and allows two lines', () => {
    expect(parseMotd(`&a${'x'.repeat(59)}`).problems).toEqual([]);
    expect(parseMotd('x'.repeat(60)).problems).toEqual(['Line 1 has 60 characters; at most 59 fit in the server list.']);
    expect(parseMotd('one\ntwo\nthree').problems[0]).toContain('2 lines');
  });

  it('refuses offensive words but not ordinary ones that contain them', () => {
    expect(parseMotd('Ask staff for grapes in Sussex').problems).toEqual([]);
    expect(parseMotd('&4sh1t server').problems).toEqual(['Please change the message of the day.']);
  });
});

describe('toSectionCodes and motdComponent', () => {
  it('saves codes with § only', () => {
    expect(toSectionCodes('&aHi &LTom & Jerry\r\n&#AbCdEf!')).toBe('§aHi §lTom & Jerry\n§x§a§b§c§d§e§f!');
  });

  it('shows a saved MOTD in the editor as typed, hex as &#rrggbb, and saves it back to the same text', () => {
    const saved = '§aHi §lTom & Jerry\n§x§a§b§c§d§e§f!';
    expect(toTypedCodes(saved)).toBe('&aHi &lTom & Jerry\n&#abcdef!');
    expect(toSectionCodes(toTypedCodes(saved))).toBe(saved);
  });

  it('builds the chat component of a status answer', () => {
    expect(motdComponent('&6&lGold\n&#112233x plain')).toEqual({
      text: '',
      extra: [
        { text: 'Gold', color: 'gold', bold: true, italic: false, underlined: false, strikethrough: false, obfuscated: false },
        { text: '\n' },
        { text: 'x plain', color: '#112233', bold: false, italic: false, underlined: false, strikethrough: false, obfuscated: false },
      ],
    });
  });
});

describe('publicMotd', () => {
  it('keeps a MOTD the Appearance page would save, and shows nothing for one it would refuse', () => {
    expect(publicMotd('§aHello\n§lthere')).toBe('§aHello\n§lthere');
    expect(publicMotd('one\ntwo\nthree')).toBe('');
    expect(publicMotd('nazi stuff')).toBe('');
    expect(publicMotd('x'.repeat(60))).toBe('');
    expect(publicMotd('§zbad code')).toBe('');
  });
});

describe('serverIconProblem', () => {
  it('accepts a 64×64 PNG and refuses anything else with the reason', () => {
    expect(serverIconProblem(fakePng(64, 64))).toBeNull();
    expect(serverIconProblem(fakePng(128, 128))).toBe('The icon must be exactly 64×64 pixels; this one is 128×128.');
    expect(serverIconProblem(Buffer.from('MZ\x90\x00 not a png at all, an executable renamed'))).toBe('The icon must be a PNG image.');
    expect(serverIconProblem(fakePng(64, 64).subarray(0, 40))).toBe('The icon is not a complete PNG image.');
    expect(serverIconProblem(Buffer.concat([fakePng(64, 64), Buffer.alloc(64 * 1024)]))).toBe('The icon may be at most 64 KiB.');
  });
});
