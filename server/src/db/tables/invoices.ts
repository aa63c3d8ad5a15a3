import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** A payment taken by a provider (a manual admin grant records none). */
export interface InvoiceTable {
  id: Generated<string>;
  user_id: string;
  /** numeric(12,2): pg answers it as a string. */
  amount: ColumnType<string, string | number, string | number>;
  currency: string;
  description: string;
  date: ColumnType<Date, Date | undefined, Date>;
  status: 'paid' | 'open' | 'void' | 'uncollectible' | 'refunded';
  provider: 'stripe' | 'paypal_business' | 'paypal_standard' | 'metamask';
  download_url: string | null;
  /** The provider's id of this payment (Stripe invoice, PayPal capture or sale, transaction hash). */
  provider_ref: string | null;
  order_id: string | null;
  /** numeric(12,2): the sum refunded so far (partial refunds add up; equal to amount when fully refunded). */
  refunded_amount: ColumnType<string, string | number | undefined, string | number>;
  /**
   * The provider's id of the money movement when provider_ref names something else (a PayPal
   * subscription's first payment is `<subscription>:1`; its sale id is kept here), so refunds find it.
   */
  payment_ref: string | null;
  created_at: ColumnType<Date, never, never>;
}

export type InvoiceRow = Selectable<InvoiceTable>;
export type NewInvoiceRow = Insertable<InvoiceTable>;

/** One refund a provider reported, kept once (a resent event adds nothing). */
export interface PaymentRefundTable {
  provider: string;
  /** The provider's refund id, or `charge:<id>` for Stripe (its charge reports the total refunded). */
  refund_ref: string;
  invoice_id: string;
  amount: ColumnType<string, string | number, string | number>;
  created_at: ColumnType<Date, never, never>;
}
