import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { NotFoundError } from '../../../lib/errors.ts';
import type { TenantNames } from '../../tenant-names.ts';
import { DEFAULT_LIMITS } from '../host/control-groups.ts';
import type { TenantOps } from './engine-server.ts';
import { type TenantLimits, tenantLimits } from './tenant-limits.ts';

/**
 * MySQL instances are tenants of a MariaDB server: database `t_<id>` and user `'u_<id>'@'%'` holding
 * READ_PRIVILEGES and WRITE_PRIVILEGES on that database only (so `SHOW DATABASES` lists just it, `USE` of another database and
 * `CREATE DATABASE` are denied). Names come from `tenantNames` ([a-z0-9_] only) and are quoted with
 * escapeId anyway; user names and passwords travel as escaped values.
 */

/*
 * A tenant may do in its database what ALL PRIVILEGES allows but CREATE TEMPORARY TABLES. Temporary
 * tables live in InnoDB's shared temporary tablespace, off the tenant's disk, where nothing can bound
 * one tenant's share: unbounded, one tenant could fill the host; bounded (`…:max:`), the first temporary
 * table with long values to reach the bound aborts the whole server (MariaDB 10.11). The temporary
 * tables MariaDB makes itself (sorts, GROUP BY) use the size-limited `tmpdir` instead.
 */

/** What a tenant at its size limit keeps (mariadb-quota.ts): reading, deleting rows, TRUNCATE and DROP. */
const READ_PRIVILEGES = 'SELECT, DELETE, DROP, LOCK TABLES, SHOW VIEW, EXECUTE, DELETE HISTORY';
/** What a tenant at its size limit loses. */
export const WRITE_PRIVILEGES =
  'INSERT, UPDATE, CREATE, REFERENCES, INDEX, ALTER, CREATE VIEW, CREATE ROUTINE, ALTER ROUTINE, EVENT, TRIGGER';

/** MariaDB's "Operation ... failed for 'u'@'%'": the user does not exist. */
const ER_CANNOT_USER = 1396;
/** KILL of a session that ended meanwhile. */
const ER_NO_SUCH_THREAD = 1094;

/**
 * Creates (or completes) the tenant. On a server the driver runs, the database's folder already exists
 * then (a link to the tenant's disk, database-disks.ts): CREATE DATABASE finds it and only notes that,
 * so the character set is given by ALTER DATABASE, which writes it into that folder.
 */
async function createMariaDbTenant(
  pool: Pool,
  names: TenantNames,
  password: string,
  full: boolean,
  limits: TenantLimits,
): Promise<void> {
  const db = pool.escapeId(names.database);
  await pool.query(`CREATE DATABASE IF NOT EXISTS ${db}`);
  await pool.query(`ALTER DATABASE ${db} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  // Per-user resource limits (tenant-limits.ts): the connections are enforced, the statement time is
  // each session's default.
  const resourceLimits = `MAX_USER_CONNECTIONS ${limits.connections} MAX_STATEMENT_TIME ${limits.statementSeconds}`;
  const [created] = await pool.query<ResultSetHeader>(
    `CREATE USER IF NOT EXISTS ?@'%' IDENTIFIED BY ? WITH ${resourceLimits}`,
    [names.user, password],
  );
  // A warning means the user already existed (a repeated deploy): give it the password we return, and
  // the limits of what it is sold now.
  if (created.warningStatus > 0)
    await pool.query(`ALTER USER ?@'%' IDENTIFIED BY ? WITH ${resourceLimits}`, [names.user, password]);
  // Granted; for a user that existed, what must not be there is taken away after (a tenant made before
  // held ALL PRIVILEGES, CREATE TEMPORARY TABLES included): never a moment without any, which would
  // refuse its logins.
  const privileges = full ? READ_PRIVILEGES : `${READ_PRIVILEGES}, ${WRITE_PRIVILEGES}`;
  await pool.query(`GRANT ${privileges} ON ${db}.* TO ?@'%'`, [names.user]);
  if (created.warningStatus > 0) {
    const refused = full ? `CREATE TEMPORARY TABLES, ${WRITE_PRIVILEGES}` : 'CREATE TEMPORARY TABLES';
    await pool.query(`REVOKE ${refused} ON ${db}.* FROM ?@'%'`, [names.user]);
  }
}

/**
 * Closes every session of the user (MariaDB keeps them across password changes, locks, DROP USER and
 * changes of database privileges).
 */
export async function killSessions(pool: Pool, user: string): Promise<void> {
  for (const { id } of await sessionsOf(pool, user)) await killConnection(pool, id);
}

/** The user's connections now: their ids and what each does (`Sleep`: idle, between statements). */
export async function sessionsOf(pool: Pool, user: string): Promise<{ id: number; command: string }[]> {
  const [rows] = await pool.query<RowDataPacket[]>(
    'SELECT id, command FROM information_schema.processlist WHERE user = ?',
    [user],
  );
  return rows.map((row) => ({ id: Number(row.id), command: String(row.command) }));
}

export async function killConnection(pool: Pool, id: number): Promise<void> {
  await pool.query('KILL CONNECTION ?', [id]).catch((error: { errno?: number }) => {
    if (error.errno !== ER_NO_SUCH_THREAD) throw error;
  });
}

/** Runs an ALTER USER, turning "no such user" into a NotFoundError. */
async function alterUser(pool: Pool, sql: string, values: string[]): Promise<void> {
  try {
    await pool.query(sql, values);
  } catch (error) {
    if ((error as { errno?: number }).errno === ER_CANNOT_USER) {
      throw new NotFoundError('Database instance not found');
    }
    throw error;
  }
}

async function deleteMariaDbTenant(pool: Pool, names: TenantNames): Promise<void> {
  // Drop the user first (no new logins), then close what is still open, then the data.
  await pool.query(`DROP USER IF EXISTS ?@'%'`, [names.user]);
  await killSessions(pool, names.user);
  await pool.query(`DROP DATABASE IF EXISTS ${pool.escapeId(names.database)}`);
}

async function suspendMariaDbTenant(pool: Pool, names: TenantNames): Promise<void> {
  await alterUser(pool, `ALTER USER ?@'%' ACCOUNT LOCK`, [names.user]);
  await killSessions(pool, names.user);
}

async function resumeMariaDbTenant(pool: Pool, names: TenantNames): Promise<void> {
  await alterUser(pool, `ALTER USER ?@'%' ACCOUNT UNLOCK`, [names.user]);
}

async function setMariaDbPassword(pool: Pool, names: TenantNames, password: string): Promise<void> {
  await alterUser(pool, `ALTER USER ?@'%' IDENTIFIED BY ?`, [names.user, password]);
  await killSessions(pool, names.user);
}

/**
 * The operations above on the admin pool `pool()` returns. `isFull` says whether a tenant is at its
 * size limit (mariadb-quota.ts): a deploy then leaves its write privileges out.
 */
export function mariadbTenants(pool: () => Pool, isFull?: (names: TenantNames) => boolean): TenantOps {
  return {
    create: (names, password, _limitMb, limits = tenantLimits(DEFAULT_LIMITS)) =>
      createMariaDbTenant(pool(), names, password, isFull?.(names) ?? false, limits),
    delete: (names) => deleteMariaDbTenant(pool(), names),
    suspend: (names) => suspendMariaDbTenant(pool(), names),
    resume: (names) => resumeMariaDbTenant(pool(), names),
    setPassword: (names, password) => setMariaDbPassword(pool(), names, password),
    async exists(names) {
      const [rows] = await pool().query<RowDataPacket[]>('SELECT 1 FROM mysql.user WHERE User = ?', [
        names.user,
      ]);
      return rows.length > 0;
    },
  };
}
