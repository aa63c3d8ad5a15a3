import type { Transaction } from 'kysely';
import type { Database, DbOrTx } from '../../../db/database.ts';
import type { PaymentOrderRow } from '../../../db/tables/payments.ts';
import type { SubscriptionRow } from '../../../db/tables/subscriptions.ts';
import { describeError } from '../../../lib/error-reference.ts';
import { ConflictError } from '../../../lib/errors.ts';
import { periodEnd } from '../../subscriptions/billing-rules.ts';
import { paymentReceived, purchaseDescription } from '../billing-notices.ts';
import { completeOrder, updateOrder } from '../payments.ledger.ts';
import type {
  CheckoutInput,
  CheckoutProvider,
  ProviderDeps,
  RenewingProvider,
  ReturnUrls,
} from '../provider-contract.ts';
import {
  findAddonSubscriptionRefs,
  findInvoiceRefOfOrder,
  findPayPalOrder,
  type PayPalOrderRow,
} from './paypal.repository.ts';
import {
  captureFeeMinor,
  createPayPalCatalog,
  type createPayPalClient,
  linkOf,
  PayPalApiError,
  type PayPalSubscription,
} from './paypal-client.ts';

export const PAYPAL_CANNOT_RESUME =
  'A cancelled PayPal subscription cannot be resumed. When the paid period ends, choose a plan again on the Billing page.';

export type PayPalClient = ReturnType<typeof createPayPalClient>;
export type PayPalService = ReturnType<typeof createPayPalService>;

/** What a confirmed payment completes an order with. */
export interface Completion {
  /** The invoice's provider id: the capture id, or the subscription id and its billing cycle. */
  invoiceRef: string;
  amount: number;
  currency: string;
  /** PayPal Business plan purchases: the subscription that renews the plan. */
  providerSubscriptionId?: string;
  periodEnd?: Date;
  /** PayPal's fee on the payment (minor units), where the source reports it. */
  feeMinor?: number;
  /** The sale id of a subscription's first payment (its invoice is `<subscription>:1`). */
  saleId?: string;
}

/** How far back a subscription's first sale is looked for (it was made when the buyer approved). */
const FIRST_SALE_LOOKBACK_MS = 3 * 24 * 60 * 60 * 1000;

/** The billing cycles PayPal has charged on a subscription (1 for the first payment). */
export const cyclesOf = (sub: PayPalSubscription) =>
  Math.max(1, ...(sub.billing_info?.cycle_executions ?? []).map((c) => c.cycles_completed));

/**
 * The invoice id of a subscription payment: the first one is `<subscription>:1` whichever of the return,
 * the ACTIVATED event or the first PAYMENT.SALE.COMPLETED records it; later ones are their sale ids.
 */
export const subscriptionInvoiceRef = (sub: PayPalSubscription, saleId?: string) =>
  cyclesOf(sub) <= 1 || !saleId ? `${sub.id}:${cyclesOf(sub)}` : saleId;

export const nextBilling = (sub: PayPalSubscription) =>
  sub.billing_info?.next_billing_time ? new Date(sub.billing_info.next_billing_time) : undefined;

/**
 * PayPal's rules: checkout (PayPal standard: a one-off Orders v2 payment; PayPal Business: a PayPal
 * subscription), renewal controls, completing an order once, and the browser's return from PayPal.
 * The webhook (paypal.webhooks.ts) completes and renews orders through `complete`.
 */
export function createPayPalService(client: PayPalClient, urls: ReturnUrls, deps: ProviderDeps) {
  const { db, now, subscriptions, notifications } = deps;
  const catalog = createPayPalCatalog(client);

  const backUrls = (orderId: string) => ({
    return_url: `${urls.publicUrl}/api/payments/paypal/return?order=${orderId}`,
    cancel_url: `${urls.publicUrl}/api/payments/paypal/cancel?order=${orderId}`,
  });

  const orderById = (trx: DbOrTx, id: string | undefined, lock = false) => findPayPalOrder(trx, id, lock);

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
      {
        providerRef: c.invoiceRef,
        amount: c.amount,
        currency: c.currency,
        at,
        feeMinor: c.feeMinor,
        paymentRef: c.saleId && c.saleId !== c.invoiceRef ? c.saleId : undefined,
      },
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

  /**
   * The sale of a subscription's first payment and PayPal's fee on it, from the subscription's
   * transactions (the return and BILLING.SUBSCRIPTION.ACTIVATED do not carry them). Best effort: when
   * PayPal does not answer, the commission is on the gross amount and a later PAYMENT.SALE.COMPLETED
   * still links the sale to the invoice.
   */
  async function firstSale(sub: PayPalSubscription): Promise<Pick<Completion, 'saleId' | 'feeMinor'>> {
    if (cyclesOf(sub) > 1) return {};
    try {
      const to = new Date();
      const from = new Date(to.getTime() - FIRST_SALE_LOOKBACK_MS);
      const sales = await client.subscriptionTransactions(sub.id, from, to);
      const sale = sales.find((t) => t.status === 'COMPLETED');
      if (!sale) return {};
      const gross = sale.amount_with_breakdown?.gross_amount;
      const fee = sale.amount_with_breakdown?.fee_amount;
      const sameCurrency = !gross || !fee || fee.currency_code === gross.currency_code;
      return {
        saleId: sale.id,
        feeMinor: fee?.value && sameCurrency ? Math.round(Number(fee.value) * 100) || 0 : undefined,
      };
    } catch (err) {
      errorLog(`PayPal transactions of subscription ${sub.id} unreadable: ${describeError(err)}`);
      return {};
    }
  }

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
      await cancelQuietly(await findAddonSubscriptionRefs(db, sub.user_id), 'Plan cancelled in Berth');
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
      feeMinor: captureFeeMinor(capture),
    });
    return urls.success(capture.id);
  }

  async function subscriptionReturn(order: PayPalOrderRow, subscriptionId: string): Promise<string> {
    const sub = await client.getSubscription(subscriptionId);
    if (sub.custom_id !== undefined && sub.custom_id !== order.id) return urls.failed('other');
    if (sub.status === 'ACTIVE') {
      await completeNow(order.id, { ...subscriptionCompletion(order, sub), ...(await firstSale(sub)) });
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

  /** GET /api/payments/paypal/return: answers the result page to redirect to. */
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

  /** GET /api/payments/paypal/cancel: the pending order is cancelled. */
  async function handleCancel(q: { order?: string }) {
    const order = await orderById(db, q.order);
    if (!order) return urls.failed('other');
    if (order.status === 'pending')
      await updateOrder(db, order.id, { status: 'cancelled', updated_at: now() });
    return urls.cancelled;
  }

  return {
    standard,
    business,
    orderById,
    complete,
    subscriptionCompletion,
    cancelQuietly,
    firstSale,
    handleReturn,
    handleCancel,
  };
}
