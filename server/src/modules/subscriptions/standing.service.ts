import type { Transaction } from 'kysely';
import type { Database, Db, DbOrTx } from '../../db/database.ts';
import type { SubscriptionRow } from '../../db/tables/subscriptions.ts';
import { NotFoundError } from '../../lib/errors.ts';
import {
  canCreateInstance,
  factsOf,
  maxInstancesOf,
  PLANS,
  planLabel,
  standingOf,
  yearlyPrice,
} from './plan-rules.ts';
import {
  findSubscription,
  findSubscriptionWithUsage,
  lockSubscriptionForUpdate,
} from './subscriptions.repository.ts';
import type {
  CanCreateInstance,
  PaymentSettings,
  Subscription,
  SubscriptionStatus,
} from './subscriptions.schemas.ts';

interface StandingDeps {
  db: Db;
  now: () => Date;
  countInstances: (userId: string, trx?: DbOrTx) => Promise<number>;
  paymentSettings: () => Promise<PaymentSettings>;
}

/** What one billing period of the plan costs (add-ons included); null without a paid plan and cycle. */
function periodTotal(row: SubscriptionRow, settings: PaymentSettings): number | null {
  if (row.plan === 'free' || row.billing_cycle === null) return null;
  const monthly =
    settings.prices[row.plan] +
    (row.plan === 'starter' ? row.addon_instances * settings.prices.addonInstance : 0);
  return row.billing_cycle === 'yearly'
    ? yearlyPrice(monthly, settings.yearlyDiscounts[row.plan])
    : Math.round(monthly * 100) / 100;
}

/**
 * What a user's subscription is and allows, read and never changed here: the API's subscription (plan,
 * standing, limits, what the next period costs), whether one more instance fits (also inside a deploy's
 * transaction, the row locked), and whether the public API is open to them (Pro).
 */
export function createStanding({ db, now, countInstances, paymentSettings }: StandingDeps) {
  /** Whether one more instance fits, and why not; `trx` counts inside the caller's transaction. */
  async function decide(row: SubscriptionRow, trx: DbOrTx): Promise<CanCreateInstance> {
    const facts = factsOf(row);
    const standing = standingOf(facts, now());
    const max = maxInstancesOf(facts, standing);
    const used = await countInstances(row.user_id, trx);
    if (canCreateInstance(standing, max, used)) return { canCreate: true };
    if (standing === 'inactive') {
      return {
        canCreate: false,
        reason: 'Your subscription is inactive. Choose a plan to deploy instances.',
      };
    }
    return {
      canCreate: false,
      reason: `Your plan allows ${max} instance${max === 1 ? '' : 's'} and you have ${used}. Delete one or upgrade to deploy another.`,
    };
  }

  async function get(userId: string): Promise<Subscription> {
    // Independent reads, at once.
    const [row, settings] = await Promise.all([findSubscriptionWithUsage(db, userId), paymentSettings()]);
    if (!row) throw new NotFoundError('Subscription not found');
    const used = row.used;
    const facts = factsOf(row);
    const standing = standingOf(facts, now());
    const maxInstances = maxInstancesOf(facts, standing);
    const plan = PLANS[row.plan];
    const price = row.plan === 'free' ? 0 : settings.prices[row.plan];
    const nextBilling = standing === 'active' ? (row.current_period_end?.toISOString() ?? null) : null;
    const amount = periodTotal(row, settings);
    return {
      plan: row.plan,
      planId: row.plan,
      planLabel: planLabel(row.plan, maxInstances),
      planDetails: { id: row.plan, name: plan.name, price },
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
      interval: row.billing_cycle,
      nextBillingDate: nextBilling,
      nextBilling,
      amount,
      priceTotal: amount,
      amountTotal: amount,
      total: amount,
      price: amount,
      currency: settings.currency,
      currencySymbol: settings.currencySymbol,
      provider: row.provider,
      addonInstances: row.addon_instances,
    };
  }

  return {
    get,

    async status(userId: string): Promise<SubscriptionStatus> {
      const { currency, prices, methods } = await paymentSettings();
      return { subscription: await get(userId), currency, prices, methods };
    },

    async canCreateInstance(userId: string): Promise<CanCreateInstance> {
      const row = await findSubscription(db, userId);
      if (!row) throw new NotFoundError('Subscription not found');
      return decide(row, db);
    },

    /**
     * The same decision inside a deploy's transaction, with the user's subscription row locked until it
     * ends: two deploys at once cannot both take the last free place.
     */
    async lockCanCreate(userId: string, trx: Transaction<Database>): Promise<CanCreateInstance> {
      const row = await lockSubscriptionForUpdate(trx, userId);
      if (!row) throw new NotFoundError('Subscription not found');
      return decide(row, trx);
    },

    /**
     * Whether the user may use the public API now (Pro subscribers only): a running
     * Pro period. The trial, Starter and a lapsed Pro plan do not count.
     */
    async hasProAccess(userId: string): Promise<boolean> {
      const row = await findSubscription(db, userId);
      return row?.plan === 'pro' && standingOf(factsOf(row), now()) === 'active';
    },
  };
}
