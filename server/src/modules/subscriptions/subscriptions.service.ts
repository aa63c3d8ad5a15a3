import type { Transaction } from 'kysely';
import type { Database, Db, DbOrTx } from '../../db/database.ts';
import type { SubscriptionRow } from '../../db/tables/subscriptions.ts';
import { ConflictError, NotFoundError } from '../../lib/errors.ts';
import {
  type BillingCycle,
  DOWNGRADE_BLOCKED_MESSAGE,
  downgradeBlockReason,
  type PaidPlan,
  periodEnd,
} from './billing-rules.ts';
import {
  canCreateInstance,
  maxInstancesOf,
  PLANS,
  planLabel,
  type SubscriptionFacts,
  standingOf,
  trialEnd,
  yearlyPrice,
} from './plan-rules.ts';
import {
  decrementAddonInstances,
  findSubscription,
  findSubscriptionWithUsage,
  findUserIdByStripeCustomer,
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
interface InstanceSuspension {
  /** Sets `suspended` on all the user's instances and adds their jobs; answers how many changed. */
  setSuspended(userId: string, suspended: boolean, trx?: DbOrTx): Promise<number>;
}

export interface SubscriptionsDeps {
  db: Db;
  now: () => Date;
  /** How many instances a user has that count against the plan (the instances module provides it). */
  countInstances: (userId: string, trx?: DbOrTx) => Promise<number>;
  instances: InstanceSuspension;
  /** The billing settings users see (prices, currency, methods): the payments module provides them. */
  paymentSettings: () => Promise<PaymentSettings>;
}

export type BillingProvider = 'stripe' | 'paypal_business' | 'paypal_standard' | 'metamask' | 'manual';

/** A paid period starting or changing: from a provider's subscription, an approved payment, or an admin. */
export interface PlanActivation {
  plan: PaidPlan;
  billingCycle: BillingCycle;
  /** When the paid period ends; default one cycle from now. */
  periodEnd?: Date;
  provider: BillingProvider;
  providerSubscriptionId?: string | null;
  /** Additional instances on Starter; default: keep what the user has. */
  addonInstances?: number;
  cancelAtPeriodEnd?: boolean;
  /** Refuse Starter with more instances than it allows (admins' grants; a provider's word is final). */
  enforceInstanceLimit?: boolean;
}

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;

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

export const factsOf = (row: SubscriptionRow): SubscriptionFacts => ({
  plan: row.plan,
  status: row.status,
  trialEndsAt: row.trial_ends_at,
  currentPeriodEnd: row.current_period_end,
  addonInstances: row.addon_instances,
});

export function createSubscriptionsService({
  db,
  now,
  countInstances,
  instances,
  paymentSettings,
}: SubscriptionsDeps) {
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

  /**
   * Starts or changes a paid period at once: the plan is active until `periodEnd`, any trial is over,
   * and the user's suspended instances are resumed in the same transaction (the caller's, if given).
   */
  async function activatePlan(
    userId: string,
    a: PlanActivation,
    outer?: Transaction<Database>,
  ): Promise<void> {
    const run = async (trx: Transaction<Database>) => {
      const row = await lockSubscriptionForUpdate(trx, userId);
      if (!row) throw new NotFoundError('Subscription not found');
      const addons = a.plan === 'starter' ? (a.addonInstances ?? row.addon_instances) : row.addon_instances;
      if (a.enforceInstanceLimit) {
        const used = await countInstances(userId, trx);
        const blocked =
          downgradeBlockReason(row.plan, a.plan, used) ??
          (a.plan === 'starter' && used > PLANS.starter.maxInstances + addons
            ? DOWNGRADE_BLOCKED_MESSAGE
            : null);
        if (blocked) throw new ConflictError(blocked, { instancesUsed: used });
      }
      const at = now();
      await updateSubscription(trx, userId, {
        plan: a.plan,
        status: 'active',
        billing_cycle: a.billingCycle,
        current_period_end: a.periodEnd ?? periodEnd(at, a.billingCycle),
        cancel_at_period_end: a.cancelAtPeriodEnd ?? false,
        addon_instances: addons,
        provider: a.provider,
        provider_subscription_id: a.providerSubscriptionId ?? null,
        trial_ends_at: row.trial_ends_at && row.trial_ends_at > at ? at : row.trial_ends_at,
        period_ended_sent_at: null,
        updated_at: at,
      });
      await instances.setSuspended(userId, false, trx);
    };
    if (outer) await run(outer);
    else await db.transaction().execute(run);
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

    /**
     * Whether the user may use the public API now (Pro subscribers only): a running
     * Pro period. The trial, Starter and a lapsed Pro plan do not count.
     */
    async hasProAccess(userId: string): Promise<boolean> {
      const row = await findSubscription(db, userId);
      return row?.plan === 'pro' && standingOf(factsOf(row), now()) === 'active';
    },

    /** Locks every instance of the user out (a lapsed subscription); their data stays. */
    suspendInstancesOf: (userId: string, trx?: DbOrTx) => instances.setSuspended(userId, true, trx),

    /** Lets the user's instances in again (after a payment or an admin's grant). */
    resumeInstancesOf: (userId: string, trx?: DbOrTx) => instances.setSuspended(userId, false, trx),

    async status(userId: string): Promise<SubscriptionStatus> {
      const { currency, prices, methods } = await paymentSettings();
      return { subscription: await get(userId), currency, prices, methods };
    },

    activatePlan,

    /**
     * One more additional instance on the running plan (an add-on payment): plan, provider, period and
     * renewal stay as they are; `fallback` gives the cycle, provider and period end when no period runs.
     */
    async addAddonInstance(
      userId: string,
      fallback: { billingCycle: BillingCycle; provider: BillingProvider; periodEnd?: Date },
      trx: Transaction<Database>,
    ): Promise<void> {
      const row = await lockSubscriptionForUpdate(trx, userId);
      if (!row) throw new NotFoundError('Subscription not found');
      const at = now();
      const running = row.current_period_end !== null && row.current_period_end > at;
      await activatePlan(
        userId,
        {
          plan: row.plan === 'pro' ? 'pro' : 'starter',
          billingCycle: row.billing_cycle ?? fallback.billingCycle,
          periodEnd: running && row.current_period_end ? row.current_period_end : fallback.periodEnd,
          provider: row.provider ?? fallback.provider,
          providerSubscriptionId: row.provider_subscription_id,
          addonInstances: row.addon_instances + 1,
          cancelAtPeriodEnd: row.cancel_at_period_end,
        },
        trx,
      );
    },

    /**
     * Ends the paid period now (an admin's revocation, or the provider ended the subscription): the
     * user's instances are suspended; their data stays.
     */
    async endPlan(userId: string, outer?: Transaction<Database>): Promise<void> {
      const run = async (trx: Transaction<Database>) => {
        const row = await lockSubscriptionForUpdate(trx, userId);
        if (!row) throw new NotFoundError('Subscription not found');
        const at = now();
        await updateSubscription(trx, userId, {
          status: 'canceled',
          billing_cycle: null,
          current_period_end:
            row.current_period_end && row.current_period_end < at ? row.current_period_end : at,
          cancel_at_period_end: false,
          provider_subscription_id: null,
          trial_ends_at: row.trial_ends_at && row.trial_ends_at > at ? at : row.trial_ends_at,
          updated_at: at,
        });
        await instances.setSuspended(userId, true, trx);
      };
      if (outer) await run(outer);
      else await db.transaction().execute(run);
    },

    /** Marks (or unmarks) the current period as the last one: nothing renews it. */
    async setCancelAtPeriodEnd(userId: string, cancel: boolean, trx: DbOrTx = db): Promise<void> {
      await updateSubscription(trx, userId, { cancel_at_period_end: cancel, updated_at: now() });
    },

    /** Sets the number of additional instances (Starter). */
    async setAddonInstances(userId: string, count: number, trx: DbOrTx = db): Promise<void> {
      await updateSubscription(trx, userId, { addon_instances: count, updated_at: now() });
    },

    /** The raw row, for the payments module (provider ids, add-ons). */
    row: (userId: string, trx: DbOrTx = db) => findSubscription(trx, userId),

    /** Locks the row inside the caller's transaction (one payment decision at a time per user). */
    lockRow: (userId: string, trx: Transaction<Database>) => lockSubscriptionForUpdate(trx, userId),

    /** Remembers the user's Stripe customer. */
    async setStripeCustomer(userId: string, customerId: string, trx: DbOrTx = db): Promise<void> {
      await updateSubscription(trx, userId, { stripe_customer_id: customerId, updated_at: now() });
    },

    /** The user whose Stripe customer this is, if any. */
    userOfStripeCustomer: (customerId: string) => findUserIdByStripeCustomer(db, customerId),

    /** One add-on instance fewer (its PayPal subscription ended). */
    removeAddonInstance: (userId: string, trx: DbOrTx = db) => decrementAddonInstances(trx, userId, now()),

    /** How many instances count against the plan now. */
    countInstances: (userId: string, trx?: DbOrTx) => countInstances(userId, trx),
  };
}
