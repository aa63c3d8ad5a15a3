import type { Transaction } from 'kysely';
import type { Database } from '../../../db/database.ts';
import {
  PAYMENT_FAILED,
  paymentReceived,
  purchaseDescription,
  SUBSCRIPTION_CANCELED,
} from '../billing-notices.ts';
import { recordInvoice, updateOrder } from '../payments.ledger.ts';
import type { ProviderDeps } from '../provider-contract.ts';
import { type FirstSale, nextBilling, type PayPalContext, subscriptionInvoiceRef } from './paypal.context.ts';
import { isSubscriptionInvoiceRecorded } from './paypal.repository.ts';
import type { PayPalEventResource, PayPalSubscription } from './paypal-client.ts';

/** PayPal's fee on a sale (PAYMENT.SALE.COMPLETED) in minor units, when it is in the sale's currency. */
function saleFeeMinor(resource: PayPalEventResource): number {
  const fee = resource.transaction_fee;
  if (!fee?.value || (fee.currency && resource.amount?.currency && fee.currency !== resource.amount.currency))
    return 0;
  return Math.round(Number(fee.value) * 100) || 0;
}

/**
 * What PayPal Business subscriptions' webhook events do, inside the webhook's transaction: an active
 * subscription completes its order once and then extends the plan's period and records each renewal's
 * invoice; an ended one removes its add-on instance, stops renewal (cancelled) or ends the plan
 * (suspended, expired); a failed payment is told to the user. Only the subscription that bills the
 * user's plan now changes it. Subscriptions are fetched fresh from PayPal, so event order does not matter.
 */
export function createPayPalSubscriptionEvents(ctx: PayPalContext, deps: ProviderDeps) {
  const { now, subscriptions, notifications } = deps;

  /** The order a PayPal subscription was created for, if it is current on the user's row. */
  async function subscriptionState(sub: PayPalSubscription, trx: Transaction<Database>) {
    const order = await ctx.orderById(trx, sub.custom_id, true);
    if (order?.provider !== 'paypal_business' || order.provider_ref !== sub.id) return undefined;
    const row = await subscriptions.lockRow(order.user_id, trx);
    if (!row) return undefined;
    const current = row.provider === 'paypal_business' && row.provider_subscription_id === sub.id;
    return { order, row, current };
  }

  return {
    /**
     * An ACTIVE subscription: completes its order once; later, extends the period it pays for. `sale`:
     * the PAYMENT.SALE.COMPLETED event's sale, whose fee is in the event; without it, the order is
     * completed by ACTIVATED with `first` (read from the subscription's transactions before the
     * transaction). Answers the PayPal subscriptions a completed order replaced.
     */
    async active(
      sub: PayPalSubscription,
      sale: { id: string; resource: PayPalEventResource } | undefined,
      trx: Transaction<Database>,
      first: FirstSale = {},
    ): Promise<string[]> {
      const state = await subscriptionState(sub, trx);
      if (!state) return [];
      const { order, row, current } = state;
      if (order.status !== 'completed') {
        const completion = ctx.subscriptionCompletion(order, sub);
        const paid = sale ? { saleId: sale.id, feeMinor: saleFeeMinor(sale.resource) } : first;
        const done = await ctx.complete(trx, order.id, { ...completion, ...paid });
        return done?.replaced ?? [];
      }
      if (order.kind === 'plan' && current && nextBilling(sub)) {
        await subscriptions.activatePlan(
          order.user_id,
          {
            plan: order.plan,
            billingCycle: order.billing_cycle,
            periodEnd: nextBilling(sub),
            provider: 'paypal_business',
            providerSubscriptionId: sub.id,
            cancelAtPeriodEnd: row.cancel_at_period_end,
          },
          trx,
        );
      }
      if (sale) {
        // A renewal (or the first payment, under the id the return gave it).
        const ref = subscriptionInvoiceRef(sub, sale.id);
        const known = await isSubscriptionInvoiceRecorded(trx, ref);
        const description = purchaseDescription(order.kind, order.plan, order.billing_cycle);
        const amount = sale.resource.amount;
        await recordInvoice(trx, {
          userId: order.user_id,
          provider: 'paypal_business',
          providerRef: ref,
          amount: Number(amount?.total ?? amount?.value ?? order.amount),
          currency: amount?.currency ?? amount?.currency_code ?? order.currency,
          description,
          status: 'paid',
          date: now(),
          downloadUrl: null,
          orderId: order.id,
          // The first payment's invoice is `<subscription>:1`: its sale id lets a refund of it find it.
          paymentRef: ref !== sale.id ? sale.id : null,
        });
        if (!known) await notifications.notify(order.user_id, paymentReceived(description), trx);
      }
      return [];
    },

    /** A CANCELLED, SUSPENDED or EXPIRED subscription (`type` is the event's). */
    async ended(sub: PayPalSubscription, type: string, trx: Transaction<Database>) {
      const state = await subscriptionState(sub, trx);
      if (!state) return;
      const { order, row, current } = state;
      if (order.kind === 'addon_instance') {
        // The add-on's own subscription ended: one additional instance less (once). Cancelled with the
        // whole plan (cancel at period end), it stays until the plan's paid period ends.
        if (order.status !== 'completed') return;
        if (type === 'BILLING.SUBSCRIPTION.CANCELLED' && row.cancel_at_period_end) return;
        await updateOrder(trx, order.id, { status: 'cancelled', updated_at: now() });
        await subscriptions.removeAddonInstance(order.user_id, trx);
        return;
      }
      if (!current) return;
      if (type === 'BILLING.SUBSCRIPTION.CANCELLED') {
        // Nothing renews; the period already paid stays.
        await subscriptions.setCancelAtPeriodEnd(order.user_id, true, trx);
        return;
      }
      await subscriptions.endPlan(order.user_id, trx);
      await notifications.notify(order.user_id, SUBSCRIPTION_CANCELED, trx);
    },

    /** BILLING.SUBSCRIPTION.PAYMENT.FAILED: the user is told when it bills their plan. */
    async paymentFailed(sub: PayPalSubscription, trx: Transaction<Database>) {
      const state = await subscriptionState(sub, trx);
      if (state?.current) await notifications.notify(state.order.user_id, PAYMENT_FAILED, trx);
    },
  };
}
