import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  // One-time tokens that make the first admin, printed at start while no admin exists (hash only).
  await db.schema
    .createTable('setup_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('setup_tokens').execute();
}
