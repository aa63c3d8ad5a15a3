import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('invoices')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('amount', 'numeric(12, 2)', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('date', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('paid', 'open', 'void', 'uncollectible', 'refunded')`),
    )
    .addColumn('provider', 'text', (c) =>
      c.notNull().check(sql`provider in ('stripe', 'paypal_business', 'paypal_standard', 'metamask')`),
    )
    .addColumn('download_url', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index invoices_user_date_idx on invoices (user_id, date desc)`.execute(db);

  // When the "subscription ended" notice for the current paid period went out (null: not yet).
  await db.schema.alterTable('subscriptions').addColumn('period_ended_sent_at', 'timestamptz').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscriptions').dropColumn('period_ended_sent_at').execute();
  await db.schema.dropTable('invoices').execute();
}
