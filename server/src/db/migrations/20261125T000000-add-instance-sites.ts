import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('instances')
    // WordPress: site title, admin user name and e-mail, PHP version (the admin password is in the secret).
    .addColumn('site', 'jsonb')
    .addColumn('url', 'text')
    .addColumn('admin_url', 'text')
    .addColumn('custom_domain', 'text')
    .addColumn('domain_added_at', 'timestamptz')
    // The last SSL probe of the custom domain: { status, message, lastChecked, expiresAt }.
    .addColumn('ssl', 'jsonb')
    .execute();
  await sql`create unique index instances_custom_domain_idx on instances (custom_domain) where custom_domain is not null`.execute(
    db,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists instances_custom_domain_idx`.execute(db);
  await db.schema
    .alterTable('instances')
    .dropColumn('site')
    .dropColumn('url')
    .dropColumn('admin_url')
    .dropColumn('custom_domain')
    .dropColumn('domain_added_at')
    .dropColumn('ssl')
    .execute();
}
