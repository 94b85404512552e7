import { describe, expect, it } from 'vitest';
import { plans, plansResult } from './plans.ts';
import { formatPrice } from './prices.ts';

describe('price formatting', () => {
  it('divides minor units by 100 in en-US format, USD by default', () => {
    expect(formatPrice(499)).toBe('$4.99');
    expect(formatPrice(0)).toBe('$0.00');
    expect(formatPrice(123456)).toBe('$1,234.56');
    expect(formatPrice(5)).toBe('$0.05');
  });

  it('shows other currencies with their symbol', () => {
    expect(formatPrice(1299, 'EUR')).toBe('€12.99');
    expect(formatPrice(1299, 'GBP')).toBe('£12.99');
  });
});

describe('plan catalogue', () => {
  it('is valid, ordered by price, with the free plan first', () => {
    expect(plansResult.parse(plans)).toHaveLength(plans.length);
    expect(plans[0].monthlyPriceCents).toBe(0);
    const prices = plans.map((p) => p.monthlyPriceCents);
    expect([...prices].sort((a, b) => a - b)).toEqual(prices);
    for (const plan of plans) expect(Number.isInteger(plan.monthlyPriceCents)).toBe(true);
  });
});
