import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { NotFoundError } from '../../lib/errors.ts';
import type { TenantNames } from '../tenant-names.ts';
import type { TenantOps } from './engine-server.ts';

/**
 * MySQL instances are tenants of a MariaDB server: database `t_<id>` and user `'u_<id>'@'%'` holding
 * ALL PRIVILEGES on that database only (so `SHOW DATABASES` lists just it, `USE` of another database and
 * `CREATE DATABASE` are denied). Names come from `tenantNames` ([a-z0-9_] only) and are quoted with
 * escapeId anyway; user names and passwords travel as escaped values.
 */

const MAX_USER_CONNECTIONS = 20;

/** MariaDB's "Operation ... failed for 'u'@'%'": the user does not exist. */
const ER_CANNOT_USER = 1396;
/** KILL of a session that ended meanwhile. */
const ER_NO_SUCH_THREAD = 1094;

async function createMariaDbTenant(pool: Pool, names: TenantNames, password: string): Promise<void> {
  const db = pool.escapeId(names.database);
  await pool.query(`CREATE DATABASE IF NOT EXISTS ${db} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  const [created] = await pool.query<ResultSetHeader>(
    `CREATE USER IF NOT EXISTS ?@'%' IDENTIFIED BY ? WITH MAX_USER_CONNECTIONS ${MAX_USER_CONNECTIONS}`,
    [names.user, password],
  );
  // A warning means the user already existed (a repeated deploy): give it the password we return.
  if (created.warningStatus > 0) await pool.query(`ALTER USER ?@'%' IDENTIFIED BY ?`, [names.user, password]);
  await pool.query(`GRANT ALL PRIVILEGES ON ${db}.* TO ?@'%'`, [names.user]);
}

/** Closes every session of the user (MariaDB keeps them across password changes, locks and DROP USER). */
async function killSessions(pool: Pool, user: string): Promise<void> {
  const [sessions] = await pool.query<RowDataPacket[]>(
    'SELECT id FROM information_schema.processlist WHERE user = ?',
    [user],
  );
  for (const { id } of sessions) {
    await pool.query('KILL CONNECTION ?', [id]).catch((error: { errno?: number }) => {
      if (error.errno !== ER_NO_SUCH_THREAD) throw error;
    });
  }
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

/** The operations above on the admin pool `pool()` returns. */
export function mariadbTenants(pool: () => Pool): TenantOps {
  return {
    create: (names, password) => createMariaDbTenant(pool(), names, password),
    delete: (names) => deleteMariaDbTenant(pool(), names),
    suspend: (names) => suspendMariaDbTenant(pool(), names),
    resume: (names) => resumeMariaDbTenant(pool(), names),
    setPassword: (names, password) => setMariaDbPassword(pool(), names, password),
  };
}
