import type { Transaction } from 'kysely';
import type Stripe from 'stripe';
import type { Database } from '../../../db/database.ts';
import { SUBSCRIPTION_CANCELED } from '../billing-notices.ts';
import type { ProviderDeps } from '../provider-contract.ts';
import type { createStripeClient } from './stripe-client.ts';
import { factsOf, type SubscriptionFacts } from './stripe-facts.ts';

export type StripeClient = ReturnType<typeof createStripeClient>;

/**
 * What the Stripe services share (stripe.service.ts, stripe-renewal.service.ts, stripe.webhooks.ts):
 * `apply`, which makes our subscription row say what Stripe's subscription says (Stripe is the source of
 * truth), and reading a subscription fresh from Stripe.
 */
export function stripeContext(stripe: StripeClient, deps: ProviderDeps) {
  const { db, subscriptions, notifications } = deps;

  /** Whose subscription this is: its metadata, else the user whose customer it bills. */
  async function userOf(facts: SubscriptionFacts): Promise<string | undefined> {
    if (facts.userId) return facts.userId;
    return subscriptions.userOfStripeCustomer(facts.customerId);
  }

  /**
   * Makes our subscription row say what Stripe's subscription says (the object was fetched just now, so
   * event order does not matter). Answers whose subscription it is.
   */
  async function apply(sub: Stripe.Subscription, trx: Transaction<Database>): Promise<string | undefined> {
    const facts = factsOf(sub);
    const userId = await userOf(facts);
    if (!userId) return undefined;
    const row = await subscriptions.lockRow(userId, trx);
    if (!row) return undefined;
    if (row.stripe_customer_id === null) {
      await subscriptions.setStripeCustomer(userId, facts.customerId, trx);
    }
    const ours = row.provider === 'stripe' && row.provider_subscription_id === sub.id;
    switch (sub.status) {
      case 'active':
      case 'trialing':
        if (!facts.plan) return userId;
        await subscriptions.activatePlan(
          userId,
          {
            plan: facts.plan.plan,
            billingCycle: facts.plan.cycle,
            periodEnd: facts.periodEnd,
            provider: 'stripe',
            providerSubscriptionId: sub.id,
            addonInstances: facts.plan.plan === 'starter' ? facts.addons : 0,
            cancelAtPeriodEnd: sub.cancel_at_period_end,
          },
          trx,
        );
        return userId;
      case 'canceled':
      case 'unpaid':
      case 'incomplete_expired':
        // Only the subscription that bills the user's plan can end it (not an older, replaced one).
        if (ours) {
          await subscriptions.endPlan(userId, trx);
          await notifications.notify(userId, SUBSCRIPTION_CANCELED, trx);
        }
        return userId;
      default:
        // past_due: Stripe retries; the paid period runs out on its own if no payment comes.
        // incomplete / paused: nothing is paid.
        return userId;
    }
  }

  return {
    apply,

    /** A subscription as Stripe has it now. */
    retrieve: (id: string) => stripe.subscriptions.retrieve(id),

    /** `apply` in a transaction of its own (after a change Berth made itself). */
    async applyNow(sub: Stripe.Subscription): Promise<void> {
      await db.transaction().execute((trx) => apply(sub, trx).then(() => undefined));
    },
  };
}

export type StripeContext = ReturnType<typeof stripeContext>;
