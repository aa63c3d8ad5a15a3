import { sql } from 'kysely';
import type { BackupVault } from '../../backup-storage/backup-vault.ts';
import { createDb, createPool } from '../../db/create-db.ts';
import { migrateToLatest } from '../../db/migrator.ts';
import { migrateJobQueue } from '../../jobs/job-queue.ts';
import { recoverInstances } from '../instances/jobs/instance-recovery.ts';
import { platformBackups } from './platform-backups.ts';

/**
 * The recovery on a new machine (npm run restore-platform -- <backup|latest>): Berth's database is
 * loaded from a backup into the empty database at `databaseUrl` (refused when it holds tables: never
 * over live data), brought up to this version's migrations, and every instance is set to be redeployed
 * and restored from its newest backup once the server starts (instance-recovery.ts).
 */
export async function restorePlatform(options: {
  vault: BackupVault;
  databaseUrl: string;
  /** A platform backup id (`p-…`), or `latest`. */
  which: string;
  log: (line: string) => void;
}): Promise<{ backup: string; restoring: number; empty: number; imported: number }> {
  const { vault, databaseUrl, which, log } = options;
  const backups = platformBackups({ vault, databaseUrl, now: () => new Date() });
  const all = await backups.list();
  const chosen = which === 'latest' ? all[0] : all.find((b) => b.id === which);
  if (!chosen) {
    throw new Error(
      all.length === 0
        ? `No backup of Berth's database in ${vault.store.description}`
        : `No backup ${which}; there are: ${all.map((b) => `${b.id} (${b.createdAt})`).join(', ')}`,
    );
  }
  const pool = createPool(databaseUrl, 4);
  const db = createDb(pool);
  try {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from information_schema.tables where table_schema = 'public'`.execute(db);
    if ((rows[0]?.n ?? 0) > 0)
      throw new Error('The database is not empty: restore-platform only loads into a new, empty database');
    log(`restoring Berth's database from ${chosen.id} (${chosen.createdAt}, ${chosen.size} bytes)`);
    await backups.restoreInto(chosen, databaseUrl);
    const applied = await migrateToLatest(db);
    if (applied.length > 0) log(`migrations applied after the restore: ${applied.join(', ')}`);
    await migrateJobQueue(pool);
    const counts = await recoverInstances(db, vault);
    log(
      `instances: ${counts.restoring} to be restored from their latest backup, ${counts.empty} without a ` +
        `backup to be redeployed empty (${counts.imported} backups found in storage)`,
    );
    return { backup: chosen.id, ...counts };
  } finally {
    await db.destroy();
  }
}
