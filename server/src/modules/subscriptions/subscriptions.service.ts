import type { Transaction } from 'kysely';
import type { Database, Db, DbOrTx } from '../../db/database.ts';
import { createPlanChanges, type InstanceSuspension } from './plan-changes.service.ts';
import { trialEnd } from './plan-rules.ts';
import { createStanding } from './standing.service.ts';
import {
  findSubscription,
  findUserIdByStripeCustomer,
  insertTrialSubscription,
  lockSubscriptionForUpdate,
  updateSubscription,
} from './subscriptions.repository.ts';
import type { PaymentSettings } from './subscriptions.schemas.ts';

export interface SubscriptionsDeps {
  db: Db;
  now: () => Date;
  /** How many instances a user has that count against the plan (the instances module provides it). */
  countInstances: (userId: string, trx?: DbOrTx) => Promise<number>;
  instances: InstanceSuspension;
  /** The billing settings users see (prices, currency, methods): the payments module provides them. */
  paymentSettings: () => Promise<PaymentSettings>;
}

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;

/**
 * Users' subscriptions: what a subscription is and allows (standing.service.ts), changes to the paid
 * period (plan-changes.service.ts), and here the trial's start, the suspension of a user's instances,
 * and the row as the payments module keeps it (provider ids, the Stripe customer).
 */
export function createSubscriptionsService(deps: SubscriptionsDeps) {
  const { db, now, countInstances, instances } = deps;
  return {
    ...createStanding(deps),
    ...createPlanChanges(deps),

    /** Opens the 60-minute free trial of a new account (inside the registration transaction). */
    startTrial: (trx: DbOrTx, userId: string) => insertTrialSubscription(trx, userId, trialEnd(now())),

    /** Locks every instance of the user out (a lapsed subscription); their data stays. */
    suspendInstancesOf: (userId: string, trx?: DbOrTx) => instances.setSuspended(userId, true, trx),

    /** Lets the user's instances in again (after a payment or an admin's grant). */
    resumeInstancesOf: (userId: string, trx?: DbOrTx) => instances.setSuspended(userId, false, trx),

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

    /** How many instances count against the plan now. */
    countInstances: (userId: string, trx?: DbOrTx) => countInstances(userId, trx),
  };
}
