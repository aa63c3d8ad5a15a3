import { Logger, runMigrations } from 'graphile-worker';
import { sql } from 'kysely';
import type pg from 'pg';
import type { DbOrTx } from '../db/database.ts';

/**
 * The durable job queue: graphile-worker's tables and functions in the `graphile_worker` schema of the
 * platform database. Jobs are added with SQL inside the caller's transaction, so a job exists exactly
 * when the change that asked for it was committed.
 */

/** Installs or upgrades graphile-worker's schema (idempotent; main.ts, the test databases, the bench). */
export async function migrateJobQueue(pgPool: pg.Pool): Promise<void> {
  await runMigrations({ pgPool, logger: quietLogger });
}

export interface JobSpec {
  task: string;
  payload: Record<string, unknown>;
  /**
   * At most one waiting job per key: adding again replaces the waiting one (payload, run time, attempts);
   * a job already running keeps running and the new one waits behind it.
   */
  jobKey?: string;
  /** Jobs of one queue run one at a time, in order. */
  queueName?: string;
  maxAttempts?: number;
}

/** Adds a job in the given transaction (or on its own); it becomes visible to workers on commit. */
export async function addJob(db: DbOrTx, spec: JobSpec): Promise<void> {
  await sql`select graphile_worker.add_job(
    ${spec.task}::text,
    ${JSON.stringify(spec.payload)}::json,
    queue_name => ${spec.queueName ?? null}::text,
    max_attempts => ${spec.maxAttempts ?? 25}::int,
    job_key => ${spec.jobKey ?? null}::text
  )`.execute(db);
}

/** Whether the queue has a job waiting or running (one that failed for good does not count). */
export async function queueHasJobs(db: DbOrTx, queueName: string): Promise<boolean> {
  const { rows } = await sql<{ busy: boolean }>`select exists (
    select 1 from graphile_worker.jobs where queue_name = ${queueName} and attempts < max_attempts
  ) as busy`.execute(db);
  return rows[0]?.busy === true;
}

/** graphile-worker's own log: warnings and errors only, through `log`. */
export function jobLogger(log: (line: string) => void): Logger {
  return new Logger(() => (level, message) => {
    if (level === 'error' || level === 'warning') log(`jobs: ${message}`);
  });
}

const quietLogger = jobLogger((line) => console.warn(`[berth] ${line}`));
