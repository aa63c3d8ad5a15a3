import type { DbOrTx } from '../../db/database.ts';
import type { PaymentListener, RecordedPayment, RecordedRefund } from '../payments/payment-listener.ts';
import { COMMISSION_PERCENT, DAY_MS, HOLD_DAYS } from './affiliate-program.ts';
import * as repo from './affiliates.repository.ts';

/**
 * The payments module's listener: commissions from recorded payments, reversals from refunds. Each
 * runs inside the transaction that records the payment or refund.
 */
export function createCommissions({ now }: { now: () => Date }): PaymentListener {
  return {
    /**
     * 20 % of the net amount of a referred user's first paid subscription payment, held 30 days. Once
     * per referral and per payment (a resent event finds the referral's first payment already set).
     */
    async paid(trx: DbOrTx, p: RecordedPayment): Promise<void> {
      if (p.kind !== 'plan' || p.netMinor <= 0) return;
      const referral = await repo.lockReferralOfUser(trx, p.userId);
      if (!referral || referral.first_payment_ref !== null) return;
      const at = now();
      await repo.markFirstPayment(trx, referral.id, `${p.provider}:${p.providerRef}`, at);
      const amount = Math.round((p.netMinor * COMMISSION_PERCENT) / 100);
      if (amount <= 0) return;
      await repo.insertLedgerEntry(trx, {
        affiliateId: referral.affiliate_id,
        kind: 'commission',
        amountMinor: amount,
        currency: p.currency,
        availableAt: new Date(at.getTime() + HOLD_DAYS * DAY_MS),
        at,
        referralId: referral.id,
        source: { provider: p.provider, ref: p.providerRef },
      });
    },

    /**
     * A refund takes back the same share of the commission: inside the hold a clawback (the pending
     * commission shrinks), after it a negative adjustment. The refund is told as the total refunded so
     * far, so only the part not yet taken back is taken (a resent event takes nothing more).
     */
    async refunded(trx: DbOrTx, r: RecordedRefund): Promise<void> {
      if (r.paidMinor <= 0 || r.refundedMinor <= 0) return;
      const commission = await repo.lockCommissionOfSource(trx, r.provider, r.providerRef);
      if (!commission) return;
      const share = Math.min(1, r.refundedMinor / r.paidMinor);
      const due = Math.round(Number(commission.amount_minor) * share);
      const taken = await repo.reversedOfSource(trx, r.provider, r.providerRef);
      if (due <= taken) return;
      const at = now();
      const inHold = at < commission.available_at;
      await repo.insertLedgerEntry(trx, {
        affiliateId: commission.affiliate_id,
        kind: inHold ? 'clawback' : 'adjustment',
        amountMinor: -(due - taken),
        currency: commission.currency,
        // A clawback reduces the held commission at the moment it would have become available.
        availableAt: inHold ? commission.available_at : at,
        at,
        referralId: commission.referral_id,
        source: { provider: r.provider, ref: r.providerRef },
      });
    },
  };
}
