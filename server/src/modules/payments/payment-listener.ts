import type { DbOrTx } from '../../db/database.ts';

/**
 * What the payments module tells others about money it records, inside the transaction that records it
 * (so a listener's rows commit or roll back with the invoice). The affiliate programme listens (its
 * commissions); payments knows nothing of it. Wired in services.ts.
 */
export interface PaymentListener {
  /** A payment was recorded in the invoice ledger (every provider, every time, even a resent event). */
  paid(trx: DbOrTx, payment: RecordedPayment): Promise<void>;
  /** A recorded payment was refunded in full (or charged back). */
  refunded(trx: DbOrTx, refund: { provider: string; providerRef: string }): Promise<void>;
}

export interface RecordedPayment {
  userId: string;
  provider: string;
  /** The invoice ledger's provider_ref of this payment. */
  providerRef: string;
  /** plan: a subscription payment (first or renewal); addon_instance: an add-on; other: a change's proration. */
  kind: 'plan' | 'addon_instance' | 'other';
  /** The amount of the subscription's plan, in minor units, net of tax and of add-ons where the provider says. */
  netMinor: number;
  currency: string;
}

export const noPaymentListener: PaymentListener = {
  paid: async () => {},
  refunded: async () => {},
};

/** A decimal amount in currency units (12.34) in minor units (1234). */
export const toMinor = (amount: number): number => Math.round(amount * 100);
