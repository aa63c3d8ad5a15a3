import type { Transaction } from 'kysely';
import type { Database } from '../../../db/database.ts';
import { PaymentProviderError, ValidationError } from '../../../lib/errors.ts';
import { isEventStored, storeEventOnce } from '../payments.ledger.ts';
import type { ProviderDeps, WebhookReceiver } from '../provider-contract.ts';
import { cyclesOf, type FirstSale, type PayPalContext } from './paypal.context.ts';
import {
  PayPalApiError,
  type PayPalClient,
  type PayPalEvent,
  type PayPalSubscription,
  WEBHOOK_HEADERS,
  type WebhookSignature,
} from './paypal-client.ts';
import { createPayPalPaymentEvents } from './paypal-payment-events.ts';
import { createPayPalSubscriptionEvents } from './paypal-subscription-events.ts';

/** A delivery whose signature PayPal confirmed: its event, with the id and type every event has. */
async function verifiedEvent(
  client: PayPalClient,
  webhookId: string,
  rawBody: string,
  headers: Headers,
): Promise<PayPalEvent & { id: string; event_type: string }> {
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
  return { ...event, id, event_type: type };
}

/**
 * PayPal's webhook: verifies the event with PayPal, stores it once, then (in one transaction) applies it
 * to the order, the subscription row and the payments ledger: subscription events
 * (paypal-subscription-events.ts), one-off payments and refunds (paypal-payment-events.ts).
 * Subscriptions are fetched fresh from PayPal, so event order does not matter.
 */
export function createPayPalWebhook(
  client: PayPalClient,
  webhookId: string,
  ctx: PayPalContext,
  deps: ProviderDeps,
): WebhookReceiver {
  const subscriptionEvents = createPayPalSubscriptionEvents(ctx, deps);
  const paymentEvents = createPayPalPaymentEvents(ctx, deps);

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
    first: FirstSale,
    trx: Transaction<Database>,
  ): Promise<string[]> {
    const resource = event.resource ?? {};
    switch (event.event_type) {
      case 'BILLING.SUBSCRIPTION.ACTIVATED':
      case 'BILLING.SUBSCRIPTION.UPDATED':
      case 'BILLING.SUBSCRIPTION.RE-ACTIVATED':
        return sub?.status === 'ACTIVE' ? subscriptionEvents.active(sub, undefined, trx, first) : [];
      case 'PAYMENT.SALE.COMPLETED':
        return sub?.status === 'ACTIVE' && resource.id
          ? subscriptionEvents.active(sub, { id: resource.id, resource }, trx)
          : [];
      case 'BILLING.SUBSCRIPTION.CANCELLED':
      case 'BILLING.SUBSCRIPTION.SUSPENDED':
      case 'BILLING.SUBSCRIPTION.EXPIRED':
        if (sub) await subscriptionEvents.ended(sub, event.event_type, trx);
        return [];
      case 'BILLING.SUBSCRIPTION.PAYMENT.FAILED':
        if (sub) await subscriptionEvents.paymentFailed(sub, trx);
        return [];
      case 'PAYMENT.CAPTURE.COMPLETED':
        return paymentEvents.captureCompleted(resource, trx);
      case 'PAYMENT.CAPTURE.DENIED':
        await paymentEvents.captureDenied(resource, trx);
        return [];
      case 'PAYMENT.CAPTURE.REFUNDED':
        await paymentEvents.captureRefunded(resource, trx);
        return [];
      case 'PAYMENT.SALE.REFUNDED':
        await paymentEvents.saleRefunded(resource, trx);
        return [];
      default:
        return [];
    }
  }

  return {
    async receive(rawBody, headers) {
      const event = await verifiedEvent(client, webhookId, rawBody, headers);
      const { id, event_type: type } = event;
      if (await isEventStored(deps.db, 'paypal', id)) return { duplicate: true };

      const sub = await subscriptionOf(event);
      // An activation may complete the order: its first sale and fee, read outside the transaction.
      const first =
        sub?.status === 'ACTIVE' && type.startsWith('BILLING.SUBSCRIPTION.') && cyclesOf(sub) <= 1
          ? await ctx.firstSale(sub)
          : {};
      const result = await deps.db.transaction().execute(async (trx) => {
        const fresh = await storeEventOnce(trx, { provider: 'paypal', id, type, payload: event });
        if (!fresh) return { duplicate: true, replaced: [] as string[] };
        return { duplicate: false, replaced: await apply(event, sub, first, trx) };
      });
      if (result.replaced.length) await ctx.cancelQuietly(result.replaced, 'Replaced by a new Berth plan');
      return { duplicate: result.duplicate };
    },
  };
}
