import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// An instance's settings take the shape of its type (modules/instances/kinds/): the WordPress-shaped
// `site` column becomes `settings`. WordPress keeps { title, adminUser, adminEmail, phpVersion }; n8n,
// stored there as a site (title = its name, adminUser = the owner's first name, adminEmail = the owner's
// e-mail, phpVersion ''), becomes { ownerEmail, ownerFirstName }; databases keep null. What backups keep
// of a deleted instance (`deleted_instance.site`) is carried over the same way.

/** The n8n settings made of a WordPress-shaped jsonb `site`. */
const n8nOf = (site: string) =>
  sql.raw(
    `jsonb_build_object('ownerEmail', ${site}->>'adminEmail', 'ownerFirstName', ${site}->>'adminUser')`,
  );

/** The WordPress-shaped `site` of n8n settings. */
const siteOf = (settings: string, name: string) =>
  sql.raw(
    `jsonb_build_object('title', ${name}, 'adminUser', ${settings}->>'ownerFirstName', 'adminEmail', ${settings}->>'ownerEmail', 'phpVersion', '')`,
  );

// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table instances rename column site to settings`.execute(db);
  await sql`update instances set settings = ${n8nOf('settings')}
              where type = 'n8n' and settings is not null`.execute(db);
  await sql`update instance_backups
              set deleted_instance = (deleted_instance - 'site') || jsonb_build_object('settings',
                case when instance_type = 'n8n' and jsonb_typeof(deleted_instance->'site') = 'object'
                     then ${n8nOf("deleted_instance->'site'")}
                     else deleted_instance->'site' end)
              where deleted_instance is not null`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await sql`update instance_backups
              set deleted_instance = (deleted_instance - 'settings') || jsonb_build_object('site',
                case when instance_type = 'n8n' and jsonb_typeof(deleted_instance->'settings') = 'object'
                     then ${siteOf("deleted_instance->'settings'", "deleted_instance->>'name'")}
                     else deleted_instance->'settings' end)
              where deleted_instance is not null`.execute(db);
  await sql`update instances set settings = ${siteOf('settings', 'name')}
              where type = 'n8n' and settings is not null`.execute(db);
  await sql`alter table instances rename column settings to site`.execute(db);
}
