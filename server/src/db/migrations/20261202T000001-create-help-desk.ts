import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  // Support tickets: what the customer sent, an optional context snapshot, and the admin's answer.
  await db.schema
    .createTable('help_tickets')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('path', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('context', 'jsonb')
    .addColumn('response_text', 'text')
    .addColumn('responded_at', 'timestamptz')
    .addColumn('responded_by', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index help_tickets_user_id_created_at_idx on help_tickets (user_id, created_at desc)`.execute(
    db,
  );
  await sql`create index help_tickets_created_at_idx on help_tickets (created_at desc)`.execute(db);

  // Uploaded images: unattached (ticket_id null) until a submit or an answer takes them; the sweep
  // removes unattached ones after a day. The file on disk is named `file_name` (random).
  await db.schema
    .createTable('help_uploads')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('file_name', 'text', (c) => c.notNull().unique())
    .addColumn('original_name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('uploaded_by', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('ticket_id', 'uuid', (c) => c.references('help_tickets.id').onDelete('cascade'))
    .addColumn('role', 'text')
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index help_uploads_ticket_id_idx on help_uploads (ticket_id)`.execute(db);
  await sql`create index help_uploads_unattached_idx on help_uploads (created_at) where ticket_id is null`.execute(
    db,
  );

  // Admin announcements: one row per send, fanned out by the `announcement-fanout` job; `cursor` is the
  // last user id done, moved in the same transaction as each batch's notifications (no duplicates).
  await db.schema
    .createTable('announcements')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('sent_by', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('plan', 'text')
    .addColumn('user_id', 'uuid')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('send_email', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('recipients', 'integer', (c) => c.notNull())
    .addColumn('delivered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cursor', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('completed_at', 'timestamptz')
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('announcements').execute();
  await db.schema.dropTable('help_uploads').execute();
  await db.schema.dropTable('help_tickets').execute();
}
