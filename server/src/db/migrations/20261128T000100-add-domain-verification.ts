import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// A custom domain is recorded as pending with a verification token and attached only once a DNS TXT
// record proves the account controls it. Domains attached before this migration count as attached.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('instances')
    // pending | verified | attached | failed; null without a custom domain.
    .addColumn('domain_status', 'text', (col) =>
      col.check(sql`domain_status in ('pending', 'verified', 'attached', 'failed')`),
    )
    // The value the TXT record `_berth-verify.<domain>` must hold: `berth-verify=<token>`.
    .addColumn('domain_token', 'text')
    .addColumn('domain_checked_at', 'timestamptz')
    // What the last check found (shown to the customer).
    .addColumn('domain_message', 'text')
    .execute();
  await sql`
    update instances
       set domain_status = 'attached',
           domain_token = md5(random()::text || clock_timestamp()::text || id::text),
           domain_message = 'Attached before domain verification existed'
     where custom_domain is not null`.execute(db);
  await sql`alter table instances add constraint instances_domain_state_check check (
    (custom_domain is null and domain_status is null and domain_token is null)
    or (custom_domain is not null and domain_status is not null and domain_token is not null))`.execute(db);
  // Several accounts may have the same domain pending (whoever proves it first gets it): only a
  // verified or attached domain is unique over all instances.
  await sql`drop index if exists instances_custom_domain_idx`.execute(db);
  await sql`create unique index instances_custom_domain_idx on instances (custom_domain)
    where domain_status in ('verified', 'attached')`.execute(db);
  // The background checks look for pending and verified domains.
  await sql`create index instances_domain_status_idx on instances (domain_status, domain_checked_at)
    where domain_status in ('pending', 'verified')`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists instances_domain_status_idx`.execute(db);
  await sql`drop index if exists instances_custom_domain_idx`.execute(db);
  await sql`update instances set custom_domain = null, domain_added_at = null, ssl = null
    where domain_status is distinct from 'attached'`.execute(db);
  await sql`alter table instances drop constraint if exists instances_domain_state_check`.execute(db);
  await db.schema
    .alterTable('instances')
    .dropColumn('domain_status')
    .dropColumn('domain_token')
    .dropColumn('domain_checked_at')
    .dropColumn('domain_message')
    .execute();
  await sql`create unique index instances_custom_domain_idx on instances (custom_domain) where custom_domain is not null`.execute(
    db,
  );
}
