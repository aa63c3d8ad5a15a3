import { sql } from 'kysely';
import type { DbOrTx } from '../../db/database.ts';
import type { NewInstanceUsageSampleRow } from '../../db/tables/instance-usage.ts';

/**
 * The usage tables (migration 20261215T000001-create-instance-usage): raw samples every 15 s for 24
 * hours, 5-minute rollups for 30 days, and the warnings sent. Every aggregate is computed here, in SQL,
 * so the charts and the public API read the very same numbers.
 */

/** A point of a series: what was used in one step (counters summed, memory averaged, peaks the highest). */
export interface UsagePointRow {
  at: Date;
  intervalSeconds: number;
  cpuSeconds: number | null;
  memoryBytes: number | null;
  memoryPeakBytes: number | null;
  memoryLimitBytes: number | null;
  oomKills: number;
  diskUsedBytes: number | null;
  diskLimitBytes: number | null;
  requests2xx: number | null;
  requests3xx: number | null;
  requests4xx: number | null;
  requests5xx: number | null;
  bytesSent: number | null;
}

/** Where a range's points come from and how wide each is. */
export interface SeriesSource {
  table: 'instance_usage_samples' | 'instance_usage_rollups';
  /** Each point covers this many seconds. */
  stepSeconds: number;
  since: Date;
}

const ORIGIN = sql`timestamptz '2000-01-01 00:00:00+00'`;
const ROLLUP_SECONDS = 300;

export async function insertSamples(db: DbOrTx, rows: readonly NewInstanceUsageSampleRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('instance_usage_samples')
    .values([...rows])
    .onConflict((oc) => oc.doNothing())
    .execute();
}

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** The instance's points since `source.since`, one per step, oldest first. */
export async function findSeries(
  db: DbOrTx,
  instanceId: string,
  source: SeriesSource,
): Promise<UsagePointRow[]> {
  const time = source.table === 'instance_usage_samples' ? sql.ref('at') : sql.ref('bucket');
  const weight = source.table === 'instance_usage_samples' ? sql`1` : sql.ref('samples');
  const step = sql.lit(`${source.stepSeconds} seconds`);
  const { rows } = await sql<Record<string, unknown>>`
    select date_bin(${step}::interval, ${time}, ${ORIGIN}) as at,
      sum(interval_seconds) as interval_seconds,
      sum(cpu_seconds) as cpu_seconds,
      sum(memory_bytes * ${weight}) / nullif(sum(case when memory_bytes is null then 0 else ${weight} end), 0) as memory_bytes,
      max(memory_peak_bytes) as memory_peak_bytes,
      max(memory_limit_bytes) as memory_limit_bytes,
      sum(oom_kills) as oom_kills,
      max(disk_used_bytes) as disk_used_bytes,
      max(disk_limit_bytes) as disk_limit_bytes,
      sum(requests_2xx) as requests_2xx,
      sum(requests_3xx) as requests_3xx,
      sum(requests_4xx) as requests_4xx,
      sum(requests_5xx) as requests_5xx,
      sum(bytes_sent) as bytes_sent
    from ${sql.table(source.table)}
    where instance_id = ${instanceId} and ${time} >= ${source.since}
    group by 1
    order by 1`.execute(db);
  return rows.map((row) => ({
    at: row.at as Date,
    intervalSeconds: Number(row.interval_seconds),
    cpuSeconds: num(row.cpu_seconds),
    memoryBytes: num(row.memory_bytes) === null ? null : Math.round(Number(row.memory_bytes)),
    memoryPeakBytes: num(row.memory_peak_bytes),
    memoryLimitBytes: num(row.memory_limit_bytes),
    oomKills: Number(row.oom_kills),
    diskUsedBytes: num(row.disk_used_bytes),
    diskLimitBytes: num(row.disk_limit_bytes),
    requests2xx: num(row.requests_2xx),
    requests3xx: num(row.requests_3xx),
    requests4xx: num(row.requests_4xx),
    requests5xx: num(row.requests_5xx),
    bytesSent: num(row.bytes_sent),
  }));
}

/** When the kernel last killed a process of the instance for memory (the sample's time, else the 5-minute bucket's end). */
export async function findLastOutOfMemory(db: DbOrTx, instanceId: string): Promise<Date | undefined> {
  const { rows } = await sql<{ at: Date | null }>`
    select greatest(
      (select max(at) from instance_usage_samples where instance_id = ${instanceId} and oom_kills > 0),
      (select max(bucket) + interval '5 minutes' from instance_usage_rollups where instance_id = ${instanceId} and oom_kills > 0)
    ) as at`.execute(db);
  return rows[0]?.at ?? undefined;
}

/**
 * Rolls every whole 5-minute bucket of samples not rolled up yet into rollups (from the newest rollup
 * on, so each run adds only what is new; a repeated run changes nothing), then drops samples older than
 * `rawFor` and rollups older than `rollupsFor`. Answers how many rows each step touched.
 */
export async function compactUsage(
  db: DbOrTx,
  now: Date,
  keep: { rawSeconds: number; rollupSeconds: number },
): Promise<{ rolledUp: number; samplesDeleted: number; rollupsDeleted: number }> {
  const step = sql.lit(`${ROLLUP_SECONDS} seconds`);
  const rolled = await sql`
    insert into instance_usage_rollups (instance_id, bucket, interval_seconds, cpu_seconds, memory_bytes,
      memory_peak_bytes, memory_limit_bytes, oom_kills, disk_used_bytes, disk_limit_bytes, requests_2xx,
      requests_3xx, requests_4xx, requests_5xx, bytes_sent, samples)
    select instance_id, date_bin(${step}::interval, at, ${ORIGIN}), sum(interval_seconds), sum(cpu_seconds),
      avg(memory_bytes)::bigint, max(memory_peak_bytes), max(memory_limit_bytes), sum(oom_kills),
      max(disk_used_bytes), max(disk_limit_bytes), sum(requests_2xx), sum(requests_3xx), sum(requests_4xx),
      sum(requests_5xx), sum(bytes_sent), count(*)
    from instance_usage_samples
    where at >= coalesce(
        (select max(bucket) + ${step}::interval from instance_usage_rollups),
        (select date_bin(${step}::interval, min(at), ${ORIGIN}) from instance_usage_samples))
      and at < date_bin(${step}::interval, ${now}::timestamptz, ${ORIGIN})
    group by 1, 2
    on conflict (instance_id, bucket) do nothing`.execute(db);
  const samples = await db
    .deleteFrom('instance_usage_samples')
    .where('at', '<', new Date(now.getTime() - keep.rawSeconds * 1000))
    .executeTakeFirst();
  const rollups = await db
    .deleteFrom('instance_usage_rollups')
    .where('bucket', '<', new Date(now.getTime() - keep.rollupSeconds * 1000))
    .executeTakeFirst();
  return {
    rolledUp: Number(rolled.numAffectedRows ?? 0),
    samplesDeleted: Number(samples.numDeletedRows),
    rollupsDeleted: Number(rollups.numDeletedRows),
  };
}

/** Records a warning; false when one of the same kind was already sent that day (UTC) for the instance. */
export async function insertAlert(db: DbOrTx, instanceId: string, kind: string, at: Date): Promise<boolean> {
  const inserted = await db
    .insertInto('instance_usage_alerts')
    .values({ instance_id: instanceId, kind, day: at.toISOString().slice(0, 10) })
    .onConflict((oc) => oc.doNothing())
    .returning('kind')
    .executeTakeFirst();
  return inserted !== undefined;
}

export interface BusyRow {
  instanceId: string;
  cpuSeconds: number;
  intervalSeconds: number;
  memoryBytes: number | null;
  memoryLimitBytes: number | null;
  requests: number;
}

/** The `limit` instances that used the most CPU time since `since` (then the most memory). */
export async function findBusiest(db: DbOrTx, since: Date, limit: number): Promise<BusyRow[]> {
  const { rows } = await sql<Record<string, unknown>>`
    select instance_id, coalesce(sum(cpu_seconds), 0) as cpu_seconds, sum(interval_seconds) as interval_seconds,
      avg(memory_bytes) as memory_bytes, max(memory_limit_bytes) as memory_limit_bytes,
      coalesce(sum(requests_2xx + requests_3xx + requests_4xx + requests_5xx), 0) as requests
    from instance_usage_samples
    where at >= ${since}
    group by instance_id
    order by 2 desc, 4 desc nulls last
    limit ${limit}`.execute(db);
  return rows.map((row) => ({
    instanceId: String(row.instance_id),
    cpuSeconds: Number(row.cpu_seconds),
    intervalSeconds: Number(row.interval_seconds),
    memoryBytes: num(row.memory_bytes) === null ? null : Math.round(Number(row.memory_bytes)),
    memoryLimitBytes: num(row.memory_limit_bytes),
    requests: Number(row.requests),
  }));
}

/** Bytes the usage tables and their indexes take now (the README's figure per instance and month). */
export async function usageStorageBytes(db: DbOrTx): Promise<{ samples: number; rollups: number }> {
  const { rows } = await sql<{ samples: string; rollups: string }>`
    select pg_total_relation_size('instance_usage_samples') as samples,
      pg_total_relation_size('instance_usage_rollups') as rollups`.execute(db);
  return { samples: Number(rows[0]?.samples ?? 0), rollups: Number(rows[0]?.rollups ?? 0) };
}
