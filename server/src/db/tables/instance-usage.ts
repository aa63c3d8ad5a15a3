import type { ColumnType, Insertable, Selectable } from 'kysely';

/** pg answers bigint as a string; written as a number. */
type BigintColumn = ColumnType<string | null, number | null, number | null>;

/** The columns samples and rollups share (see the migration 20261215T000001-create-instance-usage). */
interface UsageColumns {
  instance_id: string;
  interval_seconds: number;
  cpu_seconds: number | null;
  memory_bytes: BigintColumn;
  memory_peak_bytes: BigintColumn;
  memory_limit_bytes: BigintColumn;
  oom_kills: number;
  disk_used_bytes: BigintColumn;
  disk_limit_bytes: BigintColumn;
  requests_2xx: number | null;
  requests_3xx: number | null;
  requests_4xx: number | null;
  requests_5xx: number | null;
  bytes_sent: BigintColumn;
}

/** One instance's usage every 15 s, kept 24 hours. */
export interface InstanceUsageSampleTable extends UsageColumns {
  at: Date;
}

/** The same per 5 minutes, kept 30 days. */
export interface InstanceUsageRollupTable extends UsageColumns {
  bucket: Date;
  samples: number;
}

/** Warnings sent: one per instance, kind and day. */
export interface InstanceUsageAlertTable {
  instance_id: string;
  kind: string;
  day: string;
  created_at: ColumnType<Date, never, never>;
}

export type InstanceUsageSampleRow = Selectable<InstanceUsageSampleTable>;
export type NewInstanceUsageSampleRow = Insertable<InstanceUsageSampleTable>;
