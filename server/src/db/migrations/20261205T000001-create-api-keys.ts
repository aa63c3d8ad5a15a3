import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  // One API key per user (Pro developers). Only the SHA-256 of the key is kept; `last4` lets the owner
  // recognise it. Regenerating replaces hash and last4 in place, so the old key stops at once.
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().unique().references('users.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('notes', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', 'timestamptz')
    .execute();

  // First answers of /api/v1 requests sent with an Idempotency-Key, replayed for 24 hours. `status` is
  // null while the first request is still running.
  await db.schema
    .createTable('api_idempotency')
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('body', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('api_idempotency_pkey', ['user_id', 'key'])
    .execute();
  // Every /api/v1 request counts against its key here (one UPSERT each). The counters need no crash
  // safety (after a crash they restart at zero), so the table skips the write-ahead log: the write no
  // longer waits for a WAL flush. Applies to every limiter (sign-in, reset, contact) alike.
  await sql`alter table rate_limits set unlogged`.execute(db);
  await db.schema
    .createIndex('api_idempotency_created_at')
    .on('api_idempotency')
    .column('created_at')
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table rate_limits set logged`.execute(db);
  await db.schema.dropTable('api_idempotency').execute();
  await db.schema.dropTable('api_keys').execute();
}
