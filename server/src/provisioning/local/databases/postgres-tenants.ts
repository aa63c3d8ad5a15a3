import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { type Client, escapeIdentifier, escapeLiteral, type Pool } from 'pg';
import { NotFoundError } from '../../../lib/errors.ts';
import type { TenantNames } from '../../tenant-names.ts';
import { DEFAULT_LIMITS } from '../host/control-groups.ts';
import { allocateFiles } from '../host/tenant-disks.ts';
import type { SpareSteps } from './database-disks.ts';
import type { TenantOps } from './engine-server.ts';
import { type TenantLimits, tenantLimits } from './tenant-limits.ts';

/**
 * PostgreSQL instances are tenants of a PostgreSQL server: role `u_<id>` (LOGIN, 20 connections) owning
 * database `t_<id>`, whose CONNECT right is revoked from PUBLIC. Utility statements take no $1
 * parameters, so names (already [a-z0-9_] only) and passwords are escaped with pg's escape functions.
 * Role and database names are visible cluster-wide in pg_roles / pg_database (names only, no data).
 *
 * On the server the driver runs, each tenant database has a tablespace of its own, `t_<id>`, located on
 * the tenant's disk (database-disks.ts) and made the database's default: its tables, indexes, TOAST
 * values, large objects and the temporary files of its sorts and temporary tables (`temp_tablespaces`
 * empty: the database's default) all land there, and a full disk fails the statement ("could not extend
 * file … No space left on device"). The tablespace belongs to the admin: the tenant may use it as its
 * database's default but holds CREATE on no tablespace, so it can neither name another one (pg_default
 * answers "permission denied for tablespace") nor move its database.
 *
 * A full disk must never stop the server's checkpoints (until they complete, the write-ahead log grows
 * on the host's disk). A checkpoint writes pages already in memory, which never needs new room on a
 * disk unless the page lies in a hole of its file; PostgreSQL 15 leaves holes in two places, both closed
 * here: CREATE DATABASE (it writes only the last page of each file and keeps the others in memory until
 * the next checkpoint: every file of the new database gets all its blocks at once, before the tenant can
 * write, see allocateNewDatabase) and hash indexes (a bucket split writes only the last page of the new
 * buckets: refused, see TENANT_GUARD_SQL).
 */

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

/**
 * Put once into template1 of the server the driver runs, from which its tenant databases are made: an
 * event trigger refusing hash indexes, whatever statement makes them (CREATE INDEX, constraints,
 * CREATE TABLE … LIKE). The schema and the trigger are the admin's: the tenant, owner of its database
 * but no superuser, can neither drop nor disable them.
 */
const TENANT_GUARD_SQL = `
CREATE SCHEMA IF NOT EXISTS berth;
REVOKE ALL ON SCHEMA berth FROM PUBLIC;
CREATE OR REPLACE FUNCTION berth.refuse_hash_indexes() RETURNS event_trigger
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM pg_event_trigger_ddl_commands() c
    JOIN pg_class i ON i.oid = c.objid JOIN pg_am a ON a.oid = i.relam
    WHERE c.classid = 'pg_class'::regclass AND a.amname = 'hash'
  ) THEN
    RAISE EXCEPTION 'hash indexes are not available on this server: use a btree index';
  END IF;
END $$;
DROP EVENT TRIGGER IF EXISTS berth_refuse_hash_indexes;
CREATE EVENT TRIGGER berth_refuse_hash_indexes ON ddl_command_end
  EXECUTE FUNCTION berth.refuse_hash_indexes();
`;

/** Installs TENANT_GUARD_SQL into template1 through `template1` (an admin session on that database). */
export async function guardTenantTemplate(template1: Client): Promise<void> {
  await template1.query(TENANT_GUARD_SQL);
}

/** Share of the NOTIFY queue's 8 GB from which the sessions holding it back are ended (about 80 MB). */
const NOTIFY_QUEUE_SHARE = 0.01;

/**
 * PostgreSQL keeps every NOTIFY until each listening session has read it, in `pg_notify/` in the data
 * folder (the host's disk, not the tenant's), up to 8 GB: a tenant's session that listens and never
 * reads (a transaction left open, a client that stops reading) would let its other sessions fill it.
 * When the queue passes NOTIFY_QUEUE_SHARE, the tenant sessions that can hold it back are ended: those in
 * a transaction open for over a minute, and those waiting for their client to read. Answers how many.
 */
export async function relieveNotifyQueue(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ usage: number }>('SELECT pg_notification_queue_usage() AS usage');
  if ((rows[0]?.usage ?? 0) < NOTIFY_QUEUE_SHARE) return 0;
  const ended = await pool.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
     WHERE usename LIKE 'u\\_%' AND (xact_start < now() - interval '1 minute' OR wait_event = 'ClientWrite')`,
  );
  return ended.rowCount ?? 0;
}

/**
 * After CREATE DATABASE on a tenant's disk: the new database's files given all their blocks
 * (allocateFiles: milliseconds), or, where that cannot be done, a checkpoint, which writes them (a few
 * hundred milliseconds, and it writes whatever else is waiting too).
 */
async function allocateNewDatabase(pool: Pool, database: string, location: string): Promise<void> {
  const { rows } = await pool.query<{ oid: number }>('SELECT oid FROM pg_database WHERE datname = $1', [
    database,
  ]);
  const version = (await readdir(location)).find((name) => name.startsWith('PG_'));
  if (rows[0] && version && (await allocateFiles(path.join(location, version, String(rows[0].oid))))) return;
  await pool.query('CHECKPOINT');
}

async function exists(pool: Pool, sql: string, name: string): Promise<boolean> {
  return ((await pool.query(sql, [name])).rowCount ?? 0) > 0;
}

async function createPostgresTenant(
  pool: Pool,
  names: TenantNames,
  password: string,
  tablespaceLocation: string | undefined,
  limits: TenantLimits,
): Promise<void> {
  const role = escapeIdentifier(names.user);
  const db = escapeIdentifier(names.database);
  // Named like the database (a namespace of its own); absent only on a retry after a crash right before.
  if (
    tablespaceLocation &&
    !(await exists(pool, 'SELECT 1 FROM pg_tablespace WHERE spcname = $1', names.database))
  ) {
    await pool.query(`CREATE TABLESPACE ${db} LOCATION ${escapeLiteral(tablespaceLocation)}`);
  }
  const connections = `CONNECTION LIMIT ${limits.connections}`;
  if (await exists(pool, 'SELECT 1 FROM pg_roles WHERE rolname = $1', names.user)) {
    await pool.query(`ALTER ROLE ${role} PASSWORD ${escapeLiteral(password)} ${connections}`);
  } else {
    await pool.query(`CREATE ROLE ${role} LOGIN PASSWORD ${escapeLiteral(password)} ${connections}`);
  }
  await setRoleLimits(pool, role, limits);
  // A non-superuser admin must be a member of the role to create a database owned by it.
  await pool.query(`GRANT ${role} TO CURRENT_USER`);
  if (!(await exists(pool, 'SELECT 1 FROM pg_database WHERE datname = $1', names.database))) {
    if (tablespaceLocation) {
      await pool.query(`CREATE DATABASE ${db} OWNER ${role} TEMPLATE template1 TABLESPACE ${db}`);
      await allocateNewDatabase(pool, names.database, tablespaceLocation);
    } else {
      await pool.query(`CREATE DATABASE ${db} OWNER ${role} ENCODING 'UTF8' TEMPLATE template0`);
    }
  }
  // A database that was a warm spare (database-disks.ts) is the admin's until now.
  await pool.query(`ALTER DATABASE ${db} OWNER TO ${role}`);
  if (tablespaceLocation) await moveOntoTablespace(pool, names);
  // Always (also on a retry after a crash right after CREATE DATABASE): only the owner may connect.
  await pool.query(`REVOKE ALL ON DATABASE ${db} FROM PUBLIC`);
}

/**
 * The role's session settings (tenant-limits.ts): statement_timeout and work_mem as defaults (a session
 * may change them), temp_file_limit enforced (only a superuser may set or change it: an admin that is
 * not one, on an existing server, leaves it out).
 */
async function setRoleLimits(pool: Pool, role: string, limits: TenantLimits): Promise<void> {
  await pool.query(`ALTER ROLE ${role} SET statement_timeout = '${limits.statementSeconds}s'`);
  await pool.query(`ALTER ROLE ${role} SET work_mem = '${limits.workMemMb}MB'`);
  await pool.query(`ALTER ROLE ${role} SET temp_file_limit = '${limits.tempFilesMb}MB'`).catch(() => {});
}

/**
 * A database made before tenants had tablespaces moves onto its own at its next deploy (its sessions
 * end; the files are copied). One that does not fit on its disk stays where it is, without a limit.
 */
async function moveOntoTablespace(pool: Pool, names: TenantNames): Promise<void> {
  const { rows } = await pool.query<{ spcname: string }>(
    'SELECT t.spcname FROM pg_database d JOIN pg_tablespace t ON t.oid = d.dattablespace WHERE d.datname = $1',
    [names.database],
  );
  if (!rows[0] || rows[0].spcname === names.database) return;
  const db = escapeIdentifier(names.database);
  await pool.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [
    names.database,
  ]);
  await pool.query(`ALTER DATABASE ${db} SET TABLESPACE ${db}`).catch(() => {});
}

/**
 * PostgreSQL's part of a warm spare disk (database-disks.ts): the tablespace and the database a deploy
 * would make, named `spare_<disk>` until a tenant takes them, the database closed to everyone and its
 * files given their blocks (so the deploy itself runs no CREATE DATABASE).
 */
export function postgresSpareSteps(pool: () => Pool): SpareSteps {
  const renameIfThere = async (catalog: 'pg_tablespace' | 'pg_database', from: string, to: string) => {
    const column = catalog === 'pg_tablespace' ? 'spcname' : 'datname';
    const what = catalog === 'pg_tablespace' ? 'TABLESPACE' : 'DATABASE';
    if (await exists(pool(), `SELECT 1 FROM ${catalog} WHERE ${column} = $1`, from)) {
      await pool().query(`ALTER ${what} ${escapeIdentifier(from)} RENAME TO ${escapeIdentifier(to)}`);
    }
  };
  return {
    async prepare(spare, location) {
      const name = escapeIdentifier(spare);
      await pool().query(`CREATE TABLESPACE ${name} LOCATION ${escapeLiteral(location)}`);
      await pool().query(`CREATE DATABASE ${name} TEMPLATE template1 TABLESPACE ${name}`);
      await pool().query(`REVOKE ALL ON DATABASE ${name} FROM PUBLIC`);
      await allocateNewDatabase(pool(), spare, location);
    },
    async adopt(spare, database) {
      await renameIfThere('pg_tablespace', spare, database);
      await renameIfThere('pg_database', spare, database);
    },
    async discard(spare) {
      await pool().query(`DROP DATABASE IF EXISTS ${escapeIdentifier(spare)} WITH (FORCE)`);
      await pool().query(`DROP TABLESPACE IF EXISTS ${escapeIdentifier(spare)}`);
    },
  };
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

async function deletePostgresTenant(pool: Pool, names: TenantNames, ownTablespace: boolean): Promise<void> {
  const role = escapeIdentifier(names.user);
  if (await exists(pool, 'SELECT 1 FROM pg_roles WHERE rolname = $1', names.user)) {
    await pool.query(`ALTER ROLE ${role} NOLOGIN`);
  }
  // FORCE terminates the sessions still connected to it.
  await pool.query(`DROP DATABASE IF EXISTS ${escapeIdentifier(names.database)} WITH (FORCE)`);
  await terminateSessions(pool, names.user);
  await pool.query(`DROP ROLE IF EXISTS ${role}`);
  if (ownTablespace) await pool.query(`DROP TABLESPACE IF EXISTS ${escapeIdentifier(names.database)}`);
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

/**
 * The operations above on the admin pool `pool()` returns; `tablespaceOf` names where a tenant's
 * tablespace lies (its disk), when tenants get one.
 */
export function postgresTenants(pool: () => Pool, tablespaceOf?: (names: TenantNames) => string): TenantOps {
  return {
    create: (names, password, _limitMb, limits = tenantLimits(DEFAULT_LIMITS)) =>
      createPostgresTenant(pool(), names, password, tablespaceOf?.(names), limits),
    delete: (names) => deletePostgresTenant(pool(), names, tablespaceOf !== undefined),
    suspend: (names) => suspendPostgresTenant(pool(), names),
    resume: (names) => resumePostgresTenant(pool(), names),
    setPassword: (names, password) => setPostgresPassword(pool(), names, password),
    exists: (names) => exists(pool(), 'SELECT 1 FROM pg_roles WHERE rolname = $1', names.user),
  };
}
