import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCli, ensureTestPackages, tenantCli } from '../../../test/provisioning/db-clients.ts';
import { deployDatabase, required } from '../../../test/provisioning/engines.ts';
import { formatLatency, measureDeployLatency } from '../deploy-latency.ts';
import type { ProvisioningDriver } from '../driver.ts';
import type { DatabaseCredentials } from '../engine.ts';
import { createLocalDriver, MONGODB_UNAVAILABLE, NO_FRONT_DOOR } from './local-driver.ts';

/**
 * The local driver against real servers: Debian's MariaDB and PostgreSQL 15, run by the driver in a
 * temp data root, checked with the real `mariadb` and `psql` clients.
 */

type SqlType = 'mysql' | 'postgresql';
const TYPES: SqlType[] = ['mysql', 'postgresql'];

let root = '';
let driver: ProvisioningDriver;
const logs: string[] = [];
const newDriver = () =>
  createLocalDriver({ dataRoot: root, databaseServers: 'shared', log: (line) => logs.push(line) });

/** Pids of the servers, from the supervisor's pid files. */
function serverPids(): number[] {
  const run = path.join(root, 'run');
  if (!existsSync(run)) return [];
  return readdirSync(run).map((file) => Number.parseInt(readFileSync(path.join(run, file), 'utf8'), 10));
}
const alive = (pid: number) =>
  existsSync(`/proc/${pid}/cmdline`) && readFileSync(`/proc/${pid}/cmdline`).length > 0;

/** A live tenant session that stays open (like a customer's app), to see whether the driver kills it. */
async function openSession(type: SqlType, c: DatabaseCredentials): Promise<() => Promise<unknown>> {
  if (type === 'mysql') {
    const connection = await mysql.createConnection(c);
    connection.on('error', () => {});
    return () => connection.query('SELECT 1');
  }
  const client = new pg.Client(c);
  client.on('error', () => {});
  await client.connect();
  return () => client.query('SELECT 1');
}

beforeAll(async () => {
  await ensureTestPackages();
  // Directly under /tmp: the mysql and postgres users must be able to traverse it.
  root = await mkdtemp('/tmp/berth-prov-');
  driver = newDriver();
  await driver.start();
}, 300_000);

afterAll(async () => {
  await driver?.stop().catch(() => {});
  for (const pid of serverPids()) if (alive(pid)) process.kill(pid, 'SIGKILL'); // only after a failure
  if (root) await rm(root, { recursive: true, force: true });
}, 60_000);

describe('local provisioning driver', { timeout: 60_000 }, () => {
  const a: Partial<Record<SqlType, DatabaseCredentials>> = {};
  const b: Partial<Record<SqlType, DatabaseCredentials>> = {};
  const idA = randomUUID();
  const idB = randomUUID();
  const creds = (which: typeof a, type: SqlType) => {
    const c = which[type];
    if (!c) throw new Error(`no ${type} tenant deployed`);
    return c;
  };

  it('reports what it can provision', async () => {
    expect(await driver.capabilities(), logs.join('\n')).toEqual({
      mysql: { available: true },
      postgresql: { available: true },
      mongodb: {
        available: false,
        reason: 'MongoDB is not offered on this server',
        detail: MONGODB_UNAVAILABLE,
      },
      wordpress: {
        available: false,
        reason: 'WordPress is not offered on this server',
        detail: NO_FRONT_DOOR,
      },
      n8n: { available: false, reason: 'n8n is not offered on this server', detail: NO_FRONT_DOOR },
    });
    const health = await driver.health();
    expect(health.ok).toBe(true);
    expect(health.servers.mysql).toMatchObject({ kind: 'local', state: 'running', ok: true });
    expect(health.servers.postgresql).toMatchObject({ kind: 'local', state: 'running', ok: true });
  });

  it.each(TYPES)('deploys a %s tenant that the real client can use', async (type) => {
    a[type] = await deployDatabase(driver, type, { id: idA });
    const c = creds(a, type);
    expect(c).toMatchObject({ host: '127.0.0.1', database: `t_${idA.replaceAll('-', '_')}` });
    expect(c.password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const result = await tenantCli(
      type,
      c,
      "CREATE TABLE notes (id int PRIMARY KEY, body text); INSERT INTO notes VALUES (1, 'hello'); SELECT body FROM notes;",
    );
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('hello');
  });

  it('isolates MySQL tenants: no access to another database, no CREATE DATABASE', async () => {
    b.mysql = await deployDatabase(driver, 'mysql', { id: idB });
    const tenantA = creds(a, 'mysql');
    const otherDb = creds(b, 'mysql').database;
    const use = await tenantCli('mysql', tenantA, `USE ${otherDb}`);
    expect(use.stderr).toMatch(/Access denied .* to database '?t_/);
    expect((await tenantCli('mysql', tenantA, `SELECT * FROM ${otherDb}.notes`)).stderr).toMatch(/denied/);
    expect((await tenantCli('mysql', tenantA, 'CREATE DATABASE sneaky')).stderr).toMatch(/Access denied/);
    const shown = await tenantCli('mysql', tenantA, 'SHOW DATABASES');
    expect(shown.stdout.split('\n').sort()).toEqual(['information_schema', tenantA.database].sort());
  });

  it('isolates PostgreSQL tenants: no connection to another database or postgres, no CREATE DATABASE', async () => {
    b.postgresql = await deployDatabase(driver, 'postgresql', { id: idB });
    const tenantA = creds(a, 'postgresql');
    const other = await tenantCli(
      'postgresql',
      { ...tenantA, database: creds(b, 'postgresql').database },
      'SELECT 1',
    );
    expect(other.stderr).toMatch(/permission denied for database/);
    const postgres = await tenantCli('postgresql', { ...tenantA, database: 'postgres' }, 'SELECT 1');
    expect(postgres.stderr).toMatch(/permission denied for database "postgres"/);
    expect((await tenantCli('postgresql', tenantA, 'CREATE DATABASE sneaky')).stderr).toMatch(
      /permission denied/,
    );
  });

  it.each(TYPES)('deploying %s again keeps the tenant and its data', async (type) => {
    const before = creds(a, type);
    const again = await deployDatabase(driver, type, { id: idA, password: before.password });
    expect(again).toEqual(before);
    // Without a password a fresh one is generated and the old one stops working; the data stays.
    const regenerated = await deployDatabase(driver, type, { id: idA });
    expect({ ...regenerated, password: before.password }).toEqual(before);
    expect((await tenantCli(type, before, 'SELECT 1')).ok).toBe(false);
    expect((await tenantCli(type, regenerated, 'SELECT body FROM notes')).stdout).toBe('hello');
    a[type] = regenerated;
  });

  it.each(TYPES)(
    'changes the %s password: the old one fails, the new one works, sessions end',
    async (type) => {
      const old = creds(a, type);
      const session = await openSession(type, old);
      await session();
      const password = `it's "new" \\ $x-${randomUUID()}`; // quotes and backslashes: escaping is real
      await required(driver.engine(type).password).change(idA, password);
      await expect(session()).rejects.toThrow();
      expect((await tenantCli(type, old, 'SELECT 1')).ok).toBe(false);
      a[type] = { ...old, password };
      expect((await tenantCli(type, creds(a, type), 'SELECT body FROM notes')).stdout).toBe('hello');
    },
  );

  it.each(TYPES)('suspends a %s tenant (logins refused, sessions ended) and resumes it', async (type) => {
    const c = creds(a, type);
    const session = await openSession(type, c);
    await driver.engine(type).suspend(idA);
    await expect(session()).rejects.toThrow();
    const refused = await tenantCli(type, c, 'SELECT 1');
    expect(refused.stderr).toMatch(type === 'mysql' ? /account is locked/ : /not permitted to log in/);
    await driver.engine(type).resume(idA);
    expect((await tenantCli(type, c, 'SELECT body FROM notes')).stdout).toBe('hello');
  });

  it.each(TYPES)('refuses %s operations on an unknown instance with not found', async (type) => {
    await expect(driver.engine(type).suspend(randomUUID())).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(deployDatabase(driver, type, { id: 'Robert"; DROP' })).rejects.toMatchObject({
      code: 'validation_error',
    });
  });

  it.each(TYPES)('deletes a %s tenant: login fails and the database is gone', async (type) => {
    const c = creds(b, type);
    await driver.engine(type).delete(idB);
    expect((await tenantCli(type, c, 'SELECT 1')).ok).toBe(false);
    const sql =
      type === 'mysql'
        ? `SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = '${c.database}'`
        : `SELECT COUNT(*) FROM pg_database WHERE datname = '${c.database}'`;
    expect(await adminCli(type, root, sql)).toMatchObject({ ok: true, stdout: '0' });
    await driver.engine(type).delete(idB); // deleting again is a no-op
  });

  it('uses existing servers given by admin URLs (non-superuser PostgreSQL admin)', async () => {
    const pw = randomUUID();
    const mysqlAdmin = await adminCli(
      'mysql',
      root,
      `CREATE USER ext_admin@'127.0.0.1' IDENTIFIED BY '${pw}'; GRANT ALL ON *.* TO ext_admin@'127.0.0.1' WITH GRANT OPTION;`,
    );
    const pgAdmin = await adminCli(
      'postgresql',
      root,
      `CREATE ROLE ext_admin LOGIN CREATEDB CREATEROLE PASSWORD '${pw}'; GRANT CONNECT ON DATABASE postgres TO ext_admin;`,
    );
    expect([mysqlAdmin.stderr, pgAdmin.stderr]).toEqual(['', '']);
    const ports = Object.fromEntries(
      Object.entries((await driver.health()).servers).map(([type, health]) => [type, health.port]),
    );
    const external = createLocalDriver({
      dataRoot: path.join(root, 'unused'),
      mysqlAdminUrl: `mysql://ext_admin:${pw}@127.0.0.1:${ports.mysql}`,
      postgresAdminUrl: `postgres://ext_admin:${pw}@127.0.0.1:${ports.postgresql}/postgres`,
      log: (line) => logs.push(line),
    });
    await external.start();
    try {
      expect(await external.health(), logs.join('\n')).toMatchObject({
        ok: true,
        servers: { mysql: { kind: 'external', ok: true }, postgresql: { kind: 'external', ok: true } },
      });
      for (const type of TYPES) {
        const id = randomUUID();
        const c = await deployDatabase(external, type, { id });
        expect((await tenantCli(type, c, 'CREATE TABLE t (x int); SELECT 42')).stdout).toBe('42');
        await external.engine(type).suspend(id);
        expect((await tenantCli(type, c, 'SELECT 1')).ok).toBe(false);
        await external.engine(type).delete(id);
      }
    } finally {
      await external.stop();
    }
    expect(existsSync(path.join(root, 'unused'))).toBe(false); // nothing local was started
  });

  it('stops its servers; a new driver on the same data root brings them back with tenants intact', async () => {
    const pids = serverPids();
    expect(pids).toHaveLength(2);
    await driver.stop();
    expect(pids.filter(alive)).toEqual([]);
    driver = newDriver();
    await driver.start();
    for (const type of TYPES) {
      // Same port as before (remembered), same password, same data.
      expect((await tenantCli(type, creds(a, type), 'SELECT body FROM notes')).stdout).toBe('hello');
    }
  });

  it('adopts the servers of a crashed API process, and restarts a server that dies', async () => {
    await driver.stop();
    const script = path.resolve(import.meta.dirname, '../../../test/provisioning/start-driver.ts');
    const child = spawn(process.execPath, [script, root], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = once(child, 'exit');
    let line: unknown;
    try {
      [line] = await once(createInterface({ input: child.stdout }), 'line');
    } finally {
      child.kill('SIGKILL'); // the "crash"
      await exited;
    }
    const started = JSON.parse(String(line)) as Record<SqlType, number>;
    expect(alive(started.mysql) && alive(started.postgresql)).toBe(true);

    driver = newDriver();
    await driver.start();
    const health = await driver.health();
    expect(health.servers.mysql).toMatchObject({ pid: started.mysql, ok: true });
    expect(health.servers.postgresql).toMatchObject({ pid: started.postgresql, ok: true });
    expect(logs.join('\n')).toContain(`adopted running pid ${started.mysql}`);
    for (const type of TYPES) {
      expect((await tenantCli(type, creds(a, type), 'SELECT body FROM notes')).stdout).toBe('hello');
    }

    // A server that dies is noticed (adopted: by polling /proc) and restarted after a backoff.
    process.kill(started.mysql, 'SIGKILL');
    let mysqlHealth = (await driver.health()).servers.mysql;
    for (
      let i = 0;
      i < 100 && !(mysqlHealth?.state === 'running' && mysqlHealth.pid !== started.mysql);
      i += 1
    ) {
      await sleep(100);
      mysqlHealth = (await driver.health()).servers.mysql;
    }
    expect(mysqlHealth).toMatchObject({ state: 'running', ok: true, restarts: 1 });
    expect(mysqlHealth?.pid).not.toBe(started.mysql);
    expect((await tenantCli('mysql', creds(a, 'mysql'), 'SELECT body FROM notes')).stdout).toBe('hello');
  });

  it('measures deploy-to-ready latency (20 deploys per engine)', { timeout: 120_000 }, async () => {
    for (const type of TYPES) {
      const summary = await measureDeployLatency(driver, type, 20);
      console.log(formatLatency(summary));
      expect(summary.count).toBe(20);
    }
  });
});
