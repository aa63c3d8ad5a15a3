import { describeError } from '../../../lib/error-reference.ts';
import { updateOrder } from '../payments.ledger.ts';
import type { ProviderDeps, ReturnUrls } from '../provider-contract.ts';
import type { PayPalContext } from './paypal.context.ts';
import { findInvoiceRefOfOrder, type PayPalOrderRow } from './paypal.repository.ts';
import { captureFeeMinor, PayPalApiError, type PayPalClient } from './paypal-client.ts';

/**
 * The browser back from PayPal (GET /api/payments/paypal/return and /cancel): a one-off payment is
 * captured and its order completed, an active subscription completes its order, and either way the
 * answer is the result page to redirect to. A webhook may have completed the order first: then the
 * success page shows, with the payment's id.
 */
export function createPayPalReturn(
  client: PayPalClient,
  urls: ReturnUrls,
  ctx: PayPalContext,
  { db, now }: Pick<ProviderDeps, 'db' | 'now'>,
) {
  const { orderById, completeNow } = ctx;

  /** The transaction id a completed order shows on the success page. */
  async function txOf(order: PayPalOrderRow): Promise<string> {
    const ref =
      order.provider === 'paypal_standard' ? await findInvoiceRefOfOrder(db, order.id) : order.provider_ref;
    return ref ?? order.id;
  }

  async function captureReturn(order: PayPalOrderRow, paypalOrderId: string): Promise<string> {
    let captured: Awaited<ReturnType<typeof client.captureOrder>>;
    try {
      captured = await client.captureOrder(paypalOrderId, `capture-${order.id}`);
    } catch (err) {
      if (!(err instanceof PayPalApiError && err.status === 422)) throw err;
      // Not approved, declined, or captured meanwhile (the webhook may have completed the order).
      const again = await orderById(db, order.id);
      return again?.status === 'completed' ? urls.success(await txOf(again)) : urls.failed('incomplete');
    }
    const capture = captured.purchase_units
      ?.flatMap((u) => u.payments?.captures ?? [])
      .find((c) => c.status === 'COMPLETED');
    if (!capture) return urls.failed('incomplete');
    await completeNow(order.id, {
      invoiceRef: capture.id,
      amount: Number(capture.amount?.value ?? order.amount),
      currency: capture.amount?.currency_code ?? order.currency,
      feeMinor: captureFeeMinor(capture),
    });
    return urls.success(capture.id);
  }

  async function subscriptionReturn(order: PayPalOrderRow, subscriptionId: string): Promise<string> {
    const sub = await client.getSubscription(subscriptionId);
    if (sub.custom_id !== undefined && sub.custom_id !== order.id) return urls.failed('other');
    if (sub.status === 'ACTIVE') {
      await completeNow(order.id, {
        ...ctx.subscriptionCompletion(order, sub),
        ...(await ctx.firstSale(sub)),
      });
      return urls.success(sub.id);
    }
    if (sub.status === 'APPROVED') {
      // Approved, not yet charged: BILLING.SUBSCRIPTION.ACTIVATED completes the order.
      await updateOrder(db, order.id, { status: 'pending', updated_at: now() });
      return urls.success(sub.id);
    }
    return urls.failed('incomplete');
  }

  return {
    /** GET /api/payments/paypal/return: answers the result page to redirect to. */
    async handleReturn(q: { order?: string; token?: string; subscription_id?: string }, requestId: string) {
      const order = await orderById(db, q.order);
      if (!order?.provider_ref) return urls.failed('other');
      const ref = order.provider === 'paypal_standard' ? q.token : q.subscription_id;
      if (ref !== undefined && ref !== order.provider_ref) return urls.failed('other');
      if (order.status === 'completed') return urls.success(await txOf(order));
      if (order.status !== 'pending') return urls.failed('incomplete');
      try {
        return order.provider === 'paypal_standard'
          ? await captureReturn(order, order.provider_ref)
          : await subscriptionReturn(order, order.provider_ref);
      } catch (err) {
        ctx.errorLog(`[${requestId}] PayPal return of order ${order.id} failed: ${describeError(err)}`);
        return urls.failed('server_error');
      }
    },

    /** GET /api/payments/paypal/cancel: the pending order is cancelled. */
    async handleCancel(q: { order?: string }) {
      const order = await orderById(db, q.order);
      if (!order) return urls.failed('other');
      if (order.status === 'pending')
        await updateOrder(db, order.id, { status: 'cancelled', updated_at: now() });
      return urls.cancelled;
    },
  };
}
