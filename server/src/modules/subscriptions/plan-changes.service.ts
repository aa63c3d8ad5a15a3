import type { Transaction } from 'kysely';
import type { Database, Db, DbOrTx } from '../../db/database.ts';
import { ConflictError, NotFoundError } from '../../lib/errors.ts';
import {
  type BillingCycle,
  DOWNGRADE_BLOCKED_MESSAGE,
  downgradeBlockReason,
  type PaidPlan,
  periodEnd,
} from './billing-rules.ts';
import { PLANS } from './plan-rules.ts';
import {
  decrementAddonInstances,
  lockSubscriptionForUpdate,
  updateSubscription,
} from './subscriptions.repository.ts';

/** What the instances module does for subscriptions: lock a user's instances out, or let them in. */
export interface InstanceSuspension {
  /** Sets `suspended` on all the user's instances and adds their jobs; answers how many changed. */
  setSuspended(userId: string, suspended: boolean, trx?: DbOrTx): Promise<number>;
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

interface PlanChangesDeps {
  db: Db;
  now: () => Date;
  countInstances: (userId: string, trx?: DbOrTx) => Promise<number>;
  instances: InstanceSuspension;
}

/**
 * Changes to the paid period, as payments and admins make them: a plan starts or changes (the user's
 * suspended instances resume in the same transaction), one more add-on instance or one fewer, the plan
 * ends (instances suspended, their data kept), renewal stops at the period's end.
 */
export function createPlanChanges({ db, now, countInstances, instances }: PlanChangesDeps) {
  /** Runs `change` in the caller's transaction, or in one of its own. */
  const inTransaction = async (
    outer: Transaction<Database> | undefined,
    change: (trx: Transaction<Database>) => Promise<void>,
  ) => {
    if (outer) await change(outer);
    else await db.transaction().execute(change);
  };

  /**
   * Starts or changes a paid period at once: the plan is active until `periodEnd`, any trial is over,
   * and the user's suspended instances are resumed in the same transaction (the caller's, if given).
   */
  async function activatePlan(
    userId: string,
    a: PlanActivation,
    outer?: Transaction<Database>,
  ): Promise<void> {
    await inTransaction(outer, async (trx) => {
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
    });
  }

  return {
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
      await inTransaction(outer, async (trx) => {
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
      });
    },

    /** Marks (or unmarks) the current period as the last one: nothing renews it. */
    async setCancelAtPeriodEnd(userId: string, cancel: boolean, trx: DbOrTx = db): Promise<void> {
      await updateSubscription(trx, userId, { cancel_at_period_end: cancel, updated_at: now() });
    },

    /** Sets the number of additional instances (Starter). */
    async setAddonInstances(userId: string, count: number, trx: DbOrTx = db): Promise<void> {
      await updateSubscription(trx, userId, { addon_instances: count, updated_at: now() });
    },

    /** One add-on instance fewer (its PayPal subscription ended). */
    removeAddonInstance: (userId: string, trx: DbOrTx = db) => decrementAddonInstances(trx, userId, now()),
  };
}
