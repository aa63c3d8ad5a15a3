import type { Transaction } from 'kysely';
import type { Database, Db, DbOrTx } from '../../db/database.ts';
import type { SubscriptionRow } from '../../db/tables/subscriptions.ts';
import { ConflictError, NotFoundError } from '../../lib/errors.ts';
import {
  type BillingCycle,
  currencySymbol,
  DOWNGRADE_BLOCKED_MESSAGE,
  downgradeBlockReason,
  NO_PAYMENT_METHODS_MESSAGE,
  type PaidPlan,
  periodEnd,
} from './billing-rules.ts';
import {
  ADDON_INSTANCE_MONTHLY_PRICE,
  CURRENCY,
  canCreateInstance,
  maxInstancesOf,
  PLANS,
  planLabel,
  type SubscriptionFacts,
  standingOf,
  trialEnd,
  YEARLY_DISCOUNT,
} from './plan-rules.ts';
import {
  findSubscription,
  insertTrialSubscription,
  lockSubscriptionForUpdate,
  updateSubscription,
} from './subscriptions.repository.ts';
import type {
  CanCreateInstance,
  PaymentSettings,
  Subscription,
  SubscriptionStatus,
} from './subscriptions.schemas.ts';

/** What the instances module does for subscriptions: lock a user's instances out, or let them in. */
export interface InstanceSuspension {
  /** Sets `suspended` on all the user's instances and adds their jobs; answers how many changed. */
  setSuspended(userId: string, suspended: boolean, trx?: DbOrTx): Promise<number>;
}

export interface SubscriptionsDeps {
  db: Db;
  now: () => Date;
  /** How many instances a user has that count against the plan (the instances module provides it). */
  countInstances: (userId: string, trx?: DbOrTx) => Promise<number>;
  instances: InstanceSuspension;
}

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;

/**
 * The billing settings every signed-in user sees (prices, discounts, methods). Payment providers arrive
 * later: until one is configured every method is off and `emptyMessage` carries the spec's text.
 */
export function paymentSettings(): PaymentSettings {
  const methods = {
    stripe: { enabled: false },
    paypalBusiness: { enabled: false },
    paypalStandard: { enabled: false },
    metamask: { enabled: false, receiverAddress: null, chainId: null },
  };
  const anyEnabled = Object.values(methods).some((m) => m.enabled);
  return {
    currency: CURRENCY,
    currencySymbol: currencySymbol(CURRENCY),
    prices: {
      starter: PLANS.starter.monthlyPrice,
      pro: PLANS.pro.monthlyPrice,
      addonInstance: ADDON_INSTANCE_MONTHLY_PRICE,
    },
    yearlyDiscounts: { ...YEARLY_DISCOUNT },
    methods,
    emptyMessage: anyEnabled ? null : NO_PAYMENT_METHODS_MESSAGE,
  };
}

export const factsOf = (row: SubscriptionRow): SubscriptionFacts => ({
  plan: row.plan,
  status: row.status,
  trialEndsAt: row.trial_ends_at,
  currentPeriodEnd: row.current_period_end,
  addonInstances: row.addon_instances,
});

export function createSubscriptionsService({ db, now, countInstances, instances }: SubscriptionsDeps) {
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
    const row = await findSubscription(db, userId);
    if (!row) throw new NotFoundError('Subscription not found');
    const facts = factsOf(row);
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
      currencySymbol: currencySymbol(CURRENCY),
    };
  }

  return {
    /** Opens the 60-minute free trial of a new account (inside the registration transaction). */
    startTrial: (trx: DbOrTx, userId: string) => insertTrialSubscription(trx, userId, trialEnd(now())),

    get,

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

    /** Locks every instance of the user out (a lapsed subscription); their data stays. */
    suspendInstancesOf: (userId: string, trx?: DbOrTx) => instances.setSuspended(userId, true, trx),

    /** Lets the user's instances in again (after a payment or an admin's grant). */
    resumeInstancesOf: (userId: string, trx?: DbOrTx) => instances.setSuspended(userId, false, trx),

    async status(userId: string): Promise<SubscriptionStatus> {
      const { currency, prices, methods } = paymentSettings();
      return { subscription: await get(userId), currency, prices, methods };
    },

    /**
     * An admin's manual grant (no payment, no invoice): the plan is active at once for one month or one
     * year, any trial is over, and the user's suspended instances are resumed in the same transaction.
     * Pro → Starter (or any Starter grant) with more instances than Starter allows is refused (409).
     */
    async grantPlan(userId: string, plan: PaidPlan, billingCycle: BillingCycle): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const row = await lockSubscriptionForUpdate(trx, userId);
        if (!row) throw new NotFoundError('Subscription not found');
        const used = await countInstances(userId, trx);
        const starterMax = PLANS.starter.maxInstances + row.addon_instances;
        const blocked =
          downgradeBlockReason(row.plan, plan, used) ??
          (plan === 'starter' && used > starterMax ? DOWNGRADE_BLOCKED_MESSAGE : null);
        if (blocked) throw new ConflictError(blocked, { instancesUsed: used });
        const at = now();
        await updateSubscription(trx, userId, {
          plan,
          status: 'active',
          billing_cycle: billingCycle,
          current_period_end: periodEnd(at, billingCycle),
          cancel_at_period_end: false,
          trial_ends_at: row.trial_ends_at && row.trial_ends_at > at ? at : row.trial_ends_at,
          period_ended_sent_at: null,
          updated_at: at,
        });
        await instances.setSuspended(userId, false, trx);
      });
    },

    /** An admin's revocation: no paid period any more (canceled) and the user's instances are suspended. */
    async revokePlan(userId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const row = await lockSubscriptionForUpdate(trx, userId);
        if (!row) throw new NotFoundError('Subscription not found');
        const at = now();
        await updateSubscription(trx, userId, {
          status: 'canceled',
          billing_cycle: null,
          current_period_end: null,
          cancel_at_period_end: false,
          trial_ends_at: row.trial_ends_at && row.trial_ends_at > at ? at : row.trial_ends_at,
          updated_at: at,
        });
        await instances.setSuspended(userId, true, trx);
      });
    },
  };
}
