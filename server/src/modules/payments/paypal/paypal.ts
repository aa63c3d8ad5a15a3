import type { Transaction } from 'kysely';
import type { Database, DbOrTx } from '../../../db/database.ts';
import type { PaymentOrderRow } from '../../../db/tables/payments.ts';
import type { SubscriptionRow } from '../../../db/tables/subscriptions.ts';
import type { createRouter } from '../../../lib/create-router.ts';
import { describeError } from '../../../lib/error-reference.ts';
import { ConflictError, PaymentProviderError, ValidationError } from '../../../lib/errors.ts';
import { isUuid } from '../../../lib/ids.ts';
import { periodEnd } from '../../subscriptions/billing-rules.ts';
import {
  PAYMENT_FAILED,
  paymentReceived,
  purchaseDescription,
  SUBSCRIPTION_CANCELED,
} from '../billing-notices.ts';
import type { PaymentsConfig } from '../payments.config.ts';
import {
  completeOrder,
  findAddonSubscriptionRefs,
  findInvoiceRefOfOrder,
  findOrder,
  isEventStored,
  isInvoiceRecorded,
  lockOrder,
  recordInvoice,
  setInvoiceStatus,
  storeEventOnce,
  updateOrder,
} from '../payments.ledger.ts';
import {
  type CheckoutInput,
  type CheckoutProvider,
  type ProviderDeps,
  type RenewingProvider,
  returnUrls,
} from '../provider-contract.ts';
import type { WebhookReceiver } from '../webhook-receiver.ts';
import { createPayPalRouter } from './paypal.routes.ts';
import {
  createPayPalCatalog,
  createPayPalClient,
  linkOf,
  PayPalApiError,
  type PayPalSubscription,
  WEBHOOK_HEADERS,
  type WebhookSignature,
} from './paypal-client.ts';

export interface PayPalModule {
  /** PayPal Business: a PayPal subscription (recurring) per plan purchase. */
  business: CheckoutProvider & RenewingProvider;
  /** PayPal (standard): a one-off Orders v2 payment for one period. */
  standard: CheckoutProvider;
  webhook: WebhookReceiver;
  /** GET /api/payments/paypal/return and /api/payments/paypal/cancel (where PayPal sends the browser back). */
  router: ReturnType<typeof createRouter>;
}

export const PAYPAL_CANNOT_RESUME =
  'A cancelled PayPal subscription cannot be resumed. When the paid period ends, choose a plan again on the Billing page.';

type PayPalOrderRow = PaymentOrderRow & { provider: 'paypal_standard' | 'paypal_business' };

/** What a confirmed payment completes an order with. */
interface Completion {
  /** The invoice's provider id: the capture id, or the subscription id and its billing cycle. */
  invoiceRef: string;
  amount: number;
  currency: string;
  /** PayPal Business plan purchases: the subscription that renews the plan. */
  providerSubscriptionId?: string;
  periodEnd?: Date;
}

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
  };
}

const isPayPal = (o: PaymentOrderRow | undefined): o is PayPalOrderRow =>
  o?.provider === 'paypal_standard' || o?.provider === 'paypal_business';

/** The billing cycles PayPal has charged on a subscription (1 for the first payment). */
const cyclesOf = (sub: PayPalSubscription) =>
  Math.max(1, ...(sub.billing_info?.cycle_executions ?? []).map((c) => c.cycles_completed));

/**
 * The invoice id of a subscription payment: the first one is `<subscription>:1` whichever of the return,
 * the ACTIVATED event or the first PAYMENT.SALE.COMPLETED records it; later ones are their sale ids.
 */
const subscriptionInvoiceRef = (sub: PayPalSubscription, saleId?: string) =>
  cyclesOf(sub) <= 1 || !saleId ? `${sub.id}:${cyclesOf(sub)}` : saleId;

const nextBilling = (sub: PayPalSubscription) =>
  sub.billing_info?.next_billing_time ? new Date(sub.billing_info.next_billing_time) : undefined;

export function createPayPal(
  config: NonNullable<PaymentsConfig['paypal']>,
  deps: ProviderDeps,
): PayPalModule {
  const { db, now, subscriptions, notifications } = deps;
  const client = createPayPalClient(config);
  const catalog = createPayPalCatalog(client);
  const urls = returnUrls(deps.publicUrl);

  const backUrls = (orderId: string) => ({
    return_url: `${urls.publicUrl}/api/payments/paypal/return?order=${orderId}`,
    cancel_url: `${urls.publicUrl}/api/payments/paypal/cancel?order=${orderId}`,
  });

  async function orderById(trx: DbOrTx, id: string | undefined, lock = false) {
    if (!isUuid(id)) return undefined;
    const order = await (lock ? lockOrder(trx, id) : findOrder(trx, id));
    return isPayPal(order) ? order : undefined;
  }

  /** Cancels superseded PayPal subscriptions (after the transaction that replaced them); best effort. */
  async function cancelQuietly(ids: string[], reason: string) {
    for (const id of ids) await client.cancelSubscription(id, reason).catch(() => undefined);
  }

  /**
   * Completes a pending order once (locked): the plan (or the add-on) is activated, the invoice recorded
   * and the user told. Answers the PayPal subscription it replaced, if any, for the caller to cancel
   * after commit; undefined when there was nothing to do (completed before, or unknown).
   */
  async function complete(trx: Transaction<Database>, orderId: string, c: Completion) {
    const order = await orderById(trx, orderId, true);
    if (!order || order.status === 'completed') return undefined;
    const row = await subscriptions.lockRow(order.user_id, trx);
    if (!row) return undefined;
    const at = now();
    const replaced: string[] = [];
    if (order.kind === 'addon_instance') {
      await subscriptions.addAddonInstance(
        order.user_id,
        {
          billingCycle: order.billing_cycle,
          provider: order.provider,
          periodEnd: c.periodEnd ?? periodEnd(at, order.billing_cycle),
        },
        trx,
      );
    } else {
      await subscriptions.activatePlan(
        order.user_id,
        {
          plan: order.plan,
          billingCycle: order.billing_cycle,
          periodEnd: c.periodEnd ?? periodEnd(at, order.billing_cycle),
          provider: order.provider,
          providerSubscriptionId: c.providerSubscriptionId ?? null,
        },
        trx,
      );
      // A new plan replaces the PayPal subscription that billed the old one.
      if (
        row.provider === 'paypal_business' &&
        row.provider_subscription_id &&
        row.provider_subscription_id !== c.providerSubscriptionId
      )
        replaced.push(row.provider_subscription_id);
    }
    const description = await completeOrder(
      trx,
      order,
      { providerRef: c.invoiceRef, amount: c.amount, currency: c.currency, at },
      deps.listener,
    );
    await notifications.notify(order.user_id, paymentReceived(description), trx);
    return { replaced };
  }

  const subscriptionCompletion = (order: PaymentOrderRow, sub: PayPalSubscription): Completion => ({
    invoiceRef: subscriptionInvoiceRef(sub),
    amount: Number(sub.billing_info?.last_payment?.amount?.value ?? order.amount),
    currency: sub.billing_info?.last_payment?.amount?.currency_code ?? order.currency,
    providerSubscriptionId: order.kind === 'plan' ? sub.id : undefined,
    periodEnd: nextBilling(sub),
  });

  async function completeNow(orderId: string, c: Completion) {
    const done = await db.transaction().execute((trx) => complete(trx, orderId, c));
    if (done?.replaced.length) await cancelQuietly(done.replaced, 'Replaced by a new Berth plan');
  }

  // --- Checkout ------------------------------------------------------------------------------------

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

  /** Stops the user's PayPal add-on subscriptions (they renew apart from the plan's). */
  async function addonSubscriptionsOf(userId: string): Promise<string[]> {
    return findAddonSubscriptionRefs(db, userId, 'paypal_business');
  }

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
      await cancelQuietly(await addonSubscriptionsOf(sub.user_id), 'Plan cancelled in Berth');
    },

    // PayPal cancels at once (no more charges); that is all an admin's revocation needs.
    stopRenewal: (sub: SubscriptionRow) => business.setCancelAtPeriodEnd(sub, true),
  };

  // --- Return and cancel (the browser back from PayPal) ------------------------------------------------

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
    });
    return urls.success(capture.id);
  }

  async function subscriptionReturn(order: PayPalOrderRow, subscriptionId: string): Promise<string> {
    const sub = await client.getSubscription(subscriptionId);
    if (sub.custom_id !== undefined && sub.custom_id !== order.id) return urls.failed('other');
    if (sub.status === 'ACTIVE') {
      await completeNow(order.id, subscriptionCompletion(order, sub));
      return urls.success(sub.id);
    }
    if (sub.status === 'APPROVED') {
      // Approved, not yet charged: BILLING.SUBSCRIPTION.ACTIVATED completes the order.
      await updateOrder(db, order.id, { status: 'pending', updated_at: now() });
      return urls.success(sub.id);
    }
    return urls.failed('incomplete');
  }

  const errorLog = deps.errorLog ?? ((line: string) => console.error(`[berth] ${line}`));

  async function handleReturn(
    q: { order?: string; token?: string; subscription_id?: string },
    requestId: string,
  ) {
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
      errorLog(`[${requestId}] PayPal return of order ${order.id} failed: ${describeError(err)}`);
      return urls.failed('server_error');
    }
  }

  async function handleCancel(q: { order?: string }) {
    const order = await orderById(db, q.order);
    if (!order) return urls.failed('other');
    if (order.status === 'pending')
      await updateOrder(db, order.id, { status: 'cancelled', updated_at: now() });
    return urls.cancelled;
  }

  // --- Webhooks --------------------------------------------------------------------------------------

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
  ): Promise<string[]> {
    const state = await subscriptionState(sub, trx);
    if (!state) return [];
    const { order, row, current } = state;
    if (order.status !== 'completed') {
      const done = await complete(trx, order.id, subscriptionCompletion(order, sub));
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
      const known = await isInvoiceRecorded(trx, 'paypal_business', ref);
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

  async function apply(event: PayPalEvent, sub: PayPalSubscription | undefined, trx: Transaction<Database>) {
    const resource = event.resource ?? {};
    switch (event.event_type) {
      case 'BILLING.SUBSCRIPTION.ACTIVATED':
      case 'BILLING.SUBSCRIPTION.UPDATED':
      case 'BILLING.SUBSCRIPTION.RE-ACTIVATED':
        return sub?.status === 'ACTIVE' ? applyActive(sub, undefined, event, trx) : [];
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
        const up = linkOf(resource.links, 'up');
        const captureId =
          resource.supplementary_data?.related_ids?.capture_id ?? up?.split('/').filter(Boolean).pop();
        if (captureId) {
          await setInvoiceStatus(trx, 'paypal_standard', captureId, 'refunded');
          // Listener (affiliate commissions): the payment is refunded.
          await deps.listener?.refunded(trx, { provider: 'paypal_standard', providerRef: captureId });
        }
        return [];
      }
      default:
        return [];
    }
  }

  const webhook: WebhookReceiver = {
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
        verified = await client.verifyWebhookSignature(signature, config.webhookId, rawBody);
      } catch (err) {
        throw new PaymentProviderError('PayPal could not verify the webhook', { cause: err });
      }
      if (!verified) throw new ValidationError('Invalid webhook signature');

      if (await isEventStored(db, 'paypal', id)) return { duplicate: true };

      const sub = await subscriptionOf(event);
      const result = await db.transaction().execute(async (trx) => {
        const fresh = await storeEventOnce(trx, { provider: 'paypal', id, type, payload: event });
        if (!fresh) return { duplicate: true, replaced: [] as string[] };
        return { duplicate: false, replaced: await apply(event, sub, trx) };
      });
      if (result.replaced.length) await cancelQuietly(result.replaced, 'Replaced by a new Berth plan');
      return { duplicate: result.duplicate };
    },
  };

  const router = createPayPalRouter({ handleReturn, handleCancel });
  return { business, standard, webhook, router };
}
