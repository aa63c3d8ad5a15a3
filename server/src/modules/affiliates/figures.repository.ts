import { type RawBuilder, sql } from 'kysely';
import type { DbOrTx } from '../../db/database.ts';
import type { AffiliateLedgerKind } from '../../db/tables/affiliates.ts';

// The reads of an affiliate's figures: referrals, clicks and earnings, in all and per month.

export async function referralCounts(db: DbOrTx, affiliateId: string) {
  const row = await db
    .selectFrom('affiliate_referrals')
    .select([
      sql<string>`count(*)`.as('total'),
      sql<string>`count(*) filter (where first_payment_at is not null)`.as('active'),
    ])
    .where('affiliate_id', '=', affiliateId)
    .executeTakeFirstOrThrow();
  return { total: Number(row.total), active: Number(row.active) };
}

export async function clickCount(db: DbOrTx, affiliateId: string): Promise<number> {
  const row = await db
    .selectFrom('affiliate_clicks')
    .select(sql<string>`count(*)`.as('n'))
    .where('affiliate_id', '=', affiliateId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface MonthFigures {
  clicks: number;
  referrals: number;
  activeReferrals: number;
  /** Net commission (commissions less reversals) created in the month, minor units. */
  earnings: number;
}

/**
 * Where one monthly figure comes from: the table, the moment that places a row in its month, the
 * aggregate, and (ledger only) which kinds of entry count.
 */
type MonthlySource =
  | { table: 'affiliate_clicks'; at: 'created_at'; total: RawBuilder<string> }
  | { table: 'affiliate_referrals'; at: 'created_at' | 'first_payment_at'; total: RawBuilder<string> }
  | {
      table: 'affiliate_ledger';
      at: 'created_at';
      total: RawBuilder<string>;
      kinds: readonly AffiliateLedgerKind[];
    };

/** One figure of an affiliate per calendar month (UTC, 'YYYY-MM') for rows with `at` in [from, to). */
function perMonth(db: DbOrTx, affiliateId: string, from: Date, to: Date, source: MonthlySource) {
  let q = db
    .selectFrom(source.table)
    .select([
      sql<string>`to_char(${sql.ref(source.at)} at time zone 'UTC', 'YYYY-MM')`.as('m'),
      source.total.as('n'),
    ])
    .where('affiliate_id', '=', affiliateId)
    .where(source.at, '>=', from)
    .where(source.at, '<', to);
  if ('kinds' in source) q = q.where('kind', 'in', source.kinds);
  return q.groupBy('m').execute();
}

const COUNT = sql<string>`count(*)`;

/** Figures per calendar month (UTC) between `from` (inclusive) and `to` (exclusive), keyed 'YYYY-MM'. */
export async function monthlyFigures(
  db: DbOrTx,
  affiliateId: string,
  from: Date,
  to: Date,
): Promise<Map<string, MonthFigures>> {
  const figure = (source: MonthlySource) => perMonth(db, affiliateId, from, to, source);
  const [clicks, referrals, active, earnings] = await Promise.all([
    figure({ table: 'affiliate_clicks', at: 'created_at', total: COUNT }),
    figure({ table: 'affiliate_referrals', at: 'created_at', total: COUNT }),
    // An active referral counts in the month of its first payment.
    figure({ table: 'affiliate_referrals', at: 'first_payment_at', total: COUNT }),
    figure({
      table: 'affiliate_ledger',
      at: 'created_at',
      total: sql<string>`sum(amount_minor)`,
      kinds: ['commission', 'clawback', 'adjustment'],
    }),
  ]);
  const out = new Map<string, MonthFigures>();
  const at = (m: string) => {
    let f = out.get(m);
    if (!f) {
      f = { clicks: 0, referrals: 0, activeReferrals: 0, earnings: 0 };
      out.set(m, f);
    }
    return f;
  };
  for (const r of clicks) at(r.m).clicks = Number(r.n);
  for (const r of referrals) at(r.m).referrals = Number(r.n);
  for (const r of active) at(r.m).activeReferrals = Number(r.n);
  for (const r of earnings) at(r.m).earnings = Number(r.n);
  return out;
}
