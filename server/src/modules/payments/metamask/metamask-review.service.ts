import { ConflictError, NotFoundError } from '../../../lib/errors.ts';
import { isUuid } from '../../../lib/ids.ts';
import type { NotificationInput } from '../../notifications/notifications.service.ts';
import { paymentReceived, purchaseDescription } from '../billing-notices.ts';
import { completeOrder, findOrder, updateOrder } from '../payments.ledger.ts';
import { type MetaMaskContext, type MetaMaskDeps, toOrder } from './metamask.context.ts';
import {
  findOrderWithBuyer,
  listOrdersWithBuyer,
  type MetaMaskOrderWithBuyer,
} from './metamask.repository.ts';
import type { AdminMetaMaskOrder, MetaMaskOrder } from './metamask.schemas.ts';

export const ALREADY_APPROVED = 'This payment has already been approved.';
export const ALREADY_REJECTED = 'This payment has already been rejected.';
const NO_TRANSACTION_YET = 'No transaction has been submitted for this order yet.';
export const ADDON_NEEDS_STARTER =
  'The user is no longer on the Starter plan, so an additional instance cannot be added. Reject this payment or grant a plan by hand.';
export const NOT_CHECKED_NO_RPC = 'not checked: no ETH_RPC_URL';

const paymentRejected = (what: string, reason: string | undefined): NotificationInput => ({
  type: 'billing',
  title: 'Payment not accepted',
  message: `We could not accept your MetaMask payment for ${what}.${reason ? ` ${reason}` : ''} Please contact support or choose another payment method on the Billing page.`,
});

/**
 * Support's review of MetaMask payments (the admin panel): every order with its buyer and what the
 * on-chain check found, a check on demand, and approval (the plan or add-on active at once, an invoice
 * recorded, the user told) or rejection (the user told why).
 */
export function createMetaMaskReview(ctx: MetaMaskContext, deps: MetaMaskDeps) {
  const { db, now, subscriptions, notifications } = deps;

  function adminView(row: MetaMaskOrderWithBuyer): AdminMetaMaskOrder {
    const order = toOrder(row);
    const v = order.verification;
    const [verificationState, verificationNote]: [AdminMetaMaskOrder['verificationState'], string] = !v
      ? ['not_checked', ctx.onChainChecks ? 'not checked yet' : NOT_CHECKED_NO_RPC]
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
    async adminList(status?: MetaMaskOrder['status']): Promise<AdminMetaMaskOrder[]> {
      return (await listOrdersWithBuyer(db, status, 500)).map(adminView);
    },

    /** Checks one order on chain now (admin); an RPC failure answers 502. */
    async verifyNow(orderId: string): Promise<AdminMetaMaskOrder> {
      const order = await adminOrder(orderId);
      if (!ctx.onChainChecks)
        throw new ConflictError('On-chain checks are off: no ETH_RPC_URL is configured.');
      if (order.status === 'pending') throw new ConflictError(NO_TRANSACTION_YET);
      const row = await findOrder(db, order.id);
      if (row) await ctx.verify(row);
      return adminOrder(order.id);
    },

    /**
     * Support accepts the payment: the order is completed, the plan (or add-on) active at once, an invoice
     * recorded and the user told — all in one transaction. Allowed whether or not the chain checks passed.
     */
    async approve(orderId: string): Promise<AdminMetaMaskOrder> {
      await db.transaction().execute(async (trx) => {
        const order = await ctx.lockOrder(trx, orderId);
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
        const order = await ctx.lockOrder(trx, orderId);
        if (order.status === 'completed') throw new ConflictError(ALREADY_APPROVED);
        if (order.status === 'rejected') throw new ConflictError(ALREADY_REJECTED);
        await updateOrder(trx, order.id, { status: 'rejected', updated_at: now() });
        const what = purchaseDescription(order.kind, order.plan, order.billing_cycle);
        await notifications.notify(order.user_id, paymentRejected(what, reason || undefined), trx);
      });
      return adminOrder(orderId);
    },
  };
}
