import { describe, expect, it } from 'vitest';
import { fieldRules, isMissing, validateValue } from './validation.ts';

describe('required', () => {
  it('treats empty, whitespace-only, false, null and empty arrays as missing', () => {
    for (const value of ['', '   ', false, null, undefined, []]) expect(isMissing(value)).toBe(true);
    for (const value of ['a', 0, true, ['x'], {}]) expect(isMissing(value)).toBe(false);
    expect(validateValue('email address', '  ', [{ rule: 'required' }])).toBe('The email address field is required');
  });
});

describe('rules and messages of spec §5', () => {
  it('email', () => {
    expect(validateValue('email', 'steve@minecraft', [{ rule: 'email' }])).toBe('The email field must be a valid email');
    expect(validateValue('email', 'steve@example.com', [{ rule: 'email' }])).toBeNull();
  });

  it('min and max count characters, not bytes', () => {
    expect(validateValue('password', 'abc', [{ rule: 'min', length: 8 }])).toBe('The password field must be at least 8 characters');
    expect(validateValue('name', 'abcdefghi', [{ rule: 'max', length: 8 }])).toBe('The name field may not be greater than 8 characters');
    expect(validateValue('name', '😀😀😀😀', [{ rule: 'max', length: 4 }])).toBeNull();
  });

  it('confirmed compares with another field', () => {
    const values = { password: 'secret-password', passwordConfirmation: 'different' };
    expect(validateValue('password confirmation', values.passwordConfirmation, fieldRules.passwordConfirmation, values)).toBe(
      'The password confirmation field confirmation does not match',
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
