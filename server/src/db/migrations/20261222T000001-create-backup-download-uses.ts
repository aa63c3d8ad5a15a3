import type { Kysely } from 'kysely';

// Frozen in time: imports nothing from src.
// A backup download link works once: its id is recorded when it is used (in the database, so that two
// server processes agree), and kept until the link would have expired anyway.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('backup_download_uses')
    .addColumn('link_id', 'text', (c) => c.primaryKey())
    .addColumn('backup_id', 'text', (c) => c.notNull().references('instance_backups.id').onDelete('cascade'))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('backup_download_uses_expires_idx')
    .on('backup_download_uses')
    .column('expires_at')
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('backup_download_uses').execute();
}
