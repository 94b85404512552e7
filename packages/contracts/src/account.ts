import { z } from 'zod';
import { EMAIL_MAX, PASSWORD_MAX, PASSWORD_MIN, isEmail, validationMessages } from './validation.ts';

/** Account security: two-factor, sessions, password, email, deletion, activity (docs/guide.md, Account security). */
export const TWOFACTOR_DIGITS = 6;
export const RECOVERY_CODE_COUNT = 10;
export const RECOVERY_CODE_PATTERN = /^[a-z2-7]{5}-[a-z2-7]{5}$/;

/** A six-digit code, or a recovery code as we print it. */
export const twoFactorToken = z
  .string({ error: 'The code field is required' })
  .trim()
  .toLowerCase()
  .refine((v) => /^\d{6}$/.test(v) || RECOVERY_CODE_PATTERN.test(v), 'Enter the six-digit code from your app, or a recovery code.');

export const twoFactorSetupResult = z.object({ qr: z.string().startsWith('data:image/'), secret: z.string() });
export const twoFactorEnableRequest = z.object({
  token: z
    .string()
    .trim()
    .regex(/^\d{6}$/, 'Enter the six-digit code from your app.'),
  endOtherSessions: z.boolean().optional(),
});
export const twoFactorEnableResult = z.object({ recoveryCodes: z.array(z.string()) });
export const twoFactorDisableRequest = z.object({ token: twoFactorToken });
export const recoveryCodesRequest = z.object({ token: twoFactorToken });

export const sessionInfo = z.object({
  sessionId: z.string(),
  device: z.string(),
  ip: z.string().nullable(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  current: z.boolean(),
});
export const sessionIdParams = z.object({
  sessionId: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/),
});
export const sessionsResult = z.array(sessionInfo);
export type SessionInfoData = z.infer<typeof sessionInfo>;

const password = z
  .string({ error: validationMessages.required('password') })
  .min(1, validationMessages.required('password'))
  .max(PASSWORD_MAX, validationMessages.max('password', PASSWORD_MAX));

/** A new password equal to the current one changes nothing, so it is refused on the new password field. */
export const SAME_PASSWORD_MESSAGE = 'The new password must be different from your current password';
export const changePasswordRequest = z.object({
  // Named as the form names it: "The current password field is required".
  currentPassword: z
    .string({ error: validationMessages.required('current password') })
    .min(1, validationMessages.required('current password'))
    .max(PASSWORD_MAX, validationMessages.max('current password', PASSWORD_MAX)),
  newPassword: z
    .string({ error: validationMessages.required('new password') })
    .min(1, validationMessages.required('new password'))
    .min(PASSWORD_MIN, validationMessages.min('new password', PASSWORD_MIN))
    .max(PASSWORD_MAX, validationMessages.max('new password', PASSWORD_MAX)),
  endOtherSessions: z.boolean().default(false),
});

export const changeEmailRequest = z.object({
  newEmailAddress: z
    .string({ error: validationMessages.required('new email address') })
    .trim()
    .toLowerCase()
    .min(1, validationMessages.required('new email address'))
    .max(EMAIL_MAX, validationMessages.max('new email address', EMAIL_MAX))
    .refine(isEmail, validationMessages.email('new email address')),
  password,
});
export const confirmEmailRequest = z.object({
  token: z
    .string()
    .min(16)
    .max(256)
    .regex(/^[A-Za-z0-9_-]+$/),
});
export const deleteAccountRequest = z.object({ password });

export const accountEventTypes = [
  'sign_in',
  'sign_in_failed',
  'twofactor_enabled',
  'twofactor_disabled',
  'recovery_code_used',
  'recovery_codes_regenerated',
  'password_changed',
  'password_reset',
  'email_change_requested',
  'email_changed',
  'session_revoked',
] as const;
export type AccountEventType = (typeof accountEventTypes)[number];

export const accountEvent = z.object({
  type: z.enum(accountEventTypes),
  ip: z.string().nullable(),
  device: z.string(),
  createdAt: z.string(),
});
export const activityResult = z.array(accountEvent);

export const accountEventLabels: Record<AccountEventType, string> = {
  sign_in: 'Signed in',
  sign_in_failed: 'Failed sign-in attempt',
  twofactor_enabled: 'Two-factor authentication turned on',
  twofactor_disabled: 'Two-factor authentication turned off',
  recovery_code_used: 'Signed in with a recovery code',
  recovery_codes_regenerated: 'New recovery codes made',
  password_changed: 'Password changed',
  password_reset: 'Password reset by email',
  email_change_requested: 'Email change requested',
  email_changed: 'Email address changed',
  session_revoked: 'Session signed out',
};

/** A short, human description of a browser from its User-Agent. */
export function describeDevice(userAgent: string | null | undefined): string {
  if (!userAgent) return 'Unknown device';
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /OPR\//.test(userAgent)
      ? 'Opera'
      : /Firefox\//.test(userAgent)
        ? 'Firefox'
        : /Chrome\/|Chromium\//.test(userAgent)
          ? 'Chrome'
          : /Safari\//.test(userAgent)
            ? 'Safari'
            : /curl|node|undici|python/i.test(userAgent)
              ? 'Script'
              : 'Browser';
  const os = /Windows/.test(userAgent)
    ? 'Windows'
    : /Android/.test(userAgent)
      ? 'Android'
      : /iPhone|iPad|iOS/.test(userAgent)
        ? 'iOS'
        : /Mac OS X|Macintosh/.test(userAgent)
          ? 'macOS'
          : /Linux/.test(userAgent)
            ? 'Linux'
            : null;
  return os ? `${browser} on ${os}` : browser;
}
