import { describe, expect, it } from 'vitest';
import { mkdirRequest, renameRequest, visibleFileName, writeFileRequest } from './files.ts';
import { nameAvailabilityQuery } from './servers.ts';
import { fieldRules, isMissing, validateValue } from './validation.ts';

describe('required', () => {
  it('treats empty, whitespace-only, false, null and empty arrays as missing', () => {
    for (const value of ['', '   ', false, null, undefined, []]) expect(isMissing(value)).toBe(true);
    for (const value of ['a', 0, true, ['x'], {}]) expect(isMissing(value)).toBe(false);
    expect(validateValue('email address', '  ', [{ rule: 'required' }])).toBe('The email address field is required');
  });
});

describe('form rules and their messages', () => {
  it('email', () => {
    expect(validateValue('email', 'steve@minecraft', [{ rule: 'email' }])).toBe('The email field must be a valid email');
    expect(validateValue('email', 'steve@example.com', [{ rule: 'email' }])).toBeNull();
    // What a mail library would read as a display name, a list or a quoted name: stored as one address,
    // delivered to another.
    for (const value of [
      'x<victim@example.com>',
      'x,victim@example.com',
      '"a b"@example.com',
      'a;b@example.com',
      'a@b..com',
      'a@example.com.',
    ])
      expect(validateValue('email', value, [{ rule: 'email' }])).toBe('The email field must be a valid email');
    for (const value of ['first.last+tag@example.co.uk', "o'brien@example.com", 'joão@exemplo.pt', 'a@b.c'])
      expect(validateValue('email', value, [{ rule: 'email' }])).toBeNull();
  });

  it('min and max count characters, not bytes', () => {
    expect(validateValue('password', 'abc', [{ rule: 'min', length: 8 }])).toBe('The password field must be at least 8 characters');
    expect(validateValue('name', 'abcdefghi', [{ rule: 'max', length: 8 }])).toBe('The name field may not be greater than 8 characters');
    expect(validateValue('name', '😀😀😀😀', [{ rule: 'max', length: 4 }])).toBeNull();
  });

  it('confirmed compares with another field', () => {
    const values = { password: 'secret-password', passwordConfirmation: 'different' };
    expect(validateValue('password confirmation', values.passwordConfirmation, fieldRules.passwordConfirmation, values)).toBe(
      'The password confirmation does not match',
    );
    expect(validateValue('password confirmation', 'secret-password', fieldRules.passwordConfirmation, values)).toBeNull();
  });

  it('is falls back to the default message', () => {
    expect(validateValue('answer', 'no', [{ rule: 'is', value: 'yes' }])).toBe('The answer is not valid');
  });

  it('alpha_num', () => {
    expect(validateValue('code', 'abc-1', [{ rule: 'alpha_num' }])).toBe('The code field may only contain alpha-numeric characters');
    expect(validateValue('code', 'abc1', [{ rule: 'alpha_num' }])).toBeNull();
  });

  it('optional empty fields pass every rule but required', () => {
    expect(validateValue('email', '', [{ rule: 'email' }, { rule: 'min', length: 3 }])).toBeNull();
  });

  it('reports the first failing rule only', () => {
    expect(validateValue('email address', '', fieldRules.emailAddress)).toBe('The email address field is required');
    expect(validateValue('email address', 'nope', fieldRules.emailAddress)).toBe('The email address field must be a valid email');
  });
});

describe("request schemas answer in the form rules' words", () => {
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
