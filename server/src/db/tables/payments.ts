import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

export type PaymentProviderId = 'stripe' | 'paypal_business' | 'paypal_standard' | 'metamask';
export type MetaMaskChainId = '0xaa36a7' | '0x89';

/** numeric columns: pg answers them as strings. */
type Numeric = ColumnType<string, string | number | undefined, string | number>;

/** One row (id = 1), written by admins; a missing row means the defaults. */
export interface PaymentSettingsTable {
  id: ColumnType<1, 1, never>;
  currency: ColumnType<'USD' | 'EUR' | 'GBP', 'USD' | 'EUR' | 'GBP' | undefined>;
  starter_price: Numeric;
  pro_price: Numeric;
  addon_price: Numeric;
  /** Days each plan keeps instance backups. */
  starter_backup_days: ColumnType<number, number | undefined, number>;
  pro_backup_days: ColumnType<number, number | undefined, number>;
  stripe_enabled: ColumnType<boolean, boolean | undefined>;
  paypal_business_enabled: ColumnType<boolean, boolean | undefined>;
  paypal_standard_enabled: ColumnType<boolean, boolean | undefined>;
  metamask_enabled: ColumnType<boolean, boolean | undefined>;
  metamask_receiver: string | null;
  metamask_chain_id: MetaMaskChainId | null;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export type PaymentOrderStatus =
  | 'pending'
  | 'completed'
  | 'cancelled'
  | 'failed'
  | 'submitted'
  | 'verified'
  | 'rejected';

/** One attempt to pay (a Checkout Session, a PayPal order or subscription, a MetaMask transaction). */
export interface PaymentOrderTable {
  id: Generated<string>;
  user_id: string;
  provider: PaymentProviderId;
  kind: 'plan' | 'addon_instance';
  plan: 'starter' | 'pro';
  billing_cycle: 'monthly' | 'yearly';
  amount: ColumnType<string, string | number, string | number>;
  currency: string;
  status: ColumnType<PaymentOrderStatus, PaymentOrderStatus | undefined, PaymentOrderStatus>;
  provider_ref: string | null;
  chain_id: string | null;
  from_address: string | null;
  verification: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** A provider webhook event, kept once per (provider, event_id). */
export interface PaymentEventTable {
  provider: string;
  event_id: string;
  type: string;
  payload: ColumnType<unknown, string, never>;
  received_at: ColumnType<Date, never, never>;
}

export type PaymentSettingsRow = Selectable<PaymentSettingsTable>;
export type PaymentOrderRow = Selectable<PaymentOrderTable>;
export type NewPaymentOrderRow = Insertable<PaymentOrderTable>;
export type PaymentOrderUpdate = Updateable<PaymentOrderTable>;
