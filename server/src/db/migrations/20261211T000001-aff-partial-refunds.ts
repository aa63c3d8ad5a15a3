import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// Partial refunds. Every refund a provider reports is kept once (payment_refunds); an invoice carries
// the sum refunded so far (refunded_amount) and, where the provider names the money movement apart from
// the invoice's own id (a PayPal subscription's first sale), that id (payment_ref), so a refund of it
// finds the invoice. The affiliate ledger may now hold several reversals of one commission (one per
// partial refund), so only commissions stay unique per source payment.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('invoices')
    .addColumn('refunded_amount', 'numeric(12, 2)', (c) => c.notNull().defaultTo(0))
    .addColumn('payment_ref', 'text')
    .execute();
  await sql`create index invoices_payment_ref_idx on invoices (provider, payment_ref) where payment_ref is not null`.execute(
    db,
  );

  // refund_ref: the provider's refund id (PayPal), or `charge:<id>` for Stripe, whose charge reports the
  // amount refunded so far (one row per charge, raised to the latest total).
  await db.schema
    .createTable('payment_refunds')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('refund_ref', 'text', (c) => c.notNull())
    .addColumn('invoice_id', 'uuid', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('amount', 'numeric(12, 2)', (c) => c.notNull().check(sql`amount >= 0`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('payment_refunds_pkey', ['provider', 'refund_ref'])
    .execute();
  await sql`create index payment_refunds_invoice_idx on payment_refunds (invoice_id)`.execute(db);

  await sql`drop index affiliate_ledger_source_idx`.execute(db);
  await sql`create unique index affiliate_ledger_commission_source_idx on affiliate_ledger (source_provider, source_ref)
    where kind = 'commission' and source_ref is not null`.execute(db);
  await sql`create index affiliate_ledger_source_idx on affiliate_ledger (source_provider, source_ref)
    where source_ref is not null`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index affiliate_ledger_source_idx`.execute(db);
  await sql`drop index affiliate_ledger_commission_source_idx`.execute(db);
  await sql`create unique index affiliate_ledger_source_idx on affiliate_ledger (kind, source_provider, source_ref)
    where source_ref is not null`.execute(db);
  await db.schema.dropTable('payment_refunds').execute();
  await db.schema.alterTable('invoices').dropColumn('payment_ref').dropColumn('refunded_amount').execute();
}
