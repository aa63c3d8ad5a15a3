import {
  dumpMysql,
  dumpPostgres,
  loadMysql,
  loadPostgres,
  mysqlTableCount,
  postgresTableCount,
} from './database-dumps.ts';
import type { BackupCapability, DatabaseCredentials, DatabaseSpec } from './engine.ts';

/**
 * Backups of a MySQL or PostgreSQL instance, the same on every driver: the table count, the dump and
 * the load all log in *as the tenant* (database-dumps.ts), so nothing the tenant put in its database
 * ever runs with more rights than its own; only dropping and recreating the empty database for a restore
 * is the driver's (its server's admin, with nothing of the tenant's on the way). One part, named alike
 * on every driver, so that a backup made on one box restores on a swarm.
 */

/** The one part of a SQL instance's backup (and of its move between servers). */
export const SQL_BACKUP_PART = { mysql: 'dump.sql.gz', postgresql: 'dump.pgdump' } as const;
/** MySQL backups the swarm driver made before it shared this module (the same gzipped dump). */
const EARLIER_MYSQL_PART = 'db.sql.gz';

export interface SqlBackupTarget {
  /** The tenant's own login to its database (what its customer connects with). */
  login(spec: DatabaseSpec): Promise<DatabaseCredentials>;
  /** Drops the tenant's database and makes it again, empty, with the same login and size. */
  recreate(spec: DatabaseSpec): Promise<void>;
}

export function sqlBackups(
  type: 'mysql' | 'postgresql',
  target: SqlBackupTarget,
  /** How long a dump may make no progress (a tenant's lock) before it fails; 2 minutes by default. */
  stallMs?: number,
): BackupCapability<DatabaseSpec> {
  const ops =
    type === 'mysql'
      ? { dump: dumpMysql, load: loadMysql, tables: mysqlTableCount }
      : { dump: dumpPostgres, load: loadPostgres, tables: postgresTableCount };
  return {
    async dump(spec, archive, progress) {
      const login = await target.login(spec);
      const tables = await ops.tables(login);
      progress?.('Dumping the database');
      await ops.dump(login, archive, SQL_BACKUP_PART[type], stallMs);
      return { tables };
    },
    async restore(spec, archive, facts, progress) {
      const login = await target.login(spec);
      const part =
        type === 'mysql' &&
        !archive.parts.includes(SQL_BACKUP_PART.mysql) &&
        archive.parts.includes(EARLIER_MYSQL_PART)
          ? EARLIER_MYSQL_PART
          : SQL_BACKUP_PART[type];
      progress?.('Loading the database');
      await target.recreate(spec);
      await ops.load(login, archive, part);
      const tables = await ops.tables(login);
      if (tables !== facts.tables) {
        throw new Error(`Restore incomplete: ${tables} tables, the backup had ${facts.tables}`);
      }
    },
  };
}
