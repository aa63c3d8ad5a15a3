import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** bigint columns: answered as numbers (db/create-db.ts parses int8; minor units stay far below 2^53). */
type Bigint = ColumnType<number, number, number>;

export type AffiliatePaymentMethod = 'paypal' | 'bank' | 'crypto';

export interface AffiliateTable {
  id: Generated<string>;
  user_id: string;
  /** Upper-cased, unique. */
  referral_code: string;
  referral_name: string | null;
  referral_number: string | null;
  website: string | null;
  payment_method: AffiliatePaymentMethod;
  /** Encrypted JSON of the payout details (lib/crypto.ts Cipher). */
  payment_details: string;
  status: ColumnType<'active' | 'suspended', 'active' | 'suspended' | undefined>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface AffiliateClickTable {
  id: Generated<string>;
  affiliate_id: string;
  /** Hash of the visitor's address and browser (the once-a-day count); null once the click is old. */
  visitor_key: string | null;
  /** date: answered as a Date at midnight UTC; written as 'YYYY-MM-DD'. */
  day: ColumnType<Date, string, never>;
  created_at: Date;
}

export interface AffiliateReferralTable {
  id: Generated<string>;
  affiliate_id: string;
  user_id: string;
  click_id: string | null;
  first_payment_ref: string | null;
  first_payment_at: Date | null;
  created_at: Date;
}

export type AffiliateLedgerKind = 'commission' | 'clawback' | 'adjustment' | 'payout' | 'payout_reversal';

export interface AffiliateLedgerTable {
  id: Generated<string>;
  affiliate_id: string;
  kind: AffiliateLedgerKind;
  amount_minor: Bigint;
  currency: string;
  available_at: Date;
  referral_id: string | null;
  source_provider: string | null;
  source_ref: string | null;
  payout_id: string | null;
  created_at: Date;
}

export type AffiliatePayoutStatus = 'pending' | 'completed' | 'failed';

export interface AffiliatePayoutTable {
  id: Generated<string>;
  affiliate_id: string;
  amount_minor: Bigint;
  currency: string;
  method: string;
  status: ColumnType<AffiliatePayoutStatus, AffiliatePayoutStatus | undefined, AffiliatePayoutStatus>;
  transaction_id: string | null;
  failure_reason: string | null;
  requested_at: Date;
  processed_at: Date | null;
}

export type AffiliateRow = Selectable<AffiliateTable>;
export type NewAffiliateRow = Insertable<AffiliateTable>;
export type AffiliateReferralRow = Selectable<AffiliateReferralTable>;
export type AffiliateLedgerRow = Selectable<AffiliateLedgerTable>;
export type AffiliatePayoutRow = Selectable<AffiliatePayoutTable>;
