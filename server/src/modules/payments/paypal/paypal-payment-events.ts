import type { Transaction } from 'kysely';
import type { Database } from '../../../db/database.ts';
import { recordRefund, updateOrder } from '../payments.ledger.ts';
import type { ProviderDeps } from '../provider-contract.ts';
import type { PayPalContext } from './paypal.context.ts';
import { captureFeeMinor, linkOf, type PayPalEventResource } from './paypal-client.ts';

/** A refund's amount in currency units: v2 `amount.value`, v1 `amount.total` (older events sign it). */
const refundAmount = (resource: PayPalEventResource) =>
  Math.abs(Number(resource.amount?.value ?? resource.amount?.total ?? Number.NaN));

/**
 * What PayPal's payment events do, inside the webhook's transaction: a one-off payment's capture
 * (PayPal standard) completes or fails its order, and a refund, of a capture or of a subscription's sale,
 * is recorded against the invoice it paid (the listener hears it: affiliate commissions).
 */
export function createPayPalPaymentEvents(ctx: PayPalContext, deps: Pick<ProviderDeps, 'now' | 'listener'>) {
  return {
    /** PAYMENT.CAPTURE.COMPLETED: completes the order (when the return never came); answers what it replaced. */
    async captureCompleted(resource: PayPalEventResource, trx: Transaction<Database>): Promise<string[]> {
      const order = await ctx.orderById(trx, resource.custom_id);
      if (order?.provider !== 'paypal_standard' || !resource.id || resource.status !== 'COMPLETED') return [];
      const done = await ctx.complete(trx, order.id, {
        invoiceRef: resource.id,
        amount: Number(resource.amount?.value ?? order.amount),
        currency: resource.amount?.currency_code ?? order.currency,
        feeMinor: captureFeeMinor(resource),
      });
      return done?.replaced ?? [];
    },

    /** PAYMENT.CAPTURE.DENIED: a pending order failed. */
    async captureDenied(resource: PayPalEventResource, trx: Transaction<Database>) {
      const order = await ctx.orderById(trx, resource.custom_id);
      if (order?.status === 'pending')
        await updateOrder(trx, order.id, { status: 'failed', updated_at: deps.now() });
    },

    /** PAYMENT.CAPTURE.REFUNDED: a v2 refund of a one-off payment; its `up` link names the capture (the invoice's id). */
    async captureRefunded(resource: PayPalEventResource, trx: Transaction<Database>) {
      const up = linkOf(resource.links, 'up');
      const captureId =
        resource.supplementary_data?.related_ids?.capture_id ?? up?.split('/').filter(Boolean).pop();
      const amount = refundAmount(resource);
      if (captureId && resource.id && Number.isFinite(amount))
        await recordRefund(
          trx,
          { provider: 'paypal_standard', paymentRef: captureId, refundRef: resource.id, amount },
          deps.listener,
        );
    },

    /**
     * PAYMENT.SALE.REFUNDED: a v1 refund of a subscription's sale (PayPal Business); `sale_id` names the
     * sale, and the first payment's invoice keeps it as payment_ref.
     */
    async saleRefunded(resource: PayPalEventResource, trx: Transaction<Database>) {
      const amount = refundAmount(resource);
      if (resource.sale_id && resource.id && Number.isFinite(amount))
        await recordRefund(
          trx,
          { provider: 'paypal_business', paymentRef: resource.sale_id, refundRef: resource.id, amount },
          deps.listener,
        );
    },
  };
}
