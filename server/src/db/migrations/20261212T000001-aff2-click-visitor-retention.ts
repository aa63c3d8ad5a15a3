import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// Click rows are kept (their affiliate and time make every year's statement); only the visitor hash,
// which the once-per-visitor-per-day count needs, is cleared after a short while. So visitor_key may be
// null. The unique (affiliate_id, visitor_key, day) key still dedupes today's clicks: PostgreSQL treats
// nulls as distinct, and only old days lose their hash.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('affiliate_clicks')
    .alterColumn('visitor_key', (c) => c.dropNotNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  // A cleared hash becomes a placeholder unique to its row (the row still counts as one click).
  await sql`update affiliate_clicks set visitor_key = 'cleared:' || id where visitor_key is null`.execute(db);
  await db.schema
    .alterTable('affiliate_clicks')
    .alterColumn('visitor_key', (c) => c.setNotNull())
    .execute();
}
