/**
 * Showing prices. No zod in this module: the static public pages' script (apps/web/app/site) formats prices
 * with it, and a schema defined next to it would pull the whole schema library into those pages.
 */

/** Amounts are integer minor units; shown divided by 100 in the user's currency, en-US format. */
export function formatPrice(cents: number, currency = 'USD'): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(cents / 100);
}
