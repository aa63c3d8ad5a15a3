import { describe, expect, it } from 'vitest';
import { bestYearlyDiscount, formatMoney, shownPrice } from './pricing.ts';

const STARTER = { monthly: 3.99, yearlyDiscount: 0.1, yearly: 43.09 };
const PRO = { monthly: 19.99, yearlyDiscount: 0.3, yearly: 167.92 };

describe('shown prices', () => {
  it('shows the monthly price as it is', () => {
    expect(shownPrice(STARTER, 'monthly')).toEqual({
      perMonth: 3.99,
      billedYearly: null,
      discountPercent: null,
    });
  });

  it('shows a yearly price as its monthly equivalent, with the discount', () => {
    expect(shownPrice(STARTER, 'yearly')).toEqual({
      perMonth: 3.59,
      billedYearly: 43.09,
      discountPercent: 10,
    });
    expect(shownPrice(PRO, 'yearly')).toEqual({ perMonth: 13.99, billedYearly: 167.92, discountPercent: 30 });
    expect(bestYearlyDiscount([STARTER, PRO])).toBe(30);
  });

  it('formats money with the currency symbol', () => {
    expect(formatMoney(3.5, '€')).toBe('€3.50');
  });
});
