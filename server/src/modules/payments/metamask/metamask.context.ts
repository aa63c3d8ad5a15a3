import type { Transaction } from 'kysely';
import type { Database, Db } from '../../../db/database.ts';
import type { PaymentOrderRow } from '../../../db/tables/payments.ts';
import { NotFoundError, PaymentProviderError } from '../../../lib/errors.ts';
import { isUuid } from '../../../lib/ids.ts';
import type { NotificationsService } from '../../notifications/notifications.service.ts';
import type { SubscriptionsService } from '../../subscriptions/subscriptions.service.ts';
import type { PaymentListener } from '../payment-listener.ts';
import { readPaymentSettings } from '../payment-settings.ts';
import type { EthereumConfig } from '../payments.config.ts';
import { createEthRpc, type EthRpc } from './eth-rpc.ts';
import { listSubmittedOrders, lockMetaMaskOrder, storeVerification } from './metamask.repository.ts';
import type { MetaMaskOrder } from './metamask.schemas.ts';
import { checkTransaction, type Verification } from './metamask-verify.ts';

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

/** Orders checked per run of verifyPending. */
const VERIFY_BATCH = 100;

/** The reference the UI puts (as UTF-8 hex) in the transaction data. */
const orderRefOf = (orderId: string) => `berth:${orderId}`;

/** The API shape of a MetaMask order row. */
export function toOrder(row: PaymentOrderRow): MetaMaskOrder {
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

/**
 * What the MetaMask services share (metamask.service.ts, metamask-review.service.ts): locking an order,
 * and the on-chain check of its transaction through the Ethereum RPC (ETH_RPC_URL; without it nothing is
 * checked and support decides alone), once for one order or periodically for every submitted one.
 */
export function metaMaskContext(
  config: EthereumConfig | undefined,
  { db, now }: Pick<MetaMaskDeps, 'db' | 'now'>,
) {
  const rpc: EthRpc | undefined = config ? createEthRpc(config.rpcUrl) : undefined;

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

  return {
    /** Whether transactions are checked on chain (an RPC URL is configured). */
    onChainChecks: rpc !== undefined,

    verify,

    /** A MetaMask order locked until the transaction ends; 404 for anything else. */
    async lockOrder(trx: Transaction<Database>, id: string): Promise<PaymentOrderRow> {
      if (!isUuid(id)) throw new NotFoundError('Payment not found');
      const row = await lockMetaMaskOrder(trx, id);
      if (!row) throw new NotFoundError('Payment not found');
      return row;
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

export type MetaMaskContext = ReturnType<typeof metaMaskContext>;
