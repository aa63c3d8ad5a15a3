import type { DbOrTx } from '../../../db/database.ts';
import type { PaymentOrderRow, PaymentOrderUpdate } from '../../../db/tables/payments.ts';
import { isUuid } from '../../../lib/ids.ts';

/**
 * Stripe's rows of the payments ledger: orders paid through Stripe (rows of payment_orders with provider
 * 'stripe'). The invoices and webhook events Stripe records go through payments.ledger.ts like every
 * provider's.
 */

/** A Stripe order by id (a Checkout Session's metadata names it); anything else is not found. */
export async function findStripeOrder(
  db: DbOrTx,
  id: string | undefined,
): Promise<PaymentOrderRow | undefined> {
  if (!isUuid(id)) return undefined;
  return db
    .selectFrom('payment_orders')
    .selectAll()
    .where('id', '=', id)
    .where('provider', '=', 'stripe')
    .executeTakeFirst();
}

/** Changes a Stripe order (completed with its Checkout Session, cancelled when the session expired). */
export async function updateStripeOrder(db: DbOrTx, id: string, update: PaymentOrderUpdate): Promise<void> {
  await db
    .updateTable('payment_orders')
    .set(update)
    .where('id', '=', id)
    .where('provider', '=', 'stripe')
    .execute();
}
