import type { Db } from '../../../db/database.ts';
import type { SubscriptionRow } from '../../../db/tables/subscriptions.ts';
import { ConflictError } from '../../../lib/errors.ts';
import { purchaseDescription } from '../billing-notices.ts';
import type { CheckoutInput, CheckoutProvider, RenewingProvider, ReturnUrls } from '../provider-contract.ts';
import type { PayPalContext } from './paypal.context.ts';
import { findAddonSubscriptionRefs } from './paypal.repository.ts';
import { createPayPalCatalog } from './paypal-catalog.ts';
import { linkOf, PayPalApiError, type PayPalClient } from './paypal-client.ts';

export const PAYPAL_CANNOT_RESUME =
  'A cancelled PayPal subscription cannot be resumed. When the paid period ends, choose a plan again on the Billing page.';

/**
 * PayPal's checkout and renewal controls, as the payments service drives them: PayPal standard is a
 * one-off Orders v2 payment, PayPal Business a PayPal subscription (its plan from the catalog) that an
 * admin's revocation or the customer's cancellation stops. Orders are completed later, by the browser's
 * return (paypal-return.ts) or the webhook (paypal.webhooks.ts).
 */
export function createPayPalService(client: PayPalClient, urls: ReturnUrls, db: Db, ctx: PayPalContext) {
  const catalog = createPayPalCatalog(client);

  const backUrls = (orderId: string) => ({
    return_url: `${urls.publicUrl}/api/payments/paypal/return?order=${orderId}`,
    cancel_url: `${urls.publicUrl}/api/payments/paypal/cancel?order=${orderId}`,
  });

  const standard: CheckoutProvider = {
    async checkout({ order }: CheckoutInput) {
      const created = await client.createOrder(
        {
          intent: 'CAPTURE',
          purchase_units: [
            {
              reference_id: order.id,
              custom_id: order.id,
              description: `Berth ${purchaseDescription(order.kind, order.plan, order.billing_cycle)}`,
              amount: { currency_code: order.currency, value: Number(order.amount).toFixed(2) },
            },
          ],
          payment_source: {
            paypal: {
              experience_context: {
                brand_name: 'Berth',
                user_action: 'PAY_NOW',
                shipping_preference: 'NO_SHIPPING',
                ...backUrls(order.id),
              },
            },
          },
        },
        `order-${order.id}`,
      );
      const href = linkOf(created.links, 'payer-action', 'approve');
      if (!href) throw new Error('PayPal answered an order without an approval link');
      return { redirectUrl: href, providerRef: created.id };
    },
  };

  const business: CheckoutProvider & RenewingProvider = {
    async checkout({ order, user, subscription }: CheckoutInput) {
      const addons = order.kind === 'plan' && order.plan === 'starter' ? subscription.addon_instances : 0;
      const base = purchaseDescription(order.kind, order.plan, order.billing_cycle);
      const planId = await catalog.planId({
        description: addons > 0 ? `${base} + ${addons} additional instance${addons > 1 ? 's' : ''}` : base,
        cycle: order.billing_cycle,
        amount: Number(order.amount),
        currency: order.currency,
      });
      const created = await client.createSubscription(
        {
          plan_id: planId,
          custom_id: order.id,
          subscriber: { email_address: user.email },
          application_context: {
            brand_name: 'Berth',
            user_action: 'SUBSCRIBE_NOW',
            shipping_preference: 'NO_SHIPPING',
            ...backUrls(order.id),
          },
        },
        `subscription-${order.id}`,
      );
      const href = linkOf(created.links, 'approve');
      if (!href) throw new Error('PayPal answered a subscription without an approval link');
      return { redirectUrl: href, providerRef: created.id };
    },

    async setCancelAtPeriodEnd(sub: SubscriptionRow, cancel: boolean) {
      if (!cancel) throw new ConflictError(PAYPAL_CANNOT_RESUME);
      if (!sub.provider_subscription_id) return;
      try {
        await client.cancelSubscription(sub.provider_subscription_id, 'Cancelled by the customer in Berth');
      } catch (err) {
        // Already cancelled at PayPal: what was asked for.
        if (!(err instanceof PayPalApiError && err.issue === 'SUBSCRIPTION_STATUS_INVALID')) throw err;
      }
      // The user's PayPal add-on subscriptions renew apart from the plan's: they stop too.
      await ctx.cancelQuietly(await findAddonSubscriptionRefs(db, sub.user_id), 'Plan cancelled in Berth');
    },

    // PayPal cancels at once (no more charges); that is all an admin's revocation needs.
    stopRenewal: (sub: SubscriptionRow) => business.setCancelAtPeriodEnd(sub, true),
  };

  return { standard, business };
}
