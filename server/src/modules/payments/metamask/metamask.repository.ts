import type { Transaction } from 'kysely';
import type { Database, DbOrTx } from '../../../db/database.ts';
import type { PaymentOrderRow } from '../../../db/tables/payments.ts';
import type { Verification } from './metamask-verify.ts';

/** MetaMask orders (rows of payment_orders with provider 'metamask'), as the service and the admin read them. */

export type MetaMaskOrderWithBuyer = PaymentOrderRow & { email: string; username: string };

/** The order, locked until the transaction ends. */
export async function lockMetaMaskOrder(
  trx: Transaction<Database>,
  id: string,
): Promise<PaymentOrderRow | undefined> {
  return trx
    .selectFrom('payment_orders')
    .selectAll()
    .where('id', '=', id)
    .where('provider', '=', 'metamask')
    .forUpdate()
    .executeTakeFirst();
}

/** Stores what the chain said, unless an admin decided the order meanwhile. */
export async function storeVerification(
  db: DbOrTx,
  id: string,
  found: Verification,
  at: Date,
): Promise<void> {
  await db
    .updateTable('payment_orders')
    .set({ verification: JSON.stringify(found), status: found.ok ? 'verified' : 'submitted', updated_at: at })
    .where('id', '=', id)
    .where('status', 'in', ['submitted', 'verified'])
    .execute();
}

function withBuyer(db: DbOrTx) {
  return db
    .selectFrom('payment_orders')
    .innerJoin('users', 'users.id', 'payment_orders.user_id')
    .selectAll('payment_orders')
    .select(['users.email', 'users.username'])
    .where('payment_orders.provider', '=', 'metamask');
}

export async function findOrderWithBuyer(
  db: DbOrTx,
  id: string,
): Promise<MetaMaskOrderWithBuyer | undefined> {
  return withBuyer(db).where('payment_orders.id', '=', id).executeTakeFirst();
}

/** Orders for the admin's review: of one status, or all but those never submitted. Newest first. */
export async function listOrdersWithBuyer(
  db: DbOrTx,
  status: PaymentOrderRow['status'] | undefined,
  limit: number,
): Promise<MetaMaskOrderWithBuyer[]> {
  const q = status
    ? withBuyer(db).where('payment_orders.status', '=', status)
    : withBuyer(db).where('payment_orders.status', '!=', 'pending');
  return q.orderBy('payment_orders.created_at', 'desc').limit(limit).execute();
}

export async function isTransactionTaken(db: DbOrTx, txHash: string): Promise<boolean> {
  const row = await db
    .selectFrom('payment_orders')
    .select('id')
    .where('provider', '=', 'metamask')
    .where('provider_ref', '=', txHash)
    .executeTakeFirst();
  return row !== undefined;
}

export async function listOwnOrders(db: DbOrTx, userId: string, limit: number): Promise<PaymentOrderRow[]> {
  return db
    .selectFrom('payment_orders')
    .selectAll()
    .where('user_id', '=', userId)
    .where('provider', '=', 'metamask')
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
}

/** Submitted orders waiting for their on-chain check, longest waiting first. */
export async function listSubmittedOrders(db: DbOrTx, limit: number): Promise<PaymentOrderRow[]> {
  return db
    .selectFrom('payment_orders')
    .selectAll()
    .where('provider', '=', 'metamask')
    .where('status', '=', 'submitted')
    .orderBy('updated_at', 'asc')
    .limit(limit)
    .execute();
}
