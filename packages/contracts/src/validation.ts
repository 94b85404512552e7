/**
 * Form-validation rules and messages. The web forms and the API's INVALID_INPUT field
 * messages use the same wording.
 */
export type RuleName = 'required' | 'email' | 'min' | 'max' | 'confirmed' | 'is' | 'alpha_num';

export type Rule =
  | { rule: 'required' }
  | { rule: 'email' }
  | { rule: 'min'; length: number }
  | { rule: 'max'; length: number }
  | { rule: 'confirmed'; target: string }
  | { rule: 'is'; value: unknown }
  | { rule: 'alpha_num' };

export const validationMessages = {
  required: (field: string) => `The ${field} field is required`,
  email: (field: string) => `The ${field} field must be a valid email`,
  min: (field: string, length: number) => `The ${field} field must be at least ${length} characters`,
  max: (field: string, length: number) => `The ${field} field may not be greater than ${length} characters`,
  // The message is worded "confirmation does not match", said of the confirmation field itself ("The password
  // confirmation does not match"); "The {field} field confirmation" doubled the word for that field's label.
  confirmed: (field: string) => `The ${field} does not match`,
  alpha_num: (field: string) => `The ${field} field may only contain alpha-numeric characters`,
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
const ALPHA_NUM = /^[\p{L}\p{N}]*$/u;

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

/** Runs the rules in order and returns the first message, or null when the value passes. */
export function validateValue(field: string, value: unknown, rules: readonly Rule[], values: Record<string, unknown> = {}): string | null {
  for (const r of rules) {
    if (r.rule === 'required') {
      if (isMissing(value)) return validationMessages.required(field);
      continue;
    }
    // Optional fields that are empty pass every other rule.
    if (isMissing(value)) continue;
    const text = typeof value === 'string' ? value : String(value);
    switch (r.rule) {
      case 'email':
        if (!isEmail(text)) return validationMessages.email(field);
        break;
      case 'min':
        if ([...text].length < r.length) return validationMessages.min(field, r.length);
        break;
      case 'max':
        if ([...text].length > r.length) return validationMessages.max(field, r.length);
        break;
      case 'confirmed':
        if (value !== values[r.target]) return validationMessages.confirmed(field);
        break;
      case 'is':
        if (value !== r.value) return validationMessages.fallback(field);
        break;
      case 'alpha_num':
        if (!ALPHA_NUM.test(text)) return validationMessages.alpha_num(field);
        break;
    }
  }
  return null;
}

/** Password policy shared by register and reset: 8 to 128 characters. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const EMAIL_MAX = 254;

export const fieldRules = {
  emailAddress: [{ rule: 'required' }, { rule: 'email' }, { rule: 'max', length: EMAIL_MAX }],
  password: [{ rule: 'required' }, { rule: 'min', length: PASSWORD_MIN }, { rule: 'max', length: PASSWORD_MAX }],
  loginPassword: [{ rule: 'required' }, { rule: 'max', length: PASSWORD_MAX }],
  passwordConfirmation: [{ rule: 'required' }, { rule: 'confirmed', target: 'password' }],
} as const satisfies Record<string, readonly Rule[]>;
