// The affiliate programme's terms and messages, and what every affiliate service shares: money in
// minor units, the referral links, and the caller's own affiliate row.
import type { DbOrTx } from '../../db/database.ts';
import type { AffiliateRow } from '../../db/tables/affiliates.ts';
import { NotFoundError } from '../../lib/errors.ts';
import * as repo from './affiliates.repository.ts';

/** 20 % one-time commission on the first paid subscription payment. */
export const COMMISSION_PERCENT = 20;
/** The commission is held this long before a payout may take it; the referral cookie lives as long. */
export const HOLD_DAYS = 30;
export const ATTRIBUTION_DAYS = 30;
export const DEFAULT_MINIMUM_PAYOUT_MINOR = 50_00;
/**
 * A click's visitor hash (of the visitor's address and browser: the only per-visitor data a click
 * keeps) is cleared this many days after the click. It is needed only to count a visitor once a day;
 * the row itself (affiliate, time) stays for the statements until CLICK_RETENTION_MONTHS.
 */
export const CLICK_VISITOR_DATA_DAYS = 30;
/** Clicks are deleted this many months after the click, as the Affiliate Privacy Policy says ("up to 24 months"). */
export const CLICK_RETENTION_MONTHS = 24;
export const DAY_MS = 24 * 60 * 60 * 1000;

export const NOT_AN_AFFILIATE = 'Affiliate profile not found';
export const ALREADY_AFFILIATE = 'You are already an affiliate';
export const PAYPAL_EMAIL_REQUIRED = 'PayPal email is required';
export const BANK_REQUIRED = 'Bank account information is required';
export const CRYPTO_REQUIRED = 'Crypto wallet address is required';
export const INVALID_PAYPAL_EMAIL = 'Invalid PayPal email';
export const CODE_TAKEN = 'This referral code is already taken';
export const CODE_NOT_FOUND = 'Referral code not found';
export const INVALID_PAYOUT_AMOUNT = 'Please enter a valid payout amount';
export const minimumPayoutMessage = (min: string) => `Minimum payout amount is $${min}`;
export const PAYOUT_EXCEEDS_BALANCE = 'Payout amount cannot exceed pending payout balance';
export const PAYOUT_NOT_FOUND = 'Payout not found';
export const PAYOUT_PROCESSED = 'This payout was already processed';

/** Minor units as currency units (1234 → 12.34). */
export const units = (minor: number | string): number => Number(minor) / 100;
export const iso = (d: Date) => d.toISOString();

/** The links an affiliate shares: registration and the home page, both with their code. */
export const referralLinks = (publicUrl: string, code: string) => ({
  referralLink: `${publicUrl}/register?ref=${encodeURIComponent(code)}`,
  homepageLink: `${publicUrl}/?ref=${encodeURIComponent(code)}`,
});

/** The caller's affiliate row; a user without one gets 404 (the UI sends them to apply). */
export async function ownAffiliate(db: DbOrTx, userId: string): Promise<AffiliateRow> {
  const row = await repo.findAffiliateByUser(db, userId);
  if (!row) throw new NotFoundError(NOT_AN_AFFILIATE);
  return row;
}
