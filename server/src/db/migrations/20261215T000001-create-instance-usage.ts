import { type Kysely, sql } from 'kysely';

// Frozen in time: imports nothing from src.
// biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema of their own moment
export async function up(db: Kysely<any>): Promise<void> {
  // What each instance used, one row per instance every 15 s (kept 24 hours). Counters (CPU time,
  // requests, bytes, kills) cover the `interval_seconds` before `at`; a null column was not measured
  // (a database on a shared server has no CPU or memory of its own).
  const usageColumns = (table: string, time: string) =>
    db.schema
      .createTable(table)
      .addColumn('instance_id', 'uuid', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn(time, 'timestamptz', (c) => c.notNull())
      .addColumn('interval_seconds', 'real', (c) => c.notNull())
      .addColumn('cpu_seconds', 'real')
      .addColumn('memory_bytes', 'bigint')
      .addColumn('memory_peak_bytes', 'bigint')
      .addColumn('memory_limit_bytes', 'bigint')
      .addColumn('oom_kills', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('disk_used_bytes', 'bigint')
      .addColumn('disk_limit_bytes', 'bigint')
      .addColumn('requests_2xx', 'integer')
      .addColumn('requests_3xx', 'integer')
      .addColumn('requests_4xx', 'integer')
      .addColumn('requests_5xx', 'integer')
      .addColumn('bytes_sent', 'bigint');
  await usageColumns('instance_usage_samples', 'at')
    .addPrimaryKeyConstraint('instance_usage_samples_pkey', ['instance_id', 'at'])
    .execute();
  // Retention and compaction look rows up by time alone.
  await db.schema
    .createIndex('instance_usage_samples_at')
    .on('instance_usage_samples')
    .column('at')
    .execute();

  // The same figures per 5 minutes (kept 30 days): sums of the counters, the mean memory and disk, the
  // highest peak, and how many samples went in.
  await usageColumns('instance_usage_rollups', 'bucket')
    .addColumn('samples', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('instance_usage_rollups_pkey', ['instance_id', 'bucket'])
    .execute();
  await db.schema
    .createIndex('instance_usage_rollups_bucket')
    .on('instance_usage_rollups')
    .column('bucket')
    .execute();

  // Warnings sent (high memory, killed for memory, disk past 80 % and 95 %): one of each kind per
  // instance per day, decided by this key.
  await db.schema
    .createTable('instance_usage_alerts')
    .addColumn('instance_id', 'uuid', (c) => c.notNull().references('instances.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('instance_usage_alerts_pkey', ['instance_id', 'kind', 'day'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see up()
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('instance_usage_alerts').execute();
  await db.schema.dropTable('instance_usage_rollups').execute();
  await db.schema.dropTable('instance_usage_samples').execute();
}
