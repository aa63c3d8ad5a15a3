import type { SubscriptionRow } from '../../../db/tables/subscriptions.ts';
import type { RenewingProvider } from '../provider-contract.ts';
import type { StripeClient, StripeContext } from './stripe.context.ts';
import { priceFacts } from './stripe-client.ts';

/**
 * Stripe's renewal controls, as the payments service drives them: cancel (or keep) renewal at the
 * period's end, stop the subscription now (an admin's revocation), and drop the additional instances;
 * each change Stripe confirms is applied to our row at once.
 */
export function createStripeRenewal(stripe: StripeClient, ctx: StripeContext): RenewingProvider {
  return {
    async setCancelAtPeriodEnd(sub: SubscriptionRow, cancel: boolean) {
      if (!sub.provider_subscription_id) return;
      const updated = await stripe.subscriptions.update(sub.provider_subscription_id, {
        cancel_at_period_end: cancel,
      });
      await ctx.applyNow(updated);
    },
    async stopRenewal(sub: SubscriptionRow) {
      if (!sub.provider_subscription_id) return;
      // Its customer.subscription.deleted event then finds the plan already ended: nothing changes.
      await stripe.subscriptions.cancel(
        sub.provider_subscription_id,
        {},
        { idempotencyKey: `revoke:${sub.provider_subscription_id}` },
      );
    },
    async removeAddons(sub: SubscriptionRow) {
      if (!sub.provider_subscription_id) return;
      const current = await ctx.retrieve(sub.provider_subscription_id);
      const addon = current.items.data.find((i) => priceFacts(i.price)?.kind === 'addon_instance');
      if (!addon) return;
      const updated = await stripe.subscriptions.update(current.id, {
        items: [{ id: addon.id, deleted: true }],
        proration_behavior: 'create_prorations',
      });
      await ctx.applyNow(updated);
    },
  };
}
