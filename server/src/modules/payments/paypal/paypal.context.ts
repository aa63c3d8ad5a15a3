import type { Transaction } from 'kysely';
import type { Database, DbOrTx } from '../../../db/database.ts';
import type { PaymentOrderRow } from '../../../db/tables/payments.ts';
import { describeError } from '../../../lib/error-reference.ts';
import { periodEnd } from '../../subscriptions/billing-rules.ts';
import { paymentReceived } from '../billing-notices.ts';
import { completeOrder } from '../payments.ledger.ts';
import type { ProviderDeps } from '../provider-contract.ts';
import { findPayPalOrder } from './paypal.repository.ts';
import type { PayPalClient, PayPalSubscription } from './paypal-client.ts';

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

/** The first sale of a subscription and PayPal's fee on it, when PayPal tells them. */
export type FirstSale = Pick<Completion, 'saleId' | 'feeMinor'>;

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
 * What the PayPal services share (paypal.service.ts, paypal-return.ts, paypal.webhooks.ts): finding a
 * PayPal order, completing it exactly once whichever of the browser's return or a webhook comes first,
 * the facts of a PayPal subscription's first payment, and cancelling PayPal subscriptions a new plan
 * replaced.
 */
export function payPalContext(client: PayPalClient, deps: ProviderDeps) {
  const { db, now, subscriptions, notifications } = deps;
  const errorLog = deps.errorLog ?? ((line: string) => console.error(`[berth] ${line}`));

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
  async function firstSale(sub: PayPalSubscription): Promise<FirstSale> {
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

  return {
    orderById,
    complete,
    subscriptionCompletion,
    firstSale,
    cancelQuietly,
    errorLog,

    /** Completes an order in a transaction of its own, then cancels the subscription it replaced. */
    async completeNow(orderId: string, c: Completion) {
      const done = await db.transaction().execute((trx) => complete(trx, orderId, c));
      if (done?.replaced.length) await cancelQuietly(done.replaced, 'Replaced by a new Berth plan');
    },
  };
}

export type PayPalContext = ReturnType<typeof payPalContext>;
