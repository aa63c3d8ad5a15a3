import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// The affiliate programme: profiles, clicks, referrals, a commission ledger and payouts. Amounts are
// integer minor units (cents); every balance is a sum over affiliate_ledger, never a stored counter.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('affiliates')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().unique().references('users.id').onDelete('cascade'))
    // Stored upper-cased; what links carry as ?ref=.
    .addColumn('referral_code', 'text', (c) =>
      c.notNull().unique().check(sql`referral_code ~ '^[A-Z0-9_-]{3,32}$'`),
    )
    .addColumn('referral_name', 'text')
    .addColumn('referral_number', 'text')
    .addColumn('website', 'text')
    .addColumn('payment_method', 'text', (c) =>
      c.notNull().check(sql`payment_method in ('paypal', 'bank', 'crypto')`),
    )
    // JSON of the payout details, encrypted with the app's cipher (never stored in clear).
    .addColumn('payment_details', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().defaultTo('active').check(sql`status in ('active', 'suspended')`),
    )
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // One row per visitor per affiliate per day (a second click the same day counts nothing).
  await db.schema
    .createTable('affiliate_clicks')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('affiliate_id', 'uuid', (c) => c.notNull().references('affiliates.id').onDelete('cascade'))
    // A hash of the visitor (client address and user agent): no address is stored.
    .addColumn('visitor_key', 'text', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('affiliate_clicks_visitor_day_key', ['affiliate_id', 'visitor_key', 'day'])
    .execute();
  await sql`create index affiliate_clicks_affiliate_idx on affiliate_clicks (affiliate_id, created_at)`.execute(
    db,
  );

  // Who referred whom: set once, at registration.
  await db.schema
    .createTable('affiliate_referrals')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('affiliate_id', 'uuid', (c) => c.notNull().references('affiliates.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid', (c) => c.notNull().unique().references('users.id').onDelete('cascade'))
    .addColumn('click_id', 'uuid', (c) => c.references('affiliate_clicks.id').onDelete('set null'))
    // The first paid subscription payment (provider:ref) and when; set once, whatever came of it.
    .addColumn('first_payment_ref', 'text')
    .addColumn('first_payment_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await sql`create index affiliate_referrals_affiliate_idx on affiliate_referrals (affiliate_id, created_at)`.execute(
    db,
  );

  await db.schema
    .createTable('affiliate_payouts')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('affiliate_id', 'uuid', (c) => c.notNull().references('affiliates.id').onDelete('cascade'))
    .addColumn('amount_minor', 'bigint', (c) => c.notNull().check(sql`amount_minor > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().defaultTo('pending').check(sql`status in ('pending', 'completed', 'failed')`),
    )
    .addColumn('transaction_id', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('requested_at', 'timestamptz', (c) => c.notNull())
    .addColumn('processed_at', 'timestamptz')
    .execute();
  await sql`create index affiliate_payouts_affiliate_idx on affiliate_payouts (affiliate_id, requested_at desc)`.execute(
    db,
  );

  // The money. commission (+, held until available_at), clawback (- inside the hold), adjustment
  // (- after the hold), payout (- when requested), payout_reversal (+ when a payout fails).
  await db.schema
    .createTable('affiliate_ledger')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('affiliate_id', 'uuid', (c) => c.notNull().references('affiliates.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) =>
      c.notNull().check(sql`kind in ('commission', 'clawback', 'adjustment', 'payout', 'payout_reversal')`),
    )
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('available_at', 'timestamptz', (c) => c.notNull())
    .addColumn('referral_id', 'uuid', (c) => c.references('affiliate_referrals.id').onDelete('set null'))
    // The payment (invoice ledger: provider and provider_ref) a commission or its reversal comes from.
    .addColumn('source_provider', 'text')
    .addColumn('source_ref', 'text')
    .addColumn('payout_id', 'uuid', (c) => c.references('affiliate_payouts.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  // Exactly once: one entry of a kind per source payment, one commission per referral, one per payout.
  await sql`create unique index affiliate_ledger_source_idx on affiliate_ledger (kind, source_provider, source_ref)
    where source_ref is not null`.execute(db);
  await sql`create unique index affiliate_ledger_commission_idx on affiliate_ledger (referral_id)
    where kind = 'commission'`.execute(db);
  await sql`create unique index affiliate_ledger_payout_idx on affiliate_ledger (kind, payout_id)
    where payout_id is not null`.execute(db);
  await sql`create index affiliate_ledger_affiliate_idx on affiliate_ledger (affiliate_id, created_at)`.execute(
    db,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('affiliate_ledger').ifExists().execute();
  await db.schema.dropTable('affiliate_payouts').ifExists().execute();
  await db.schema.dropTable('affiliate_referrals').ifExists().execute();
  await db.schema.dropTable('affiliate_clicks').ifExists().execute();
  await db.schema.dropTable('affiliates').ifExists().execute();
}
