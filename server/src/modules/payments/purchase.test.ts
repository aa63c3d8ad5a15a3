import { describe, expect, it } from 'vitest';
import type { SubscriptionRow } from '../../db/tables/subscriptions.ts';
import { renewalConflict } from './purchase.ts';

const now = new Date('2026-11-22T12:00:00Z');
const later = new Date('2026-12-22T12:00:00Z');
const row = (over: Partial<SubscriptionRow>): SubscriptionRow => ({
  user_id: 'u',
  plan: 'starter',
  status: 'active',
  billing_cycle: 'monthly',
  trial_ends_at: null,
  current_period_end: later,
  cancel_at_period_end: false,
  addon_instances: 0,
  trial_warning_sent_at: null,
  trial_ended_sent_at: null,
  period_ended_sent_at: null,
  provider: 'stripe',
  provider_subscription_id: 'sub_1',
  stripe_customer_id: 'cus_1',
  created_at: now,
  updated_at: now,
  ...over,
});

describe('renewalConflict: no second provider charges a renewing plan', () => {
  it.each([
    ['Stripe renews, PayPal asked', row({}), 'paypal_business', /renews by card \(Stripe\)/],
    ['Stripe renews, MetaMask asked', row({}), 'metamask', /Pay with card \(Stripe\)/],
    ['PayPal renews, Stripe asked', row({ provider: 'paypal_business' }), 'stripe', /renews by PayPal/],
    ['same provider', row({}), 'stripe', null],
    ['renewal already cancelled', row({ cancel_at_period_end: true }), 'paypal_standard', null],
    ['period over', row({ current_period_end: new Date('2026-11-01T00:00:00Z') }), 'paypal_business', null],
    ['one-off PayPal does not renew', row({ provider: 'paypal_standard' }), 'stripe', null],
    [
      'admin grant does not renew',
      row({ provider: 'manual', provider_subscription_id: null }),
      'stripe',
      null,
    ],
    ['trial', row({ provider: null, status: 'trialing', provider_subscription_id: null }), 'stripe', null],
  ] as const)('%s', (_name, sub, provider, expected) => {
    const answer = renewalConflict(sub, provider, now);
    if (expected === null) expect(answer).toBeNull();
    else expect(answer).toMatch(expected);
  });
});
