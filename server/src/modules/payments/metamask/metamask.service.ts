import { ConflictError, NotFoundError, ValidationError } from '../../../lib/errors.ts';
import { isUuid } from '../../../lib/ids.ts';
import { methodAvailable, readPaymentSettings } from '../payment-settings.ts';
import { findOrder, updateOrder } from '../payments.ledger.ts';
import { openOrder, PAYMENT_METHOD_UNAVAILABLE } from '../purchase.ts';
import { type MetaMaskContext, type MetaMaskDeps, toOrder } from './metamask.context.ts';
import { isTransactionTaken, listOwnOrders } from './metamask.repository.ts';
import type {
  MetaMaskOrder,
  MetaMaskOrderCreated,
  MetaMaskOrderRequest,
  MetaMaskTransactionRequest,
} from './metamask.schemas.ts';
import { orderRefData } from './metamask-verify.ts';

export const WRONG_CHAIN = (chainId: string) =>
  `Please switch MetaMask to ${networkName(chainId)} (${chainId}): payments go to that network.`;
export const TX_ALREADY_SUBMITTED = 'This transaction has already been submitted.';
export const ORDER_HAS_TRANSACTION = 'A transaction has already been submitted for this order.';

function networkName(chainId: string): string {
  return chainId === '0xaa36a7' ? 'Sepolia' : chainId === '0x89' ? 'Polygon' : 'the configured network';
}

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === '23505';
}

/**
 * MetaMask payments as the customer makes them: an order (what to send with eth_sendTransaction), the
 * transaction MetaMask sent for it, and their own orders. Support approves or rejects them
 * (metamask-review.service.ts).
 */
export function createMetaMaskService(ctx: MetaMaskContext, deps: MetaMaskDeps) {
  const { db, now, subscriptions } = deps;

  return {
    /**
     * Starts a MetaMask payment: checks the method and the plan rules (as for Stripe and PayPal) and records
     * a pending order, answering what the browser sends with eth_sendTransaction.
     */
    async createOrder(userId: string, request: MetaMaskOrderRequest): Promise<MetaMaskOrderCreated> {
      const stored = await readPaymentSettings(db);
      const receiver = stored.metamask.receiverAddress;
      const chainId = stored.metamask.chainId;
      if (!methodAvailable(stored, { stripe: false, paypal: false }, 'metamask') || !receiver || !chainId)
        throw new ConflictError(PAYMENT_METHOD_UNAVAILABLE);

      const { order } = await db
        .transaction()
        .execute((trx) =>
          openOrder(
            trx,
            { now, subscriptions },
            { userId, provider: 'metamask', request, settings: stored, extra: { chain_id: chainId } },
          ),
        );
      const view = toOrder(order);
      return {
        ...view,
        receiverAddress: receiver,
        transaction: { to: receiver, value: '0x0', data: orderRefData(view.orderRef) },
      };
    },

    /**
     * Stores the transaction MetaMask sent for an order ('submitted'), then checks it on chain at once when
     * an RPC is configured (best effort: a failing RPC leaves it for the periodic check).
     */
    async submitTransaction(
      userId: string,
      orderId: string,
      tx: MetaMaskTransactionRequest,
    ): Promise<MetaMaskOrder> {
      const stored = await readPaymentSettings(db);
      if (!methodAvailable(stored, { stripe: false, paypal: false }, 'metamask'))
        throw new ConflictError(PAYMENT_METHOD_UNAVAILABLE);
      const txHash = tx.txHash.toLowerCase();
      const submitted = await db.transaction().execute(async (trx) => {
        const order = await ctx.lockOrder(trx, orderId);
        if (order.user_id !== userId) throw new NotFoundError('Payment not found');
        if (order.provider_ref !== null) {
          if (order.provider_ref === txHash) throw new ConflictError(TX_ALREADY_SUBMITTED);
          throw new ConflictError(ORDER_HAS_TRANSACTION);
        }
        if (order.status !== 'pending') throw new ConflictError(ORDER_HAS_TRANSACTION);
        const chainId = order.chain_id ?? stored.metamask.chainId;
        if (!chainId || tx.chainId.toLowerCase() !== chainId.toLowerCase())
          throw new ValidationError(WRONG_CHAIN(chainId ?? ''), { expectedChainId: chainId });
        if (await isTransactionTaken(trx, txHash)) throw new ConflictError(TX_ALREADY_SUBMITTED);
        const at = now();
        try {
          await updateOrder(trx, order.id, {
            status: 'submitted',
            provider_ref: txHash,
            from_address: tx.from.toLowerCase(),
            chain_id: chainId,
            updated_at: at,
          });
        } catch (err) {
          if (isUniqueViolation(err)) throw new ConflictError(TX_ALREADY_SUBMITTED);
          throw err;
        }
        return {
          ...order,
          status: 'submitted' as const,
          provider_ref: txHash,
          from_address: tx.from.toLowerCase(),
          chain_id: chainId,
          updated_at: at,
        };
      });
      if (ctx.onChainChecks) {
        try {
          await ctx.verify(submitted);
        } catch {
          // The periodic check tries again.
        }
      }
      return toOrder((await findOrder(db, submitted.id)) ?? submitted);
    },

    async listOwn(userId: string): Promise<MetaMaskOrder[]> {
      return (await listOwnOrders(db, userId, 200)).map(toOrder);
    },

    async getOwn(userId: string, orderId: string): Promise<MetaMaskOrder> {
      const row = isUuid(orderId) ? await findOrder(db, orderId) : undefined;
      if (row?.provider !== 'metamask' || row.user_id !== userId)
        throw new NotFoundError('Payment not found');
      return toOrder(row);
    },
  };
}
