import type { Db, DbOrTx } from '../../db/database.ts';
import { NotFoundError } from '../../lib/errors.ts';
import {
  ADDON_INSTANCE_MONTHLY_PRICE,
  CURRENCY,
  CURRENCY_SYMBOL,
  maxInstancesOf,
  PLANS,
  planLabel,
  type SubscriptionFacts,
  standingOf,
  trialEnd,
} from './plan-rules.ts';
import { findSubscription, insertTrialSubscription } from './subscriptions.repository.ts';
import type { Subscription, SubscriptionStatus } from './subscriptions.schemas.ts';

export interface SubscriptionsDeps {
  db: Db;
  now: () => Date;
  /** How many instances a user has (the instances module provides it). */
  countInstances: (userId: string) => Promise<number>;
}

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;

export function createSubscriptionsService({ db, now, countInstances }: SubscriptionsDeps) {
  async function get(userId: string): Promise<Subscription> {
    const row = await findSubscription(db, userId);
    if (!row) throw new NotFoundError('Subscription not found');
    const facts: SubscriptionFacts = {
      plan: row.plan,
      status: row.status,
      trialEndsAt: row.trial_ends_at,
      currentPeriodEnd: row.current_period_end,
      addonInstances: row.addon_instances,
    };
    const standing = standingOf(facts, now());
    const maxInstances = maxInstancesOf(facts, standing);
    const used = await countInstances(userId);
    const plan = PLANS[row.plan];
    return {
      plan: row.plan,
      planId: row.plan,
      planLabel: planLabel(row.plan, maxInstances),
      planDetails: { id: row.plan, name: plan.name, price: plan.monthlyPrice },
      status: row.status,
      standing,
      isTrialActive: standing === 'trial',
      isSubscriptionActive: standing === 'active',
      isInactive: standing === 'inactive',
      trialEndsAt: row.trial_ends_at?.toISOString() ?? null,
      cancelAtPeriodEnd: row.cancel_at_period_end,
      maxInstances,
      usedInstances: used,
      instancesUsed: used,
      billingCycle: row.billing_cycle,
      nextBillingDate: standing === 'active' ? (row.current_period_end?.toISOString() ?? null) : null,
      currency: CURRENCY,
      currencySymbol: CURRENCY_SYMBOL,
    };
  }

  return {
    /** Opens the 60-minute free trial of a new account (inside the registration transaction). */
    startTrial: (trx: DbOrTx, userId: string) => insertTrialSubscription(trx, userId, trialEnd(now())),

    get,

    async status(userId: string): Promise<SubscriptionStatus> {
      return {
        subscription: await get(userId),
        currency: CURRENCY,
        prices: {
          starter: PLANS.starter.monthlyPrice,
          pro: PLANS.pro.monthlyPrice,
          addonInstance: ADDON_INSTANCE_MONTHLY_PRICE,
        },
        // Payment providers arrive with billing; until one is configured every method is off.
        methods: {
          stripe: { enabled: false },
          paypalBusiness: { enabled: false },
          paypalStandard: { enabled: false },
          metamask: { enabled: false, receiverAddress: null, chainId: null },
        },
      };
    },
  };
}
