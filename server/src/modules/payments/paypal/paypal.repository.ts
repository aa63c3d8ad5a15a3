import type { DbOrTx } from '../../../db/database.ts';
import type { PaymentOrderRow } from '../../../db/tables/payments.ts';
import { isUuid } from '../../../lib/ids.ts';

/**
 * PayPal's rows of the payments ledger: orders paid through PayPal (one-off Orders v2 payments and
 * PayPal Business subscriptions) and the invoices they recorded. Writes go through payments.ledger.ts
 * like every provider's (completeOrder, recordInvoice, updateOrder).
 */

export type PayPalOrderRow = PaymentOrderRow & { provider: 'paypal_standard' | 'paypal_business' };

const PAYPAL_PROVIDERS = ['paypal_standard', 'paypal_business'] as const;

/** A PayPal order by Berth's id (PayPal echoes it as custom_id); `lock`: until the transaction ends. */
export async function findPayPalOrder(
  db: DbOrTx,
  id: string | undefined,
  lock = false,
): Promise<PayPalOrderRow | undefined> {
  if (!isUuid(id)) return undefined;
  const q = db
    .selectFrom('payment_orders')
    .selectAll()
    .where('id', '=', id)
    .where('provider', 'in', PAYPAL_PROVIDERS);
  const row = await (lock ? q.forUpdate() : q).executeTakeFirst();
  return isPayPalOrder(row) ? row : undefined;
}

const isPayPalOrder = (o: PaymentOrderRow | undefined): o is PayPalOrderRow =>
  o?.provider === 'paypal_standard' || o?.provider === 'paypal_business';

/** The PayPal subscription ids of a user's completed add-on orders (they renew apart from the plan's). */
export async function findAddonSubscriptionRefs(db: DbOrTx, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('payment_orders')
    .select('provider_ref')
    .where('user_id', '=', userId)
    .where('provider', '=', 'paypal_business')
    .where('kind', '=', 'addon_instance')
    .where('status', '=', 'completed')
    .where('provider_ref', 'is not', null)
    .execute();
  return rows.flatMap((r) => (r.provider_ref ? [r.provider_ref] : []));
}

/** The provider's payment id on the invoice of an order (the capture id), if one was recorded. */
export async function findInvoiceRefOfOrder(db: DbOrTx, orderId: string): Promise<string | null | undefined> {
  const row = await db
    .selectFrom('invoices')
    .select('provider_ref')
    .where('order_id', '=', orderId)
    .executeTakeFirst();
  return row?.provider_ref;
}

/** Whether a PayPal Business payment has its invoice already (a renewal told twice notifies once). */
export async function isSubscriptionInvoiceRecorded(db: DbOrTx, providerRef: string): Promise<boolean> {
  const row = await db
    .selectFrom('invoices')
    .select('id')
    .where('provider', '=', 'paypal_business')
    .where('provider_ref', '=', providerRef)
    .executeTakeFirst();
  return row !== undefined;
}
