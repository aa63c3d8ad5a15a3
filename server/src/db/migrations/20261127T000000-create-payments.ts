import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  // One row (id = 1): what an admin sets for billing. Prices are per month, in `currency`.
  await db.schema
    .createTable('payment_settings')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('currency', 'text', (c) =>
      c.notNull().defaultTo('USD').check(sql`currency in ('USD', 'EUR', 'GBP')`),
    )
    .addColumn('starter_price', 'numeric(10, 2)', (c) => c.notNull().defaultTo('3.99'))
    .addColumn('pro_price', 'numeric(10, 2)', (c) => c.notNull().defaultTo('19.99'))
    .addColumn('addon_price', 'numeric(10, 2)', (c) => c.notNull().defaultTo('3.99'))
    .addColumn('stripe_enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('paypal_business_enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('paypal_standard_enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('metamask_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('metamask_receiver', 'text')
    .addColumn('metamask_chain_id', 'text', (c) => c.check(sql`metamask_chain_id in ('0xaa36a7', '0x89')`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`insert into payment_settings (id) values (1)`.execute(db);

  // One attempt to pay: a Stripe Checkout Session, a PayPal order or subscription, a MetaMask transaction.
  await db.schema
    .createTable('payment_orders')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) =>
      c.notNull().check(sql`provider in ('stripe', 'paypal_business', 'paypal_standard', 'metamask')`),
    )
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('plan', 'addon_instance')`))
    .addColumn('plan', 'text', (c) => c.notNull().check(sql`plan in ('starter', 'pro')`))
    .addColumn('billing_cycle', 'text', (c) => c.notNull().check(sql`billing_cycle in ('monthly', 'yearly')`))
    .addColumn('amount', 'numeric(12, 2)', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pending')
        .check(
          sql`status in ('pending', 'completed', 'cancelled', 'failed', 'submitted', 'verified', 'rejected')`,
        ),
    )
    // Checkout Session id, PayPal order or subscription id, or the MetaMask transaction hash.
    .addColumn('provider_ref', 'text')
    .addColumn('chain_id', 'text')
    .addColumn('from_address', 'text')
    // What the on-chain check found (MetaMask), for the admin who approves.
    .addColumn('verification', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index payment_orders_provider_ref_idx on payment_orders (provider, provider_ref)`.execute(
    db,
  );
  await sql`create index payment_orders_user_idx on payment_orders (user_id, created_at desc)`.execute(db);

  // Every provider webhook event, stored once: a redelivered event changes nothing.
  await db.schema
    .createTable('payment_events')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('payment_events_pk', ['provider', 'event_id'])
    .execute();

  await db.schema
    .alterTable('subscriptions')
    .addColumn('provider', 'text', (c) =>
      c.check(sql`provider in ('stripe', 'paypal_business', 'paypal_standard', 'metamask', 'manual')`),
    )
    .addColumn('provider_subscription_id', 'text')
    .addColumn('stripe_customer_id', 'text', (c) => c.unique())
    .execute();

  await db.schema
    .alterTable('invoices')
    .addColumn('provider_ref', 'text')
    .addColumn('order_id', 'uuid', (c) => c.references('payment_orders.id').onDelete('set null'))
    .execute();
  await sql`create unique index invoices_provider_ref_idx on invoices (provider, provider_ref)`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoices').dropColumn('provider_ref').dropColumn('order_id').execute();
  await db.schema
    .alterTable('subscriptions')
    .dropColumn('provider')
    .dropColumn('provider_subscription_id')
    .dropColumn('stripe_customer_id')
    .execute();
  await db.schema.dropTable('payment_events').execute();
  await db.schema.dropTable('payment_orders').execute();
  await db.schema.dropTable('payment_settings').execute();
}
