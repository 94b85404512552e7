import { describe, expect, it } from 'vitest';
import { mkdirRequest, renameRequest, visibleFileName, writeFileRequest } from './files.ts';
import { nameAvailabilityQuery } from './servers.ts';
import { isMissing } from './validation.ts';

describe('required', () => {
  it('treats empty, whitespace-only, false, null and empty arrays as missing', () => {
    for (const value of ['', '   ', false, null, undefined, []]) expect(isMissing(value)).toBe(true);
    for (const value of ['a', 0, true, ['x'], {}]) expect(isMissing(value)).toBe(false);
  });
});

describe("request schemas answer in the forms' words", () => {
  const firstMessage = (result: { success: boolean; error?: { issues: { message: string }[] } }) => result.error?.issues[0]?.message;

  it('a blank or missing name in the file manager is required, never "already exists" or schema text', () => {
    for (const to of ['', '   ', '/plugins/', '/plugins/  '])
      expect(firstMessage(renameRequest.safeParse({ from: '/a.txt', to }))).toBe('The new name field is required');
    expect(firstMessage(renameRequest.safeParse({ from: '/a.txt' }))).toBe('The new name field is required');
    expect(firstMessage(mkdirRequest.safeParse({ path: '/' }))).toBe('The folder name field is required');
    expect(firstMessage(writeFileRequest.safeParse({ path: '', content: '' }))).toBe('The file name field is required');
    expect(renameRequest.safeParse({ from: '/a.txt', to: '/plugins/b.txt' }).success).toBe(true);
  });

  it('a server name checked while typing', () => {
    expect(firstMessage(nameAvailabilityQuery.safeParse({ name: 'x'.repeat(65) }))).toBe(
      'The server name field may not be greater than 16 characters',
    );
    expect(firstMessage(nameAvailabilityQuery.safeParse({}))).toBe('The server name field is required');
  });
});

describe('file names that read as another', () => {
  it('spells out text-direction controls and leaves every other character as it is', () => {
    expect(visibleFileName('rtl\u202Etxt.exe')).toBe('rtl⟨U+202E⟩txt.exe');
    expect(visibleFileName('a\u2066b\u200Fc')).toBe('a⟨U+2066⟩b⟨U+200F⟩c');
    expect(visibleFileName(' lead.txt')).toBe(' lead.txt');
    expect(visibleFileName('名前 ✓.yml')).toBe('名前 ✓.yml');
  });

  it('spells out characters that take no space, so config\u200B.yml does not pass for config.yml', () => {
    expect(visibleFileName('config\u200B.yml')).toBe('config⟨U+200B⟩.yml');
    expect(visibleFileName('\uFEFFops.json')).toBe('⟨U+FEFF⟩ops.json');
    expect(visibleFileName('plug\u00ADin.jar')).toBe('plug⟨U+00AD⟩in.jar');
    // Joiners stay: scripts and emoji need them.
    expect(visibleFileName('👨\u200D👩.png')).toBe('👨\u200D👩.png');
  });
});
