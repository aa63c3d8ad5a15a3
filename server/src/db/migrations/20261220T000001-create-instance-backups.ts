import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// Backups move from the local driver's folder to the platform's backup storage (a folder or an S3
// bucket); the platform lists them from here. An instance can be `restoring`. Plans keep backups for a
// number of days the admin can change (payment settings, beside the plans' prices).
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('instance_backups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'uuid', (c) => c.notNull().references('instances.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('scheduled', 'manual')`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('note', 'text', (c) => c.notNull().defaultTo(''))
    // running until every part is stored and checked; failed with `error`; complete.
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('running', 'complete', 'failed')`))
    .addColumn('step', 'text')
    .addColumn('error', 'text')
    // Bytes written so far (before encryption), then the stored size.
    .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
    // 'local' (a folder of the server) or 's3' (off-site).
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('parts', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('facts', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('instance_backups_instance_idx')
    .on('instance_backups')
    .columns(['instance_id', 'created_at'])
    .execute();
  await sql`alter table instances drop constraint instances_status_check`.execute(db);
  await sql`alter table instances add constraint instances_status_check
    check (status in ('deploying', 'running', 'suspended', 'error', 'deleting', 'restoring'))`.execute(db);
  await db.schema
    .alterTable('payment_settings')
    .addColumn('starter_backup_days', 'integer', (c) => c.notNull().defaultTo(7))
    .addColumn('pro_backup_days', 'integer', (c) => c.notNull().defaultTo(30))
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_settings').dropColumn('starter_backup_days').execute();
  await db.schema.alterTable('payment_settings').dropColumn('pro_backup_days').execute();
  await sql`update instances set status = 'running' where status = 'restoring'`.execute(db);
  await sql`alter table instances drop constraint instances_status_check`.execute(db);
  await sql`alter table instances add constraint instances_status_check
    check (status in ('deploying', 'running', 'suspended', 'error', 'deleting'))`.execute(db);
  await db.schema.dropTable('instance_backups').execute();
}
