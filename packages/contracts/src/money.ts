import { z } from 'zod';

/**
 * Money (docs/guide.md, Money: balance, top-ups, receipts and plans): amounts are integer cents (USD); the
 * balance is the sum of an append-only ledger; a top-up is credited when the payment provider confirms it,
 * never when the browser comes back.
 */
export const CURRENCY = 'USD' as const;
/** A top-up is at least $5 and at most $500 at a time. */
export const TOPUP_MIN_CENTS = 500;
export const TOPUP_MAX_CENTS = 50_000;
/** A balance never grows beyond this (a top-up that would pass it is refused). */
export const BALANCE_MAX_CENTS = 200_000;
/** Amounts the top-up dialog offers; any whole amount between the limits may be typed. */
export const TOPUP_PRESETS_CENTS = [500, 1000, 2500, 5000] as const;

const cents = (what: string) => z.number({ error: `${what} must be a number of cents.` }).int(`${what} must be whole cents.`);

/**
 * Sent with every purchase and top-up (the page makes one per attempt): the same key again answers the
 * first answer and moves no money, so a double click or a retried request charges once.
 */
export const idempotencyKey = z
  .string()
  .min(16, 'The idempotency key must be 16 to 100 letters, digits, dashes or underscores.')
  .max(100, 'The idempotency key must be 16 to 100 letters, digits, dashes or underscores.')
  .regex(/^[A-Za-z0-9_-]+$/, 'The idempotency key must be 16 to 100 letters, digits, dashes or underscores.');

/** ISO 3166-1 alpha-2, as Intl knows it (an unknown code is refused; a withdrawn one becomes today's: UK → GB). */
export const countryCode = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^[A-Z]{2}$/, 'Choose a country.')
  .transform(currentCountryCode)
  .refine((code) => countryName(code) !== null, 'Choose a country.');

// Codes Intl names that are no country a bill goes to: unions, pseudo-locales and reserved codes.
const NOT_COUNTRIES = new Set(['AC', 'CP', 'CQ', 'DG', 'EA', 'EU', 'EZ', 'IC', 'QO', 'TA', 'UN', 'XA', 'XB', 'ZZ']);

/**
 * Today's code of a country Intl also knows by a withdrawn code (UK → GB, DD → DE, DY → BJ); any other code
 * as it is. Which old codes a runtime names differs (a browser's ICU names more than Node's), so the list and
 * the check go by the canonical form rather than by a list of old codes.
 */
export function currentCountryCode(code: string): string {
  try {
    const region = Intl.getCanonicalLocales(`und-${code}`)[0]?.slice('und-'.length);
    return region && /^[A-Z]{2}$/.test(region) ? region : code;
  } catch {
    return code;
  }
}

let regionNames: Intl.DisplayNames | null = null;
/** The English name of a country code, or null when it is no country Intl knows (or a withdrawn code of one). */
export function countryName(code: string): string | null {
  regionNames ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  if (!/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.has(code) || currentCountryCode(code) !== code) return null;
  try {
    const name = regionNames.of(code);
    return name && name !== code ? name : null;
  } catch {
    return null;
  }
}

let countries: { code: string; name: string }[] | null = null;
/** Every country Intl names, by name (the billing form's list). */
export function countryList(): { code: string; name: string }[] {
  if (countries) return countries;
  const found: { code: string; name: string }[] = [];
  for (let a = 65; a <= 90; a++)
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      const name = countryName(code);
      if (name) found.push({ code, name });
    }
  countries = found.sort((x, y) => x.name.localeCompare(y.name, 'en'));
  return countries;
}

const text = (label: string, max: number) =>
  z
    .string()
    .trim()
    .max(max, `${label} may be at most ${max} characters.`)
    // Shown on receipts as they are: no control characters.
    .refine((v) => !/\p{Cc}/u.test(v), `${label} may not hold control characters.`);

export const billingInfo = z.object({
  name: text('The name', 100).pipe(z.string().min(1, 'Enter the name to bill.')),
  addressLine1: text('The address', 200).pipe(z.string().min(1, 'Enter the street address.')),
  addressLine2: text('The second address line', 200).default(''),
  postalCode: text('The postal code', 20).default(''),
  city: text('The city', 100).pipe(z.string().min(1, 'Enter the city.')),
  country: countryCode,
  /** An EU-style VAT number (country prefix and 2–13 letters or digits), optional. */
  vatId: z
    .string()
    .trim()
    .toUpperCase()
    .transform((v) => v.replace(/[\s.-]/g, ''))
    .pipe(z.string().regex(/^([A-Z]{2}[A-Z0-9]{2,13})?$/, 'A VAT number starts with its country code, like DE123456789.'))
    .default(''),
});
export type BillingInfo = z.infer<typeof billingInfo>;
export const billingInfoResult = z.object({ billingInfo: billingInfo.nullable() });

/** What a ledger row is for. */
export const ledgerKind = z.enum(['topup', 'plan', 'renewal', 'shop', 'refund', 'commission', 'adjustment']);
export type LedgerKind = z.infer<typeof ledgerKind>;

export const ledgerEntry = z.object({
  id: z.string(),
  /** Signed: credits are positive, debits negative. */
  amountCents: z.number().int(),
  kind: ledgerKind,
  description: z.string(),
  createdAt: z.string(),
  /** The balance right after this row. */
  balanceAfterCents: z.number().int(),
});
export type LedgerEntry = z.infer<typeof ledgerEntry>;

export const paymentStatus = z.enum(['pending', 'succeeded', 'declined', 'abandoned']);
export type PaymentStatus = z.infer<typeof paymentStatus>;
export const paymentView = z.object({
  paymentId: z.string(),
  provider: z.enum(['sandbox', 'stripe']),
  amountCents: z.number().int(),
  status: paymentStatus,
  /** Where the payer pays (the provider's checkout page); null once the payment ended. */
  checkoutUrl: z.string().nullable(),
  createdAt: z.string(),
});
export type PaymentView = z.infer<typeof paymentView>;

export const TRANSACTIONS_PAGE = 20;
export const transactionsQuery = z.object({ page: z.coerce.number().int().min(1).max(10_000).default(1) });
export const transactionsResult = z.object({
  balanceCents: z.number().int(),
  currency: z.literal(CURRENCY),
  entries: z.array(ledgerEntry),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  /** Top-ups started and not finished yet (the card page was left open, or the provider has not confirmed). */
  pending: z.array(paymentView),
});
export type TransactionsResult = z.infer<typeof transactionsResult>;

export const receiptResult = z.object({
  entry: ledgerEntry,
  /** `SP-` and the row's number: the same on every copy of the receipt. */
  receiptNumber: z.string(),
  /** The billing information as it was when the row was written (name, address, country, VAT number). */
  billedTo: z.array(z.string()),
  /** The provider's reference of a top-up (a Stripe Checkout session), null for other rows. */
  paymentReference: z.string().nullable(),
});
export type ReceiptResult = z.infer<typeof receiptResult>;

export const topupRequest = z.object({
  amountCents: cents('The amount')
    .min(TOPUP_MIN_CENTS, `A top-up is at least $${TOPUP_MIN_CENTS / 100}.`)
    .max(TOPUP_MAX_CENTS, `A top-up is at most $${TOPUP_MAX_CENTS / 100}.`),
  idempotencyKey,
});
export type TopupRequest = z.infer<typeof topupRequest>;

/** The embedded sandbox provider's checkout page: pay, decline (a refused card) or go back without paying. */
export const sandboxOutcome = z.enum(['pay', 'decline', 'abandon']);
export const sandboxCompleteRequest = z.object({ outcome: sandboxOutcome });
