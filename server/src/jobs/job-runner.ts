import { run, type TaskList } from 'graphile-worker';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../db/database.ts';
import { jobLogger } from './job-queue.ts';

/**
 * The in-process job runner (graphile-worker `run()` on the server's pool), plus what graphile-worker
 * leaves to us: knowing when a job's worker died. A worker pool locks jobs under its pool id and keeps
 * them locked for 4 hours if its process is killed. So every runner holds a PostgreSQL advisory lock
 * named after its pool id on a connection of its own, taken before it fetches its first job; the lock
 * vanishes with the process. `recoverAbandonedJobs` unlocks the jobs of pools whose lock is free.
 */

declare global {
  namespace GraphileConfig {
    interface Plugins {
      BerthRunnerLiveness: true;
    }
  }
}

const LIVENESS_PREFIX = 'berth.job-runner:';

export interface JobRunnerOptions {
  /** The pool jobs are fetched and completed on (main.ts shares the app's). */
  pgPool: pg.Pool;
  /** For the runner's own liveness connection. */
  connectionString: string;
  taskList: TaskList;
  concurrency?: number;
  /** Fallback poll for retries and delayed jobs (new jobs arrive by LISTEN/NOTIFY at once). */
  pollIntervalMs?: number;
  log: (line: string) => void;
}

export interface JobRunner {
  /** Stops fetching, waits for running jobs (graphile-worker aborts them after 5 s), releases the lock. */
  stop(): Promise<void>;
}

export async function startJobRunner(options: JobRunnerOptions): Promise<JobRunner> {
  const { log } = options;
  const liveness = new pg.Client({ connectionString: options.connectionString });
  liveness.on('error', (err) =>
    log(`jobs: liveness connection lost (${err.message}); other servers may re-run this one's jobs`),
  );
  await liveness.connect();
  const held = new Map<string, Promise<unknown>>();
  const holdLiveness = (poolId: string) => {
    let taken = held.get(poolId);
    if (!taken) {
      taken = liveness.query('select pg_advisory_lock(hashtextextended($1, 0))', [LIVENESS_PREFIX + poolId]);
      held.set(poolId, taken);
    }
    return taken;
  };

  const runner = await run({
    pgPool: options.pgPool,
    taskList: options.taskList,
    concurrency: options.concurrency ?? 4,
    pollInterval: options.pollIntervalMs ?? 1000,
    noHandleSignals: true,
    crontab: '',
    logger: jobLogger(log),
    preset: {
      plugins: [
        {
          name: 'BerthRunnerLiveness',
          description: 'Holds an advisory lock per worker pool so crashed pools can be told apart',
          worker: {
            hooks: {
              // Awaited before each worker's first fetch: no job is locked before the lock is held.
              startWorker: async (_ctx, event) => {
                await holdLiveness(event.worker.workerPool.id);
              },
            },
          },
        },
      ],
    },
  });

  return {
    async stop() {
      await runner.stop();
      await liveness.end().catch(() => {});
    },
  };
}

/**
 * Unlocks the jobs (and queues) locked by worker pools whose process is gone, so they run again at once
 * instead of after graphile-worker's 4-hour lock timeout. Safe beside live servers: a pool counts as gone
 * only when its advisory lock is free. Answers the pool ids it unlocked.
 */
export async function recoverAbandonedJobs(db: Db): Promise<string[]> {
  // One connection throughout: a session advisory lock taken by the probe must be released by it.
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked_by: string }>`
      select locked_by from graphile_worker._private_jobs where locked_by is not null
      union
      select locked_by from graphile_worker._private_job_queues where locked_by is not null`.execute(conn);
    const gone: string[] = [];
    for (const { locked_by: poolId } of rows) {
      const key = LIVENESS_PREFIX + poolId;
      const probe = await sql<{ free: boolean }>`
        select pg_try_advisory_lock(hashtextextended(${key}, 0)) as free`.execute(conn);
      if (probe.rows[0]?.free) {
        await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(conn);
        gone.push(poolId);
      }
    }
    if (gone.length > 0)
      await sql`select graphile_worker.force_unlock_workers(${gone}::text[])`.execute(conn);
    return gone;
  });
}

/** Removes the queues no job uses any more (one per instance that ever had a job). */
export async function collectJobGarbage(db: Db): Promise<void> {
  await sql`
    delete from graphile_worker._private_job_queues as job_queues
    where locked_at is null
      and not exists (select 1 from graphile_worker._private_jobs as jobs where jobs.job_queue_id = job_queues.id)`.execute(
    db,
  );
}
