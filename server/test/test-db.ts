import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { ensureDatabase } from '../src/db/connect.ts';
import { createDb, createPool } from '../src/db/create-db.ts';
import type { Db } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { migrateJobQueue } from '../src/jobs/job-queue.ts';

export interface TestDatabase {
  db: Db;
  url: string;
  /** The pool behind `db` (a job runner in a test can share it, as main.ts does). */
  pool: pg.Pool;
}

/**
 * A fresh, migrated database (the platform tables and the job queue) for the calling test file on the
 * run's PostgreSQL, dropped when the file finishes. Real PostgreSQL, never a mock.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('pgAdminUrl');
  const name = `berth_test_${randomBytes(6).toString('hex')}`;
  const url = await ensureDatabase(adminUrl, name);
  const pool = createPool(url, 8);
  const db = createDb(pool);
  await migrateToLatest(db);
  await migrateJobQueue(pool);
  afterAll(async () => {
    await db.destroy();
    const admin = new pg.Client({ connectionString: adminUrl });
    admin.on('error', () => {});
    await admin.connect();
    await admin.query(`drop database if exists ${admin.escapeIdentifier(name)} with (force)`);
    await admin.end();
  });
  return { db, url, pool };
}

/** Empties every table between tests (keeps the schema and the migration log; the job queue too). */
export async function truncateAll(db: Db): Promise<void> {
  const { rows } = await sql<{ tablename: string }>`
    select tablename from pg_tables where schemaname = 'public' and tablename not like 'kysely_%'`.execute(
    db,
  );
  if (rows.length === 0) return;
  await sql`truncate table ${sql.join(rows.map((r) => sql.table(r.tablename)))} restart identity cascade`.execute(
    db,
  );
  await sql`delete from graphile_worker._private_jobs`.execute(db);
}
