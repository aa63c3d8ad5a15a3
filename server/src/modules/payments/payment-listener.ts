import type { DbOrTx } from '../../db/database.ts';

/**
 * What the payments module tells others about money it records, inside the transaction that records it
 * (so a listener's rows commit or roll back with the invoice). The affiliate programme listens (its
 * commissions); payments knows nothing of it. Wired in services.ts.
 */
export interface PaymentListener {
  /** A payment was recorded in the invoice ledger (every provider, every time, even a resent event). */
  paid(trx: DbOrTx, payment: RecordedPayment): Promise<void>;
  /**
   * A recorded payment was refunded, in part or in full (or charged back: all of it). Told again with
   * the new total at each further refund, and possibly more than once with the same total.
   */
  refunded(trx: DbOrTx, refund: RecordedRefund): Promise<void>;
}

export interface RecordedPayment {
  userId: string;
  provider: string;
  /** The invoice ledger's provider_ref of this payment. */
  providerRef: string;
  /** plan: a subscription payment (first or renewal); addon_instance: an add-on; other: a change's proration. */
  kind: 'plan' | 'addon_instance' | 'other';
  /**
   * The amount of the subscription's plan, in minor units, net of tax, of the provider's fee and of
   * add-ons, as far as the provider reports them.
   */
  netMinor: number;
  currency: string;
}

export interface RecordedRefund {
  provider: string;
  /** The invoice ledger's provider_ref of the refunded payment. */
  providerRef: string;
  /** Refunded so far in all (cumulative, minor units); equal to paidMinor when all of it is refunded. */
  refundedMinor: number;
  /** What the payment was (minor units), gross: the refunded share is refundedMinor / paidMinor. */
  paidMinor: number;
}

export const noPaymentListener: PaymentListener = {
  paid: async () => {},
  refunded: async () => {},
};

/** A decimal amount in currency units (12.34) in minor units (1234). */
export const toMinor = (amount: number): number => Math.round(amount * 100);
