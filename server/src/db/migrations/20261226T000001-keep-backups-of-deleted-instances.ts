import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// Backups outlive their instance until their plan's days have passed: a backup names its owner and the
// type of instance it was made of (the instance row may be gone), and `deleted_instance` holds what a
// restore into a new instance needs once the instance was deleted (its name, region, resources, site
// settings, n8n's encryption key sealed). The instance id stays (it names the backup's place in the
// store) without a foreign key. The store sweep remembers the orphans it found (a place no backup
// names, removed after a grace period) and what its last round counted, for the admin.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('instance_backups')
    .addColumn('user_id', 'uuid')
    .addColumn('instance_type', 'text')
    .addColumn('deleted_instance', 'jsonb')
    .execute();
  await sql`update instance_backups b set user_id = i.user_id, instance_type = i.type
              from instances i where i.id = b.instance_id`.execute(db);
  await sql`alter table instance_backups
              alter column user_id set not null,
              alter column instance_type set not null,
              add constraint instance_backups_user_id_fkey
                foreign key (user_id) references users (id) on delete cascade,
              drop constraint instance_backups_instance_id_fkey`.execute(db);
  await db.schema
    .createIndex('instance_backups_deleted_idx')
    .on('instance_backups')
    .columns(['user_id', 'created_at'])
    .where(sql.ref('deleted_instance'), 'is not', null)
    .execute();
  await db.schema
    .createTable('backup_store_orphans')
    .addColumn('prefix', 'text', (c) => c.primaryKey())
    .addColumn('found_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('backup_store_sweeps')
    .addColumn('id', 'smallint', (c) => c.primaryKey().defaultTo(1).check(sql`id = 1`))
    .addColumn('swept_at', 'timestamptz', (c) => c.notNull())
    .addColumn('orphans', 'integer', (c) => c.notNull())
    .addColumn('missing', 'integer', (c) => c.notNull())
    .addColumn('removed', 'integer', (c) => c.notNull())
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('backup_store_sweeps').execute();
  await db.schema.dropTable('backup_store_orphans').execute();
  // Backups of deleted instances cannot be kept without their instance (their files stay in the store).
  await sql`delete from instance_backups b where not exists (select 1 from instances i where i.id = b.instance_id)`.execute(
    db,
  );
  await sql`alter table instance_backups
              add constraint instance_backups_instance_id_fkey
                foreign key (instance_id) references instances (id) on delete cascade`.execute(db);
  await db.schema.dropIndex('instance_backups_deleted_idx').execute();
  await db.schema
    .alterTable('instance_backups')
    .dropColumn('user_id')
    .dropColumn('instance_type')
    .dropColumn('deleted_instance')
    .execute();
}
