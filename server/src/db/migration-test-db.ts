import { randomBytes } from 'node:crypto';
import { Migrator, NO_MIGRATIONS } from 'kysely/migration';
import pg from 'pg';
import { ensureDatabase } from './connect.ts';
import { createDb, createPool } from './create-db.ts';
import type { Db } from './database.ts';
import { migrations } from './migrations/index.ts';

/**
 * For a migration's test: a database of its own migrated up to the migration before `migration`, to fill
 * with rows of that time; `migrate()` runs `migration` alone and answers the names it ran, `migrateDown()`
 * takes it back.
 */
export async function migrationTestDb(adminUrl: string, migration: string) {
  const name = `berth_test_${randomBytes(6).toString('hex')}`;
  const db: Db = createDb(createPool(await ensureDatabase(adminUrl, name), 4));
  const migratorUpTo = (last: string) =>
    new Migrator({
      db,
      provider: {
        getMigrations: async () =>
          Object.fromEntries(Object.entries(migrations).filter(([key]) => key <= last)),
      },
    });
  const before = Object.keys(migrations).filter((key) => key < migration);
  const { error } = await migratorUpTo(migration).migrateTo(before.at(-1) ?? NO_MIGRATIONS);
  if (error) throw error;
  return {
    db,
    async migrate(): Promise<string[]> {
      const { error, results = [] } = await migratorUpTo(migration).migrateToLatest();
      if (error) throw error;
      return results.map((result) => result.migrationName);
    },
    /** Takes `migration` back (its down()). */
    migrateDown: () => migratorUpTo(migration).migrateDown(),
    async drop() {
      await db.destroy();
      const admin = new pg.Client({ connectionString: adminUrl });
      admin.on('error', () => {});
      await admin.connect();
      await admin.query(`drop database if exists ${admin.escapeIdentifier(name)} with (force)`);
      await admin.end();
    },
  };
}
