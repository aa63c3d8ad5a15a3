import { describe, expect, it } from 'vitest';
import {
  addonDowngradeNeedsConfirmation,
  canBuyAddonInstance,
  currencySymbol,
  DOWNGRADE_BLOCKED_MESSAGE,
  detectBillingCycle,
  downgradeBlockReason,
  periodEnd,
  yearlyPricing,
} from './billing-rules.ts';

const now = new Date('2026-01-01T00:00:00Z');
const inDays = (d: number) => new Date(now.getTime() + d * 86_400_000);

describe('yearly pricing', () => {
  it.each([
    ['starter', 43.09, 3.59],
    ['pro', 167.92, 13.99],
  ] as const)('%s: %s a year, %s a month', (plan, yearly, monthlyEquivalent) => {
    expect(yearlyPricing(plan)).toEqual({ yearly, monthlyEquivalent });
  });
});

describe('currency symbols', () => {
  it.each([
    ['USD', '$'],
    ['EUR', '€'],
    ['GBP', '£'],
    ['gbp', '£'],
    ['JPY', '$'],
  ])('%s → %s', (currency, symbol) => expect(currencySymbol(currency)).toBe(symbol));
});

describe('billing-cycle detection', () => {
  it.each([
    [{ word: 'yearly' }, 'yearly'],
    [{ word: 'Annual' }, 'yearly'],
    [{ word: 'month', total: 100 }, 'monthly'],
    [{ word: 'monthly', nextBillingDate: inDays(365) }, 'monthly'],
    [{ total: 39.9 }, 'yearly'],
    [{ total: 39.89 }, null],
    [{ total: 3.99 }, null],
    [{ nextBillingDate: inDays(300) }, 'yearly'],
    [{ nextBillingDate: inDays(299) }, null],
    [{ nextBillingDate: inDays(20) }, 'monthly'],
    [{ nextBillingDate: inDays(45) }, 'monthly'],
    [{ nextBillingDate: inDays(46) }, null],
    [{ nextBillingDate: inDays(19) }, null],
    [{}, null],
  ] as const)('%o → %s', (hints, cycle) => {
    expect(detectBillingCycle({ monthlyPrice: 3.99, now, ...hints })).toBe(cycle);
  });
});

describe('add-on instance', () => {
  it.each([
    ['starter', 'active', true],
    ['starter', 'trial', false],
    ['starter', 'inactive', false],
    ['pro', 'active', false],
    ['free', 'trial', false],
  ] as const)('%s / %s → %s', (plan, standing, allowed) => {
    expect(canBuyAddonInstance(plan, standing)).toBe(allowed);
  });

  it.each([
    [1, false],
    [2, true],
    [-1, false],
  ])('confirmation to drop the add-on with maxInstances %i: %s', (max, needed) => {
    expect(addonDowngradeNeedsConfirmation(max)).toBe(needed);
  });
});

describe('downgrade', () => {
  it.each([
    ['pro', 'starter', 2, DOWNGRADE_BLOCKED_MESSAGE],
    ['pro', 'starter', 1, null],
    ['pro', 'starter', 0, null],
    ['pro', 'pro', 5, null],
    ['starter', 'pro', 3, null],
  ] as const)('%s → %s with %i instances', (from, to, used, reason) => {
    expect(downgradeBlockReason(from, to, used)).toBe(reason);
  });
});

describe('period end', () => {
  it.each([
    ['2026-01-31T10:00:00Z', 'monthly', '2026-03-03T10:00:00.000Z'],
    ['2026-01-15T10:00:00Z', 'monthly', '2026-02-15T10:00:00.000Z'],
    ['2026-01-15T10:00:00Z', 'yearly', '2027-01-15T10:00:00.000Z'],
  ] as const)('%s + %s → %s', (from, cycle, end) => {
    expect(periodEnd(new Date(from), cycle).toISOString()).toBe(end);
  });
});
