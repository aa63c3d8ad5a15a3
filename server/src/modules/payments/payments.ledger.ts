import { sql } from 'kysely';
import type { DbOrTx } from '../../db/database.ts';
import type { InvoiceTable } from '../../db/tables/invoices.ts';
import type { NewPaymentOrderRow, PaymentOrderRow, PaymentOrderUpdate } from '../../db/tables/payments.ts';
import { purchaseDescription } from './billing-notices.ts';
import { noPaymentListener, type PaymentListener, toMinor } from './payment-listener.ts';

/**
 * The payments module's repository: its own rows (attempts to pay, i.e. orders; provider events, stored
 * once; invoices). Every provider records its payments through these; SQL of one provider's own rows lives in its
 * folder (stripe/, paypal/, metamask/ *.repository.ts).
 */
export async function insertOrder(db: DbOrTx, order: NewPaymentOrderRow): Promise<PaymentOrderRow> {
  return db.insertInto('payment_orders').values(order).returningAll().executeTakeFirstOrThrow();
}

export async function updateOrder(db: DbOrTx, id: string, update: PaymentOrderUpdate): Promise<void> {
  await db.updateTable('payment_orders').set(update).where('id', '=', id).execute();
}

export async function findOrder(db: DbOrTx, id: string): Promise<PaymentOrderRow | undefined> {
  return db.selectFrom('payment_orders').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Keeps a provider's webhook event once. Answers false when it was already stored: the caller must then
 * change nothing (providers deliver events more than once).
 */
export async function storeEventOnce(
  db: DbOrTx,
  event: { provider: string; id: string; type: string; payload: unknown },
): Promise<boolean> {
  const row = await db
    .insertInto('payment_events')
    .values({
      provider: event.provider,
      event_id: event.id,
      type: event.type,
      payload: JSON.stringify(event.payload),
    })
    .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a provider's webhook event is stored already (a repeat delivery). */
export async function isEventStored(db: DbOrTx, provider: string, eventId: string): Promise<boolean> {
  const row = await db
    .selectFrom('payment_events')
    .select('event_id')
    .where('provider', '=', provider)
    .where('event_id', '=', eventId)
    .executeTakeFirst();
  return row !== undefined;
}

/** A user's invoices, newest first. */
export async function listInvoices(db: DbOrTx, userId: string, limit: number) {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('date', 'desc')
    .limit(limit)
    .execute();
}

/** An invoice with whom it bills, for its printable page. */
export async function findInvoiceWithBuyer(db: DbOrTx, invoiceId: string) {
  return db
    .selectFrom('invoices')
    .innerJoin('users', 'users.id', 'invoices.user_id')
    .select([
      'invoices.id',
      'invoices.amount',
      'invoices.currency',
      'invoices.description',
      'invoices.date',
      'invoices.status',
      'invoices.provider',
      'invoices.provider_ref',
      'users.email',
      'users.first_name',
      'users.last_name',
      'users.company_name',
    ])
    .where('invoices.id', '=', invoiceId)
    .executeTakeFirst();
}

/** Who pays: the user's id, e-mail and name, for a checkout. */
export async function findBuyer(db: DbOrTx, userId: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'username'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

export interface InvoiceRecord {
  userId: string;
  provider: InvoiceTable['provider'];
  /** The provider's id of the payment: the same id twice updates the one invoice. */
  providerRef: string;
  amount: number;
  currency: string;
  description: string;
  status: InvoiceTable['status'];
  date: Date;
  /** The provider's hosted invoice; null: Berth renders one. */
  downloadUrl: string | null;
  orderId?: string | null;
  /** The provider's id of the money movement when providerRef names something else (a PayPal sale). */
  paymentRef?: string | null;
}

/** Records (or updates, by provider id) an invoice. */
export async function recordInvoice(db: DbOrTx, r: InvoiceRecord): Promise<string> {
  const row = await db
    .insertInto('invoices')
    .values({
      user_id: r.userId,
      provider: r.provider,
      provider_ref: r.providerRef,
      amount: r.amount.toFixed(2),
      currency: r.currency.toUpperCase(),
      description: r.description,
      status: r.status,
      date: r.date,
      download_url: r.downloadUrl,
      order_id: r.orderId ?? null,
      payment_ref: r.paymentRef ?? null,
    })
    .onConflict((oc) =>
      oc.columns(['provider', 'provider_ref']).doUpdateSet((eb) => ({
        // A refunded invoice stays refunded when its payment is told again.
        status: sql<
          InvoiceTable['status']
        >`case when invoices.status = 'refunded' then invoices.status else excluded.status end`,
        download_url: eb.fn.coalesce('excluded.download_url', 'invoices.download_url'),
        payment_ref: eb.fn.coalesce('excluded.payment_ref', 'invoices.payment_ref'),
      })),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * An order is paid: it is completed and its invoice recorded (Berth renders it: no hosted page).
 * Answers the invoice's description ('Pro (monthly)') for the notification.
 */
export async function completeOrder(
  db: DbOrTx,
  order: PaymentOrderRow,
  payment: {
    providerRef: string;
    amount: number;
    currency: string;
    at: Date;
    /** The provider's fee on this payment (minor units), where it reports one. */
    feeMinor?: number;
    /** The provider's id of the money movement when providerRef names something else. */
    paymentRef?: string;
  },
  listener: PaymentListener = noPaymentListener,
): Promise<string> {
  await updateOrder(db, order.id, { status: 'completed', updated_at: payment.at });
  const description = purchaseDescription(order.kind, order.plan, order.billing_cycle);
  await recordInvoice(db, {
    userId: order.user_id,
    provider: order.provider,
    providerRef: payment.providerRef,
    amount: payment.amount,
    currency: payment.currency,
    description,
    status: 'paid',
    date: payment.at,
    downloadUrl: null,
    orderId: order.id,
    paymentRef: payment.paymentRef,
  });
  // Listener (affiliate commissions): the payment less the provider's fee (no tax is charged here).
  await listener.paid(db, {
    userId: order.user_id,
    provider: order.provider,
    providerRef: payment.providerRef,
    kind: order.kind,
    netMinor: Math.max(0, toMinor(payment.amount) - (payment.feeMinor ?? 0)),
    currency: payment.currency.toUpperCase(),
  });
  return description;
}

/** The invoice of a provider's payment, by its invoice id or by the money movement's id (payment_ref). */
async function findInvoiceOfPayment(db: DbOrTx, provider: InvoiceTable['provider'], ref: string) {
  return db
    .selectFrom('invoices')
    .select(['id', 'provider_ref', 'amount'])
    .where('provider', '=', provider)
    .where((eb) => eb.or([eb('provider_ref', '=', ref), eb('payment_ref', '=', ref)]))
    .forUpdate()
    .executeTakeFirst();
}

export interface RefundReport {
  provider: InvoiceTable['provider'];
  /** The refunded payment: the invoice's provider_ref, or the money movement's id (payment_ref). */
  paymentRef: string;
  /** The provider's refund id; `charge:<id>` where the provider reports a running total instead. */
  refundRef: string;
  /** This refund's amount (currency units); for a running total, the total so far. */
  amount: number;
}

/**
 * Records a refund once (a resent report changes nothing; a running total only ever grows): the invoice's
 * refunded amount is the sum of its refunds, and it is 'refunded' once all of it is. The listener is told
 * the total refunded of the payment. Answers false when no invoice of the payment is recorded.
 */
export async function recordRefund(
  db: DbOrTx,
  r: RefundReport,
  listener: PaymentListener = noPaymentListener,
): Promise<boolean> {
  const invoice = await findInvoiceOfPayment(db, r.provider, r.paymentRef);
  if (!invoice?.provider_ref) return false;
  const paid = Number(invoice.amount);
  await db
    .insertInto('payment_refunds')
    .values({
      provider: r.provider,
      refund_ref: r.refundRef,
      invoice_id: invoice.id,
      amount: Math.min(Math.abs(r.amount), paid).toFixed(2),
    })
    .onConflict((oc) =>
      oc
        .columns(['provider', 'refund_ref'])
        .doUpdateSet({ amount: sql`greatest(payment_refunds.amount, excluded.amount)` }),
    )
    .execute();
  const { total } = await db
    .selectFrom('payment_refunds')
    .select(sql<string>`coalesce(sum(amount), 0)`.as('total'))
    .where('invoice_id', '=', invoice.id)
    .executeTakeFirstOrThrow();
  const refunded = Math.min(Number(total), paid);
  await db
    .updateTable('invoices')
    .set({ refunded_amount: refunded.toFixed(2), ...(refunded >= paid && { status: 'refunded' as const }) })
    .where('id', '=', invoice.id)
    .execute();
  // Listener (affiliate commissions): the share of the payment refunded so far.
  await listener.refunded(db, {
    provider: r.provider,
    providerRef: invoice.provider_ref,
    refundedMinor: toMinor(refunded),
    paidMinor: toMinor(paid),
  });
  return true;
}
