import { describe, expect, it } from 'vitest';
import { expiredSubscription, proSubscription, trialSubscription } from '../../../test/fixtures.ts';
import {
  currentPlanName,
  formatRemaining,
  INACTIVE_TEXT,
  instanceAllowance,
  instancesUsage,
  isTrialEndingSoon,
  planLabel,
  planName,
  type StandingFacts,
  standingOf,
  standingText,
  trialRemainingMs,
} from './standing.ts';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000).toISOString();

const facts = (overrides: Partial<StandingFacts>): StandingFacts => ({
  status: 'expired',
  isTrialActive: false,
  isSubscriptionActive: false,
  trialEndsAt: null,
  nextBillingDate: null,
  ...overrides,
});

describe('standingOf', () => {
  it.each([
    ['isTrialActive', facts({ isTrialActive: true }), 'trial'],
    ['trial end in the future', facts({ trialEndsAt: at(1) }), 'trial'],
    ['trial end in the past', facts({ trialEndsAt: at(-1) }), 'inactive'],
    ['trial end exactly now', facts({ trialEndsAt: at(0) }), 'inactive'],
    ['status active', facts({ status: 'active' }), 'active'],
    ['isSubscriptionActive', facts({ isSubscriptionActive: true }), 'active'],
    ['next billing in the future', facts({ status: 'canceled', nextBillingDate: at(60) }), 'active'],
    ['next billing in the past', facts({ status: 'past_due', nextBillingDate: at(-60) }), 'inactive'],
    ['paid during the trial', facts({ status: 'active', trialEndsAt: at(30) }), 'active'],
    ['nothing', facts({}), 'inactive'],
    ['canceled, no dates', facts({ status: 'canceled' }), 'inactive'],
  ] as const)('%s → %s', (_name, sub, expected) => {
    expect(standingOf(sub, NOW)).toBe(expected);
  });
});

describe('planLabel', () => {
  it.each([
    ['pro', -1, 'Pro'],
    ['pro', 5, 'Pro'],
    ['starter', 1, 'Starter'],
    ['starter', 2, 'Starter + Additional Instance'],
    ['starter', 3, 'Starter + Additional Instance'],
  ] as const)('%s with max %i → %s', (plan, maxInstances, expected) => {
    expect(planLabel({ plan, maxInstances })).toBe(expected);
  });
});

describe('plan names', () => {
  it("is the plan's name, 'Free' by default", () => {
    expect(planName(proSubscription())).toBe('Pro');
    expect(planName(null)).toBe('Free');
    expect(planName(trialSubscription(10, { planDetails: { id: 'free', name: '', price: 0 } }))).toBe('Free');
  });

  it('uses the plan label while a paid plan runs', () => {
    expect(currentPlanName(proSubscription({ plan: 'starter', maxInstances: 2 }), 'active')).toBe(
      'Starter + Additional Instance',
    );
    expect(currentPlanName(trialSubscription(), 'trial')).toBe('Free');
  });
});

describe('standingText', () => {
  const formatDate = (date: Date) => date.toISOString();

  it('shows the plan label when active', () => {
    expect(standingText(proSubscription(), 'active', formatDate)).toBe('Pro');
  });

  it('shows the trial end during the trial', () => {
    const sub = trialSubscription(10, { trialEndsAt: '2026-03-01T13:00:00.000Z' });
    expect(standingText(sub, 'trial', formatDate)).toBe('Trial active — ends 2026-03-01T13:00:00.000Z');
  });

  it('shows the inactive notice otherwise', () => {
    expect(standingText(expiredSubscription(), 'inactive', formatDate)).toBe(
      'Trial expired — no active subscription',
    );
    expect(INACTIVE_TEXT).toBe('Trial expired — no active subscription');
  });
});

describe('remaining trial time', () => {
  it.each([
    [60 * 60_000, '1h 0m'],
    [59 * 60_000 + 30_000, '1h 0m'],
    [59 * 60_000, '0h 59m'],
    [42 * 60_000 + 1, '0h 43m'],
    [5 * 60_000, '0h 5m'],
    [30_000, '0h 1m'],
    [0, '0h 0m'],
    [-5_000, '0h 0m'],
    [125 * 60_000, '2h 5m'],
  ])('%i ms → %s', (ms, expected) => {
    expect(formatRemaining(ms)).toBe(expected);
  });

  it('counts down from the trial end and never goes below zero', () => {
    expect(trialRemainingMs({ trialEndsAt: at(10) }, NOW)).toBe(10 * 60_000);
    expect(trialRemainingMs({ trialEndsAt: at(-10) }, NOW)).toBe(0);
    expect(trialRemainingMs({ trialEndsAt: null }, NOW)).toBeNull();
  });

  it.each([
    ['trial', 6 * 60_000, false],
    ['trial', 5 * 60_000 + 1, false],
    ['trial', 5 * 60_000, true],
    ['trial', 60_000, true],
    ['trial', 0, true],
    ['trial', null, false],
    ['active', 60_000, false],
    ['inactive', 0, false],
  ] as const)("'Trial ending soon!' for %s with %s ms left: %s", (standing, remaining, expected) => {
    expect(isTrialEndingSoon(standing, remaining)).toBe(expected);
  });
});

describe('instances', () => {
  it.each([
    [1, '1'],
    [3, '3'],
    [-1, 'Unlimited'],
  ])('allowance %i → %s', (max, expected) => {
    expect(instanceAllowance(max)).toBe(expected);
  });

  it.each([
    ['trial', 0, 1, '0 / 1'],
    ['active', 1, 2, '1 / 2'],
    ['active', 7, -1, '7 / Unlimited'],
    ['inactive', 3, 1, '0 / 0'],
    ['inactive', 3, -1, '0 / 0'],
  ] as const)('%s, %i used of %i → %s', (standing, used, max, expected) => {
    expect(instancesUsage(standing, used, max)).toBe(expected);
  });
});
