/**
 * Validation messages: the request schemas (and so the web forms built on them, forms.ts) and the API's
 * INVALID_INPUT field messages use the same wording.
 */
export const validationMessages = {
  required: (field: string) => `The ${field} field is required`,
  email: (field: string) => `The ${field} field must be a valid email`,
  min: (field: string, length: number) => `The ${field} field must be at least ${length} characters`,
  max: (field: string, length: number) => `The ${field} field may not be greater than ${length} characters`,
  // The message is worded "confirmation does not match", said of the confirmation field itself ("The password
  // confirmation does not match"); "The {field} field confirmation" doubled the word for that field's label.
  confirmed: (field: string) => `The ${field} does not match`,
  fallback: (field: string) => `The ${field} is not valid`,
} as const;

/** Empty, whitespace-only, false, null/undefined and empty arrays count as missing. */
export function isMissing(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

/**
 * A plain address and nothing else: one @, a local part without spaces, control characters or the
 * characters that make a mail header's address list (`<>()[]\\,;:"`), and a domain of dot-separated labels
 * with at least one dot. Mail libraries read `x<victim@example.com>` or `x,victim@example.com` as a
 * display name or a list, so such a value was stored as one address while its mail went to another.
 */
const EMAIL = /^[^\s@<>()[\]\\,;:"\p{Cc}]+@[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)+$/u;

/** Free text the database keeps may not hold a NUL character (PostgreSQL cannot store one). */
export const noNul = (value: string): boolean => !value.includes('\0');

export function isEmail(value: string): boolean {
  return EMAIL.test(value);
}

/** An address shown to people who may not see it whole (the giveaway's winners, a viewer's activity log): s****@example.com. */
export function maskEmail(email: string): string {
  const [name = '', domain = ''] = email.split('@');
  return `${name.slice(0, 1)}${'*'.repeat(Math.max(3, name.length - 1))}@${domain}`;
}

/** Password policy shared by register and reset: 8 to 128 characters. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const EMAIL_MAX = 254;
