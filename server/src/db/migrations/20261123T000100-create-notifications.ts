import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notifications')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('read', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index notifications_user_id_created_at_idx on notifications (user_id, created_at desc)`.execute(
    db,
  );

  // When the trial notices went out; a non-null value means "sent", so each goes out once.
  await db.schema
    .alterTable('subscriptions')
    .addColumn('trial_warning_sent_at', 'timestamptz')
    .addColumn('trial_ended_sent_at', 'timestamptz')
    .execute();
  // Trials already over when this runs get no late notice.
  await sql`update subscriptions set trial_warning_sent_at = now(), trial_ended_sent_at = now() where trial_ends_at <= now()`.execute(
    db,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('subscriptions')
    .dropColumn('trial_warning_sent_at')
    .dropColumn('trial_ended_sent_at')
    .execute();
  await db.schema.dropTable('notifications').execute();
}
