import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { Migrator, NO_MIGRATIONS } from 'kysely/migration';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { ensureDatabase } from '../src/db/connect.ts';
import { createDb, createPool } from '../src/db/create-db.ts';
import type { Db } from '../src/db/database.ts';
import { migrations } from '../src/db/migrations/index.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { migrateJobQueue } from '../src/jobs/job-queue.ts';

export interface TestDatabase {
  db: Db;
  url: string;
  /** The pool behind `db` (a job runner in a test can share it, as main.ts does). */
  pool: pg.Pool;
}

/** A new, empty database on the run's PostgreSQL, dropped when the calling test file finishes. */
async function scratchDatabase(): Promise<{ url: string; pool: pg.Pool; db: Db }> {
  const adminUrl = inject('pgAdminUrl');
  const name = `berth_test_${randomBytes(6).toString('hex')}`;
  const url = await ensureDatabase(adminUrl, name);
  const pool = createPool(url, 8);
  const db = createDb(pool);
  afterAll(async () => {
    await db.destroy();
    const admin = new pg.Client({ connectionString: adminUrl });
    admin.on('error', () => {});
    await admin.connect();
    await admin.query(`drop database if exists ${admin.escapeIdentifier(name)} with (force)`);
    await admin.end();
  });
  return { url, pool, db };
}

/**
 * A fresh, migrated database (the platform tables and the job queue) for the calling test file on the
 * run's PostgreSQL, dropped when the file finishes. Real PostgreSQL, never a mock.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const { url, pool, db } = await scratchDatabase();
  await migrateToLatest(db);
  await migrateJobQueue(pool);
  return { db, url, pool };
}

/**
 * For a migration's test: a database of its own migrated up to the migration before `migration`, to
 * fill with rows of that time (dropped when the file finishes); `migrate()` runs `migration` alone and
 * answers the names it ran, `migrateDown()` takes it back.
 */
export async function createMigrationTestDatabase(migration: string) {
  const { db } = await scratchDatabase();
  const upTo = (last: string) =>
    new Migrator({
      db,
      provider: {
        getMigrations: async () =>
          Object.fromEntries(Object.entries(migrations).filter(([key]) => key <= last)),
      },
    });
  const before = Object.keys(migrations).filter((key) => key < migration);
  const { error } = await upTo(migration).migrateTo(before.at(-1) ?? NO_MIGRATIONS);
  if (error) throw error;
  return {
    db,
    async migrate(): Promise<string[]> {
      const { error, results = [] } = await upTo(migration).migrateToLatest();
      if (error) throw error;
      return results.map((result) => result.migrationName);
    },
    migrateDown: () => upTo(migration).migrateDown(),
  };
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
