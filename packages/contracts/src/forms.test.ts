import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { changeEmailForm, changePasswordForm, loginForm, registerForm } from './forms.ts';

/** The first message per field, as the web form shows them. */
function said(schema: z.ZodType, values: Record<string, string>): Record<string, string> {
  const found: Record<string, string> = {};
  for (const issue of schema.safeParse(values).error?.issues ?? []) found[String(issue.path[0])] ??= issue.message;
  return found;
}

describe('the account forms say what the API would', () => {
  it('a registration: required, a valid address, a long enough password, the same password twice', () => {
    expect(said(registerForm, { emailAddress: '  ', password: '', passwordConfirmation: '' })).toEqual({
      emailAddress: 'The email address field is required',
      password: 'The password field is required',
      passwordConfirmation: 'The password confirmation field is required',
    });
    expect(said(registerForm, { emailAddress: 'steve@minecraft', password: 'short', passwordConfirmation: 'other' })).toEqual({
      emailAddress: 'The email address field must be a valid email',
      password: 'The password field must be at least 8 characters',
      // Said while the password itself is still wrong, not only once everything else passes.
      passwordConfirmation: 'The password confirmation does not match',
    });
    expect(said(registerForm, { emailAddress: 'steve@example.com', password: 'long enough', passwordConfirmation: 'long enough' })).toEqual(
      {},
    );
  });

  it('refuses what a mail library would read as a display name, a list or a quoted name, and takes real addresses', () => {
    const email = (emailAddress: string) => said(loginForm, { emailAddress, password: 'x' }).emailAddress;
    for (const value of [
      'x<victim@example.com>',
      'x,victim@example.com',
      '"a b"@example.com',
      'a;b@example.com',
      'a@b..com',
      'a@example.com.',
    ])
      expect(email(value)).toBe('The email address field must be a valid email');
    for (const value of ['first.last+tag@example.co.uk', "o'brien@example.com", 'joão@exemplo.pt', 'a@b.c'])
      expect(email(value)).toBeUndefined();
  });

  it('a password change names each password, and an email change asks for the new address first', () => {
    expect(said(changePasswordForm, { currentPassword: '', newPassword: 'long enough', newPasswordConfirmation: 'long enough!' })).toEqual({
      currentPassword: 'The current password field is required',
      newPasswordConfirmation: 'The password confirmation does not match',
    });
    expect(said(changeEmailForm, { newEmailAddress: ' ', password: '' })).toEqual({
      newEmailAddress: 'The new email address field is required',
      password: 'The password field is required',
    });
  });
});
