import type { Transaction } from 'kysely';
import type { Database } from '../../../db/database.ts';
import { PaymentProviderError, ValidationError } from '../../../lib/errors.ts';
import {
  PAYMENT_FAILED,
  paymentReceived,
  purchaseDescription,
  SUBSCRIPTION_CANCELED,
} from '../billing-notices.ts';
import {
  isEventStored,
  recordInvoice,
  recordRefund,
  storeEventOnce,
  updateOrder,
} from '../payments.ledger.ts';
import type { ProviderDeps, WebhookReceiver } from '../provider-contract.ts';
import { isSubscriptionInvoiceRecorded } from './paypal.repository.ts';
import {
  type Completion,
  cyclesOf,
  nextBilling,
  type PayPalClient,
  type PayPalService,
  subscriptionInvoiceRef,
} from './paypal.service.ts';
import {
  captureFeeMinor,
  linkOf,
  PayPalApiError,
  type PayPalCapture,
  type PayPalSubscription,
  WEBHOOK_HEADERS,
  type WebhookSignature,
} from './paypal-client.ts';

/** The part of a PayPal webhook event Berth reads. */
interface PayPalEvent {
  id?: string;
  event_type?: string;
  resource?: {
    id?: string;
    custom_id?: string;
    billing_agreement_id?: string;
    status?: string;
    amount?: { value?: string; currency_code?: string; total?: string; currency?: string };
    supplementary_data?: { related_ids?: { capture_id?: string } };
    links?: { href: string; rel: string }[];
    /** A capture: PayPal's fee in what the merchant receives. */
    seller_receivable_breakdown?: PayPalCapture['seller_receivable_breakdown'];
    /** A sale (v1, subscriptions): PayPal's fee. */
    transaction_fee?: { value?: string; currency?: string };
    /** A sale's refund (v1): the refunded sale. */
    sale_id?: string;
  };
}

/** PayPal's fee on a sale (PAYMENT.SALE.COMPLETED) in minor units, when it is in the sale's currency. */
function saleFeeMinor(resource: NonNullable<PayPalEvent['resource']>): number {
  const fee = resource.transaction_fee;
  if (!fee?.value || (fee.currency && resource.amount?.currency && fee.currency !== resource.amount.currency))
    return 0;
  return Math.round(Number(fee.value) * 100) || 0;
}

/** A refund's amount in currency units: v2 `amount.value`, v1 `amount.total` (older events sign it). */
const refundAmount = (resource: NonNullable<PayPalEvent['resource']>) =>
  Math.abs(Number(resource.amount?.value ?? resource.amount?.total ?? Number.NaN));

/**
 * PayPal's webhook: verifies the event with PayPal, stores it once, then (in one transaction) applies it
 * to the order, the subscription row and the payments ledger. Subscriptions are fetched fresh from
 * PayPal, so event order does not matter.
 */
export function createPayPalWebhook(
  client: PayPalClient,
  webhookId: string,
  service: PayPalService,
  deps: ProviderDeps,
): WebhookReceiver {
  const { db, now, subscriptions, notifications } = deps;
  const { orderById, complete } = service;

  /** The order a PayPal subscription was created for, if it is current on the user's row. */
  async function subscriptionState(sub: PayPalSubscription, trx: Transaction<Database>) {
    const order = await orderById(trx, sub.custom_id, true);
    if (order?.provider !== 'paypal_business' || order.provider_ref !== sub.id) return undefined;
    const row = await subscriptions.lockRow(order.user_id, trx);
    if (!row) return undefined;
    const current = row.provider === 'paypal_business' && row.provider_subscription_id === sub.id;
    return { order, row, current };
  }

  /** An ACTIVE subscription: completes its order once; later, extends the period it pays for. */
  async function applyActive(
    sub: PayPalSubscription,
    saleId: string | undefined,
    event: PayPalEvent,
    trx: Transaction<Database>,
    first: Pick<Completion, 'saleId' | 'feeMinor'> = {},
  ): Promise<string[]> {
    const state = await subscriptionState(sub, trx);
    if (!state) return [];
    const { order, row, current } = state;
    if (order.status !== 'completed') {
      // Completed by its first sale (its fee is in the event) or by ACTIVATED (the fee and the sale
      // come from the subscription's transactions, read before the transaction).
      const completion = service.subscriptionCompletion(order, sub);
      const sale = saleId && event.resource ? { saleId, feeMinor: saleFeeMinor(event.resource) } : first;
      const done = await complete(trx, order.id, { ...completion, ...sale });
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
    if (saleId) {
      // A renewal (or the first payment, under the id the return gave it).
      const ref = subscriptionInvoiceRef(sub, saleId);
      const known = await isSubscriptionInvoiceRecorded(trx, ref);
      const description = purchaseDescription(order.kind, order.plan, order.billing_cycle);
      const amount = event.resource?.amount;
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
        paymentRef: ref !== saleId ? saleId : null,
      });
      if (!known) await notifications.notify(order.user_id, paymentReceived(description), trx);
    }
    return [];
  }

  async function applyEnded(sub: PayPalSubscription, type: string, trx: Transaction<Database>) {
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
  }

  /** The subscription an event is about, fetched fresh from PayPal (event order does not matter). */
  async function subscriptionOf(event: PayPalEvent): Promise<PayPalSubscription | undefined> {
    const type = event.event_type ?? '';
    const id = type.startsWith('BILLING.SUBSCRIPTION.')
      ? event.resource?.id
      : type.startsWith('PAYMENT.SALE.')
        ? event.resource?.billing_agreement_id
        : undefined;
    if (!id) return undefined;
    try {
      return await client.getSubscription(id);
    } catch (err) {
      // Not a subscription of this account (nothing to apply); other failures make PayPal retry.
      if (err instanceof PayPalApiError && err.status === 404) return undefined;
      throw err;
    }
  }

  /** Applies one event; answers PayPal subscriptions it replaced (cancelled after commit). */
  async function apply(
    event: PayPalEvent,
    sub: PayPalSubscription | undefined,
    first: Pick<Completion, 'saleId' | 'feeMinor'>,
    trx: Transaction<Database>,
  ) {
    const resource = event.resource ?? {};
    switch (event.event_type) {
      case 'BILLING.SUBSCRIPTION.ACTIVATED':
      case 'BILLING.SUBSCRIPTION.UPDATED':
      case 'BILLING.SUBSCRIPTION.RE-ACTIVATED':
        return sub?.status === 'ACTIVE' ? applyActive(sub, undefined, event, trx, first) : [];
      case 'PAYMENT.SALE.COMPLETED':
        return sub?.status === 'ACTIVE' && resource.id ? applyActive(sub, resource.id, event, trx) : [];
      case 'BILLING.SUBSCRIPTION.CANCELLED':
      case 'BILLING.SUBSCRIPTION.SUSPENDED':
      case 'BILLING.SUBSCRIPTION.EXPIRED':
        if (sub) await applyEnded(sub, event.event_type, trx);
        return [];
      case 'BILLING.SUBSCRIPTION.PAYMENT.FAILED': {
        const state = sub ? await subscriptionState(sub, trx) : undefined;
        if (state?.current) await notifications.notify(state.order.user_id, PAYMENT_FAILED, trx);
        return [];
      }
      case 'PAYMENT.CAPTURE.COMPLETED': {
        const order = await orderById(trx, resource.custom_id);
        if (order?.provider !== 'paypal_standard' || !resource.id || resource.status !== 'COMPLETED')
          return [];
        const done = await complete(trx, order.id, {
          invoiceRef: resource.id,
          amount: Number(resource.amount?.value ?? order.amount),
          currency: resource.amount?.currency_code ?? order.currency,
          feeMinor: captureFeeMinor(resource),
        });
        return done?.replaced ?? [];
      }
      case 'PAYMENT.CAPTURE.DENIED': {
        const order = await orderById(trx, resource.custom_id);
        if (order?.status === 'pending')
          await updateOrder(trx, order.id, { status: 'failed', updated_at: now() });
        return [];
      }
      case 'PAYMENT.CAPTURE.REFUNDED': {
        // A v2 refund of a one-off payment: its `up` link names the capture (the invoice's id).
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
        return [];
      }
      case 'PAYMENT.SALE.REFUNDED': {
        // A v1 refund of a subscription's sale (PayPal Business): `sale_id` names the sale; the first
        // payment's invoice keeps it as payment_ref.
        const amount = refundAmount(resource);
        if (resource.sale_id && resource.id && Number.isFinite(amount))
          await recordRefund(
            trx,
            { provider: 'paypal_business', paymentRef: resource.sale_id, refundRef: resource.id, amount },
            deps.listener,
          );
        return [];
      }
      default:
        return [];
    }
  }

  return {
    async receive(rawBody, headers) {
      const signature = {} as WebhookSignature;
      for (const [field, header] of Object.entries(WEBHOOK_HEADERS) as [keyof WebhookSignature, string][]) {
        const value = headers.get(header);
        if (!value) throw new ValidationError('Invalid webhook signature');
        signature[field] = value;
      }
      let event: PayPalEvent;
      try {
        event = JSON.parse(rawBody) as PayPalEvent;
      } catch {
        throw new ValidationError('Invalid webhook signature');
      }
      const { id, event_type: type } = event;
      if (!id || !type) throw new ValidationError('Invalid webhook signature');
      let verified: boolean;
      try {
        verified = await client.verifyWebhookSignature(signature, webhookId, rawBody);
      } catch (err) {
        throw new PaymentProviderError('PayPal could not verify the webhook', { cause: err });
      }
      if (!verified) throw new ValidationError('Invalid webhook signature');

      if (await isEventStored(db, 'paypal', id)) return { duplicate: true };

      const sub = await subscriptionOf(event);
      // An activation may complete the order: its first sale and fee, read outside the transaction.
      const first =
        sub?.status === 'ACTIVE' && type.startsWith('BILLING.SUBSCRIPTION.') && cyclesOf(sub) <= 1
          ? await service.firstSale(sub)
          : {};
      const result = await db.transaction().execute(async (trx) => {
        const fresh = await storeEventOnce(trx, { provider: 'paypal', id, type, payload: event });
        if (!fresh) return { duplicate: true, replaced: [] as string[] };
        return { duplicate: false, replaced: await apply(event, sub, first, trx) };
      });
      if (result.replaced.length)
        await service.cancelQuietly(result.replaced, 'Replaced by a new Berth plan');
      return { duplicate: result.duplicate };
    },
  };
}
