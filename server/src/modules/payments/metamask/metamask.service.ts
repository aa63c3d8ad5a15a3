import type { Transaction } from 'kysely';
import type { Database, Db } from '../../../db/database.ts';
import type { PaymentOrderRow } from '../../../db/tables/payments.ts';
import { ConflictError, NotFoundError, PaymentProviderError, ValidationError } from '../../../lib/errors.ts';
import { isUuid } from '../../../lib/ids.ts';
import type { NotificationInput, NotificationsService } from '../../notifications/notifications.service.ts';
import type { SubscriptionsService } from '../../subscriptions/subscriptions.service.ts';
import { paymentReceived, purchaseDescription } from '../billing-notices.ts';
import type { PaymentListener } from '../payment-listener.ts';
import { methodAvailable, readPaymentSettings } from '../payment-settings.ts';
import type { EthereumConfig } from '../payments.config.ts';
import { completeOrder, findOrder, updateOrder } from '../payments.ledger.ts';
import { openOrder, PAYMENT_METHOD_UNAVAILABLE } from '../purchase.ts';
import { createEthRpc, type EthRpc } from './eth-rpc.ts';
import {
  findOrderWithBuyer,
  isTransactionTaken,
  listOrdersWithBuyer,
  listOwnOrders,
  listSubmittedOrders,
  lockMetaMaskOrder,
  storeVerification,
} from './metamask.repository.ts';
import type {
  AdminMetaMaskOrder,
  MetaMaskOrder,
  MetaMaskOrderCreated,
  MetaMaskOrderRequest,
  MetaMaskTransactionRequest,
} from './metamask.schemas.ts';
import { checkTransaction, orderRefData, type Verification } from './metamask-verify.ts';

export interface MetaMaskDeps {
  db: Db;
  now: () => Date;
  subscriptions: Pick<
    SubscriptionsService,
    'lockRow' | 'countInstances' | 'activatePlan' | 'addAddonInstance'
  >;
  notifications: Pick<NotificationsService, 'notify'>;
  /** Told of the approved payment (affiliate commissions). */
  listener?: PaymentListener;
}

export type MetaMaskService = ReturnType<typeof createMetaMaskService>;

export const WRONG_CHAIN = (chainId: string) =>
  `Please switch MetaMask to ${networkName(chainId)} (${chainId}): payments go to that network.`;
export const TX_ALREADY_SUBMITTED = 'This transaction has already been submitted.';
export const ORDER_HAS_TRANSACTION = 'A transaction has already been submitted for this order.';
export const ALREADY_APPROVED = 'This payment has already been approved.';
export const ALREADY_REJECTED = 'This payment has already been rejected.';
const NO_TRANSACTION_YET = 'No transaction has been submitted for this order yet.';
export const ADDON_NEEDS_STARTER =
  'The user is no longer on the Starter plan, so an additional instance cannot be added. Reject this payment or grant a plan by hand.';
export const NOT_CHECKED_NO_RPC = 'not checked: no ETH_RPC_URL';

/** Orders checked per run of verifyPending. */
const VERIFY_BATCH = 100;

function networkName(chainId: string): string {
  return chainId === '0xaa36a7' ? 'Sepolia' : chainId === '0x89' ? 'Polygon' : 'the configured network';
}

/** The reference the UI puts (as UTF-8 hex) in the transaction data. */
const orderRefOf = (orderId: string) => `berth:${orderId}`;

const paymentRejected = (what: string, reason: string | undefined): NotificationInput => ({
  type: 'billing',
  title: 'Payment not accepted',
  message: `We could not accept your MetaMask payment for ${what}.${reason ? ` ${reason}` : ''} Please contact support or choose another payment method on the Billing page.`,
});

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === '23505';
}

function toOrder(row: PaymentOrderRow): MetaMaskOrder {
  return {
    id: row.id,
    orderRef: orderRefOf(row.id),
    status: row.status as MetaMaskOrder['status'],
    kind: row.kind,
    plan: row.plan,
    billingCycle: row.billing_cycle,
    amount: Number(row.amount),
    currency: row.currency,
    chainId: row.chain_id ?? '',
    from: row.from_address,
    txHash: row.provider_ref,
    verification: (row.verification as Verification | null) ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function createMetaMaskService(config: EthereumConfig | undefined, deps: MetaMaskDeps) {
  const { db, now, subscriptions, notifications } = deps;
  const rpc: EthRpc | undefined = config ? createEthRpc(config.rpcUrl) : undefined;

  async function lockOrder(trx: Transaction<Database>, id: string): Promise<PaymentOrderRow> {
    if (!isUuid(id)) throw new NotFoundError('Payment not found');
    const row = await lockMetaMaskOrder(trx, id);
    if (!row) throw new NotFoundError('Payment not found');
    return row;
  }

  async function ownOrder(userId: string, id: string): Promise<PaymentOrderRow> {
    const row = isUuid(id) ? await findOrder(db, id) : undefined;
    if (row?.provider !== 'metamask' || row.user_id !== userId) throw new NotFoundError('Payment not found');
    return row;
  }

  /**
   * Checks one order's transaction on chain and stores what was found: 'verified' when every check passes,
   * back to (or still) 'submitted' otherwise. Orders already decided are left alone. Null without an RPC.
   */
  async function verify(order: PaymentOrderRow): Promise<Verification | null> {
    if (!rpc || !config || !order.provider_ref || !order.from_address || !order.chain_id) return null;
    const settings = await readPaymentSettings(db);
    let found: Verification;
    try {
      found = await checkTransaction(
        rpc,
        {
          txHash: order.provider_ref,
          chainId: order.chain_id,
          from: order.from_address,
          orderRef: orderRefOf(order.id),
          receiver: settings.metamask.receiverAddress,
        },
        config.confirmations,
        now(),
      );
    } catch (err) {
      throw new PaymentProviderError('The Ethereum RPC did not answer. Please try again later.', {
        cause: err,
      });
    }
    await storeVerification(db, order.id, found, now());
    return found;
  }

  function adminView(row: PaymentOrderRow & { email: string; username: string }): AdminMetaMaskOrder {
    const order = toOrder(row);
    const v = order.verification;
    const [verificationState, verificationNote]: [AdminMetaMaskOrder['verificationState'], string] = !v
      ? ['not_checked', config ? 'not checked yet' : NOT_CHECKED_NO_RPC]
      : v.problems.length > 0
        ? ['problems', v.problems.join('; ')]
        : v.ok
          ? ['verified', `verified on chain: ${v.confirmations} of ${v.requiredConfirmations} confirmations`]
          : ['waiting', v.waiting ?? 'waiting'];
    return {
      ...order,
      user: { id: row.user_id, email: row.email, username: row.username },
      verificationState,
      verificationNote,
    };
  }

  async function adminOrder(id: string): Promise<AdminMetaMaskOrder> {
    if (!isUuid(id)) throw new NotFoundError('Payment not found');
    const row = await findOrderWithBuyer(db, id);
    if (!row) throw new NotFoundError('Payment not found');
    return adminView(row);
  }

  return {
    /** Whether transactions are checked on chain (an RPC URL is configured). */
    onChainChecks: rpc !== undefined,

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
        const order = await lockOrder(trx, orderId);
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
      if (rpc) {
        try {
          await verify(submitted);
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
      return toOrder(await ownOrder(userId, orderId));
    },

    async adminList(status?: MetaMaskOrder['status']): Promise<AdminMetaMaskOrder[]> {
      return (await listOrdersWithBuyer(db, status, 500)).map(adminView);
    },

    /** Checks one order on chain now (admin); an RPC failure answers 502. */
    async verifyNow(orderId: string): Promise<AdminMetaMaskOrder> {
      const order = await adminOrder(orderId);
      if (!rpc) throw new ConflictError('On-chain checks are off: no ETH_RPC_URL is configured.');
      if (order.status === 'pending') throw new ConflictError(NO_TRANSACTION_YET);
      const row = await findOrder(db, order.id);
      if (row) await verify(row);
      return adminOrder(order.id);
    },

    /**
     * Support accepts the payment: the order is completed, the plan (or add-on) active at once, an invoice
     * recorded and the user told — all in one transaction. Allowed whether or not the chain checks passed.
     */
    async approve(orderId: string): Promise<AdminMetaMaskOrder> {
      await db.transaction().execute(async (trx) => {
        const order = await lockOrder(trx, orderId);
        if (order.status === 'completed') throw new ConflictError(ALREADY_APPROVED);
        if (order.status === 'rejected') throw new ConflictError(ALREADY_REJECTED);
        if (order.status === 'pending' || !order.provider_ref) throw new ConflictError(NO_TRANSACTION_YET);
        const at = now();
        const sub = await subscriptions.lockRow(order.user_id, trx);
        if (!sub) throw new NotFoundError('Subscription not found');
        if (order.kind === 'addon_instance') {
          if (sub.plan !== 'starter') throw new ConflictError(ADDON_NEEDS_STARTER);
          await subscriptions.addAddonInstance(
            order.user_id,
            { billingCycle: order.billing_cycle, provider: 'metamask' },
            trx,
          );
        } else {
          await subscriptions.activatePlan(
            order.user_id,
            { plan: order.plan, billingCycle: order.billing_cycle, provider: 'metamask' },
            trx,
          );
        }
        // No provider fee: the customer's wallet pays the network's gas on top, and the whole amount
        // reaches the receiver address, so the commission is on the full amount (no tax is charged).
        const description = await completeOrder(
          trx,
          order,
          { providerRef: order.provider_ref, amount: Number(order.amount), currency: order.currency, at },
          deps.listener,
        );
        await notifications.notify(order.user_id, paymentReceived(description), trx);
      });
      return adminOrder(orderId);
    },

    /** Support refuses the payment: the order is rejected and the user told (with the reason, if given). */
    async reject(orderId: string, reason?: string): Promise<AdminMetaMaskOrder> {
      await db.transaction().execute(async (trx) => {
        const order = await lockOrder(trx, orderId);
        if (order.status === 'completed') throw new ConflictError(ALREADY_APPROVED);
        if (order.status === 'rejected') throw new ConflictError(ALREADY_REJECTED);
        await updateOrder(trx, order.id, { status: 'rejected', updated_at: now() });
        const what = purchaseDescription(order.kind, order.plan, order.billing_cycle);
        await notifications.notify(order.user_id, paymentRejected(what, reason || undefined), trx);
      });
      return adminOrder(orderId);
    },

    /**
     * Checks submitted transactions on chain (oldest first); those already found with problems wait for
     * support. Answers how many became verified. Throws when the RPC does not answer at all.
     */
    async verifyPending(): Promise<number> {
      if (!rpc) return 0;
      const rows = await listSubmittedOrders(db, VERIFY_BATCH);
      const open = rows.filter((r) => !((r.verification as Verification | null)?.problems.length ?? 0));
      if (open.length === 0) return 0;
      await rpc.chainId(); // one call first: an unreachable RPC fails the run once, not per order
      let changed = 0;
      for (const row of open) {
        try {
          if ((await verify(row))?.ok) changed += 1;
        } catch {
          // Left for the next run.
        }
      }
      return changed;
    },
  };
}
