import { sql } from 'kysely';
import type { DbOrTx } from '../../db/database.ts';
import type {
  AffiliateLedgerKind,
  AffiliatePayoutRow,
  AffiliateReferralRow,
  AffiliateRow,
  NewAffiliateRow,
} from '../../db/tables/affiliates.ts';

/**
 * The SQL of the affiliate programme but its monthly figures (figures.repository.ts). Amounts are minor
 * units; bigint sums come back as numbers.
 */

export const findAffiliateByUser = (db: DbOrTx, userId: string): Promise<AffiliateRow | undefined> =>
  db.selectFrom('affiliates').selectAll().where('user_id', '=', userId).executeTakeFirst();

export const findAffiliateByCode = (db: DbOrTx, code: string): Promise<AffiliateRow | undefined> =>
  db
    .selectFrom('affiliates')
    .selectAll()
    .where('referral_code', '=', code)
    .where('status', '=', 'active')
    .executeTakeFirst();

/** The user an affiliate profile belongs to. */
export async function userOfAffiliate(db: DbOrTx, affiliateId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('affiliates')
    .select('user_id')
    .where('id', '=', affiliateId)
    .executeTakeFirst();
  return row?.user_id;
}

/** The affiliate row, locked until the transaction ends (payout requests are serialised per affiliate). */
export const lockAffiliate = (db: DbOrTx, id: string): Promise<AffiliateRow | undefined> =>
  db.selectFrom('affiliates').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();

export const insertAffiliate = (db: DbOrTx, row: NewAffiliateRow): Promise<AffiliateRow> =>
  db.insertInto('affiliates').values(row).returningAll().executeTakeFirstOrThrow();

export const updateAffiliate = (
  db: DbOrTx,
  id: string,
  set: Partial<
    Pick<
      AffiliateRow,
      | 'referral_code'
      | 'referral_name'
      | 'referral_number'
      | 'website'
      | 'payment_method'
      | 'payment_details'
      | 'updated_at'
    >
  >,
): Promise<AffiliateRow> =>
  db.updateTable('affiliates').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

/** Inserts today's click of a visitor, or answers the one already there (a click counts once a day). */
export async function recordClick(
  db: DbOrTx,
  click: { affiliateId: string; visitorKey: string; day: string; at: Date },
): Promise<{ id: string; counted: boolean }> {
  const inserted = await db
    .insertInto('affiliate_clicks')
    .values({
      affiliate_id: click.affiliateId,
      visitor_key: click.visitorKey,
      day: click.day,
      created_at: click.at,
    })
    .onConflict((oc) => oc.columns(['affiliate_id', 'visitor_key', 'day']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { id: inserted.id, counted: true };
  const existing = await db
    .selectFrom('affiliate_clicks')
    .select('id')
    .where('affiliate_id', '=', click.affiliateId)
    .where('visitor_key', '=', click.visitorKey)
    .where('day', '=', sql<Date>`${click.day}::date`)
    .executeTakeFirstOrThrow();
  return { id: existing.id, counted: false };
}

/**
 * Clears the visitor hash of the clicks made before a moment (the row, its affiliate and time stay:
 * they are the statement's click counts); answers how many clicks lost theirs.
 */
export async function deleteClicksBefore(db: DbOrTx, before: Date): Promise<number> {
  const result = await db.deleteFrom('affiliate_clicks').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function clearVisitorKeysBefore(db: DbOrTx, before: Date): Promise<number> {
  const result = await db
    .updateTable('affiliate_clicks')
    .set({ visitor_key: null })
    .where('created_at', '<', before)
    .where('visitor_key', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export const findClick = (db: DbOrTx, id: string) =>
  db
    .selectFrom('affiliate_clicks')
    .select(['id', 'affiliate_id', 'created_at'])
    .where('id', '=', id)
    .executeTakeFirst();

export async function insertReferral(
  db: DbOrTx,
  r: { affiliateId: string; userId: string; clickId: string | null; at: Date },
): Promise<void> {
  await db
    .insertInto('affiliate_referrals')
    .values({ affiliate_id: r.affiliateId, user_id: r.userId, click_id: r.clickId, created_at: r.at })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
}

export const lockReferralOfUser = (db: DbOrTx, userId: string): Promise<AffiliateReferralRow | undefined> =>
  db
    .selectFrom('affiliate_referrals')
    .selectAll()
    .where('user_id', '=', userId)
    .forUpdate()
    .executeTakeFirst();

export async function markFirstPayment(db: DbOrTx, referralId: string, ref: string, at: Date): Promise<void> {
  await db
    .updateTable('affiliate_referrals')
    .set({ first_payment_ref: ref, first_payment_at: at })
    .where('id', '=', referralId)
    .execute();
}

export interface LedgerEntry {
  affiliateId: string;
  kind: AffiliateLedgerKind;
  amountMinor: number;
  currency: string;
  availableAt: Date;
  at: Date;
  referralId?: string | null;
  source?: { provider: string; ref: string };
  payoutId?: string;
}

/**
 * Adds a ledger entry; answers false when it exists already (a payment's commission, a referral's
 * commission, a payout's entry of a kind: unique indexes).
 */
export async function insertLedgerEntry(db: DbOrTx, e: LedgerEntry): Promise<boolean> {
  const row = await db
    .insertInto('affiliate_ledger')
    .values({
      affiliate_id: e.affiliateId,
      kind: e.kind,
      amount_minor: e.amountMinor,
      currency: e.currency,
      available_at: e.availableAt,
      referral_id: e.referralId ?? null,
      source_provider: e.source?.provider ?? null,
      source_ref: e.source?.ref ?? null,
      payout_id: e.payoutId ?? null,
      created_at: e.at,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The commission earned from one source payment, locked until the transaction ends (its refunds are
 * then taken back one after the other).
 */
export const lockCommissionOfSource = (db: DbOrTx, provider: string, ref: string) =>
  db
    .selectFrom('affiliate_ledger')
    .selectAll()
    .where('kind', '=', 'commission')
    .where('source_provider', '=', provider)
    .where('source_ref', '=', ref)
    .forUpdate()
    .executeTakeFirst();

/**
 * What refunds of one source payment took back so far (clawbacks and adjustments, as a positive
 * amount). Read after lockCommissionOfSource, in its own statement, so it sees every reversal committed
 * by a transaction that held the lock before.
 */
export async function reversedOfSource(db: DbOrTx, provider: string, ref: string): Promise<number> {
  const row = await db
    .selectFrom('affiliate_ledger')
    .select(sql<string>`coalesce(-sum(amount_minor), 0)`.as('taken'))
    .where('kind', 'in', ['clawback', 'adjustment'])
    .where('source_provider', '=', provider)
    .where('source_ref', '=', ref)
    .executeTakeFirstOrThrow();
  return Number(row.taken);
}

export interface Balances {
  /** Every entry: what is owed to the affiliate and not yet paid out or requested. */
  balance: number;
  /** Entries whose hold has ended: what a payout may take. */
  available: number;
  /** Commissions less clawbacks and adjustments, ever. */
  earned: number;
}

export async function balances(db: DbOrTx, affiliateId: string, at: Date): Promise<Balances> {
  const row = await db
    .selectFrom('affiliate_ledger')
    .select([
      sql<string>`coalesce(sum(amount_minor), 0)`.as('balance'),
      sql<string>`coalesce(sum(amount_minor) filter (where available_at <= ${at}), 0)`.as('available'),
      sql<string>`coalesce(sum(amount_minor) filter (where kind in ('commission', 'clawback', 'adjustment')), 0)`.as(
        'earned',
      ),
    ])
    .where('affiliate_id', '=', affiliateId)
    .executeTakeFirstOrThrow();
  return { balance: Number(row.balance), available: Number(row.available), earned: Number(row.earned) };
}

/** The ledger balance as it stood at a moment (entries created before it). */
export async function balanceAt(db: DbOrTx, affiliateId: string, at: Date): Promise<number> {
  const row = await db
    .selectFrom('affiliate_ledger')
    .select(sql<string>`coalesce(sum(amount_minor), 0)`.as('balance'))
    .where('affiliate_id', '=', affiliateId)
    .where('created_at', '<', at)
    .executeTakeFirstOrThrow();
  return Number(row.balance);
}

export const listPayouts = (db: DbOrTx, affiliateId: string): Promise<AffiliatePayoutRow[]> =>
  db
    .selectFrom('affiliate_payouts')
    .selectAll()
    .where('affiliate_id', '=', affiliateId)
    .orderBy('requested_at', 'desc')
    .execute();

export const insertPayout = (
  db: DbOrTx,
  p: { affiliateId: string; amountMinor: number; currency: string; method: string; at: Date },
): Promise<AffiliatePayoutRow> =>
  db
    .insertInto('affiliate_payouts')
    .values({
      affiliate_id: p.affiliateId,
      amount_minor: p.amountMinor,
      currency: p.currency,
      method: p.method,
      requested_at: p.at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();

export const lockPayout = (db: DbOrTx, id: string): Promise<AffiliatePayoutRow | undefined> =>
  db.selectFrom('affiliate_payouts').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();

export const updatePayout = (
  db: DbOrTx,
  id: string,
  set: Partial<Pick<AffiliatePayoutRow, 'status' | 'transaction_id' | 'failure_reason' | 'processed_at'>>,
): Promise<AffiliatePayoutRow> =>
  db.updateTable('affiliate_payouts').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

/** Payout requests for admins, with who asked (newest first). */
export const listAllPayouts = (db: DbOrTx, status: AffiliatePayoutRow['status'] | undefined) => {
  let q = db
    .selectFrom('affiliate_payouts as p')
    .innerJoin('affiliates as a', 'a.id', 'p.affiliate_id')
    .innerJoin('users as u', 'u.id', 'a.user_id')
    .selectAll('p')
    .select([
      'a.user_id',
      'a.referral_code',
      'a.payment_method',
      'a.payment_details',
      'u.username',
      'u.email',
    ])
    .orderBy('p.requested_at', 'desc')
    .limit(200);
  if (status) q = q.where('p.status', '=', status);
  return q.execute();
};

/** The store's currency (payment settings; USD before an admin sets one). */
export async function storeCurrency(db: DbOrTx): Promise<string> {
  const row = await db
    .selectFrom('payment_settings')
    .select('currency')
    .where('id', '=', 1)
    .executeTakeFirst();
  return row?.currency ?? 'USD';
}

/** The account's e-mail (the PayPal e-mail's fallback). */
export async function emailOfUser(db: DbOrTx, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
  return row?.email;
}
