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
  created_at: ColumnType<Date, never, never>;
}

export type InvoiceRow = Selectable<InvoiceTable>;
export type NewInvoiceRow = Insertable<InvoiceTable>;
