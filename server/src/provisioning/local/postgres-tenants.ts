import { escapeIdentifier, escapeLiteral, type Pool } from 'pg';
import { NotFoundError } from '../../lib/errors.ts';
import type { TenantNames } from '../tenant-names.ts';
import type { TenantOps } from './engine-server.ts';

/**
 * PostgreSQL instances are tenants of a PostgreSQL server: role `u_<id>` (LOGIN, 20 connections) owning
 * database `t_<id>`, whose CONNECT right is revoked from PUBLIC. Utility statements take no $1
 * parameters, so names (already [a-z0-9_] only) and passwords are escaped with pg's escape functions.
 * Role and database names are visible cluster-wide in pg_roles / pg_database (names only, no data).
 */

const CONNECTION_LIMIT = 20;

/** SQLSTATE undefined_object: ALTER ROLE of a role that does not exist. */
const UNDEFINED_OBJECT = '42704';

/**
 * Once per server: out of the box every role may connect to `postgres` and `template1`. Closes them to
 * tenants (CREATE DATABASE from template1 still works for the admin).
 */
export async function hardenPostgresServer(pool: Pool): Promise<void> {
  await pool.query('REVOKE CONNECT, TEMPORARY ON DATABASE postgres FROM PUBLIC');
  await pool.query('REVOKE CONNECT ON DATABASE template1 FROM PUBLIC');
  await pool.query('GRANT CONNECT ON DATABASE postgres TO CURRENT_USER');
}

async function exists(pool: Pool, sql: string, name: string): Promise<boolean> {
  return ((await pool.query(sql, [name])).rowCount ?? 0) > 0;
}

async function createPostgresTenant(pool: Pool, names: TenantNames, password: string): Promise<void> {
  const role = escapeIdentifier(names.user);
  const db = escapeIdentifier(names.database);
  if (await exists(pool, 'SELECT 1 FROM pg_roles WHERE rolname = $1', names.user)) {
    await pool.query(`ALTER ROLE ${role} PASSWORD ${escapeLiteral(password)}`);
  } else {
    await pool.query(
      `CREATE ROLE ${role} LOGIN PASSWORD ${escapeLiteral(password)} CONNECTION LIMIT ${CONNECTION_LIMIT}`,
    );
  }
  // A non-superuser admin must be a member of the role to create a database owned by it.
  await pool.query(`GRANT ${role} TO CURRENT_USER`);
  if (!(await exists(pool, 'SELECT 1 FROM pg_database WHERE datname = $1', names.database))) {
    await pool.query(`CREATE DATABASE ${db} OWNER ${role} ENCODING 'UTF8' TEMPLATE template0`);
  }
  // Always (also on a retry after a crash right after CREATE DATABASE): only the owner may connect.
  await pool.query(`REVOKE ALL ON DATABASE ${db} FROM PUBLIC`);
}

async function terminateSessions(pool: Pool, user: string): Promise<void> {
  await pool.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [user]);
}

/** Runs an ALTER ROLE, turning "no such role" into a NotFoundError. */
async function alterRole(pool: Pool, sql: string): Promise<void> {
  try {
    await pool.query(sql);
  } catch (error) {
    if ((error as { code?: string }).code === UNDEFINED_OBJECT) {
      throw new NotFoundError('Database instance not found');
    }
    throw error;
  }
}

async function deletePostgresTenant(pool: Pool, names: TenantNames): Promise<void> {
  const role = escapeIdentifier(names.user);
  if (await exists(pool, 'SELECT 1 FROM pg_roles WHERE rolname = $1', names.user)) {
    await pool.query(`ALTER ROLE ${role} NOLOGIN`);
  }
  // FORCE terminates the sessions still connected to it.
  await pool.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(names.database)} WITH (FORCE)`);
  await terminateSessions(pool, names.user);
  await pool.query(`DROP ROLE IF EXISTS ${role}`);
}

async function suspendPostgresTenant(pool: Pool, names: TenantNames): Promise<void> {
  await alterRole(pool, `ALTER ROLE ${escapeIdentifier(names.user)} NOLOGIN`);
  await terminateSessions(pool, names.user);
}

async function resumePostgresTenant(pool: Pool, names: TenantNames): Promise<void> {
  await alterRole(pool, `ALTER ROLE ${escapeIdentifier(names.user)} LOGIN`);
}

async function setPostgresPassword(pool: Pool, names: TenantNames, password: string): Promise<void> {
  await alterRole(pool, `ALTER ROLE ${escapeIdentifier(names.user)} PASSWORD ${escapeLiteral(password)}`);
  await terminateSessions(pool, names.user);
}

/** The operations above on the admin pool `pool()` returns. */
export function postgresTenants(pool: () => Pool): TenantOps {
  return {
    create: (names, password) => createPostgresTenant(pool(), names, password),
    delete: (names) => deletePostgresTenant(pool(), names),
    suspend: (names) => suspendPostgresTenant(pool(), names),
    resume: (names) => resumePostgresTenant(pool(), names),
    setPassword: (names, password) => setPostgresPassword(pool(), names, password),
  };
}
