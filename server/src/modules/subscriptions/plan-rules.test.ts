import { describe, expect, it } from 'vitest';
import {
  canCreateInstance,
  maxInstancesOf,
  planLabel,
  type SubscriptionFacts,
  standingOf,
  TRIAL_MINUTES,
  trialEnd,
  YEARLY_DISCOUNT,
  yearlyPrice,
} from './plan-rules.ts';

const now = new Date('2026-11-22T12:00:00Z');
const minutes = (n: number) => new Date(now.getTime() + n * 60_000);
const facts = (patch: Partial<SubscriptionFacts>): SubscriptionFacts => ({
  plan: 'free',
  status: 'trialing',
  trialEndsAt: null,
  currentPeriodEnd: null,
  addonInstances: 0,
  ...patch,
});

describe('plan rules', () => {
  it('gives a trial of 60 minutes', () => {
    expect(TRIAL_MINUTES).toBe(60);
    expect(trialEnd(now).getTime() - now.getTime()).toBe(60 * 60_000);
  });

  it.each([
    ['trial running', facts({ trialEndsAt: minutes(1) }), 'trial'],
    ['trial ended', facts({ trialEndsAt: minutes(-1) }), 'inactive'],
    ['trial ends exactly now', facts({ trialEndsAt: now }), 'inactive'],
    [
      'paid period running',
      facts({ plan: 'starter', status: 'active', currentPeriodEnd: minutes(60) }),
      'active',
    ],
    [
      'paid period over',
      facts({ plan: 'starter', status: 'active', currentPeriodEnd: minutes(-1) }),
      'inactive',
    ],
    ['paid, granted without end', facts({ plan: 'pro', status: 'active' }), 'active'],
    [
      'cancelled after trial',
      facts({ plan: 'pro', status: 'canceled', trialEndsAt: minutes(-5) }),
      'inactive',
    ],
    ['paid during trial', facts({ plan: 'pro', status: 'active', trialEndsAt: minutes(30) }), 'active'],
  ] as const)('standing when %s', (_case, sub, expected) => {
    expect(standingOf(sub, now)).toBe(expected);
  });

  it.each([
    ['trial', facts({}), 'trial', 1],
    ['starter', facts({ plan: 'starter', status: 'active' }), 'active', 1],
    ['starter with 2 add-ons', facts({ plan: 'starter', status: 'active', addonInstances: 2 }), 'active', 3],
    ['pro', facts({ plan: 'pro', status: 'active' }), 'active', -1],
    ['pro add-ons ignored', facts({ plan: 'pro', status: 'active', addonInstances: 4 }), 'active', -1],
  ] as const)('max instances for %s', (_case, sub, standing, expected) => {
    expect(maxInstancesOf(sub, standing)).toBe(expected);
  });

  it.each([
    ['pro', -1, 'Pro'],
    ['starter', 1, 'Starter'],
    ['starter', 2, 'Starter + Additional Instance'],
    ['free', 1, 'Free'],
  ] as const)('labels %s with max %i as %s', (plan, max, label) => {
    expect(planLabel(plan, max)).toBe(label);
  });

  it.each([
    ['trial', 1, 0, true],
    ['trial', 1, 1, false],
    ['active', -1, 500, true],
    ['active', 3, 2, true],
    ['inactive', -1, 0, false],
  ] as const)('can create when %s, max %i, used %i: %s', (standing, max, used, expected) => {
    expect(canCreateInstance(standing, max, used)).toBe(expected);
  });

  it('prices a year at 12 months less the discount: Starter 10 %, Pro 30 %', () => {
    expect(YEARLY_DISCOUNT).toEqual({ starter: 0.1, pro: 0.3 });
    expect(yearlyPrice(3.99, YEARLY_DISCOUNT.starter)).toBe(43.09);
    expect(yearlyPrice(19.99, YEARLY_DISCOUNT.pro)).toBe(167.92);
  });
});
