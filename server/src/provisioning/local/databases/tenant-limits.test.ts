import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCli, ensureTestPackages } from '../../../../test/provisioning/db-clients.ts';
import { deployDatabase } from '../../../../test/provisioning/engines.ts';
import { killLeftoverServers } from '../../../../test/provisioning/leftover-servers.ts';
import type { ProvisioningDriver } from '../../driver.ts';
import type { DatabaseCredentials } from '../../engine.ts';
import { tenantNames } from '../../tenant-names.ts';
import { createLocalDriver } from '../local-driver.ts';

/**
 * What a tenant of the shared MariaDB and PostgreSQL servers gets for what it was sold (tenant-limits.ts),
 * against the real servers: its connections are capped by the server (the next login is refused with
 * the engine's own error), statements stop after a default time, PostgreSQL's temporary files are
 * capped where the tenant cannot lift the cap, and a redeploy with other resources moves the limits.
 */

let root = '';
let driver: ProvisioningDriver;

beforeAll(async () => {
  await ensureTestPackages();
  root = await mkdtemp('/tmp/berth-tenant-limits-');
  driver = createLocalDriver({
    dataRoot: root,
    mysqlDiskMb: 64,
    postgresDiskMb: 64,
    databaseServers: 'shared',
  });
  await driver.start();
}, 300_000);

afterAll(async () => {
  await driver?.stop().catch(() => {});
  killLeftoverServers(root);
  if (root) await rm(root, { recursive: true, force: true });
}, 60_000);

/** Opens sessions until the server refuses one; answers how many it let in and why it refused. */
async function sessionsUntilRefused(open: () => Promise<{ end(): Promise<unknown> }>, most: number) {
  const open_: { end(): Promise<unknown> }[] = [];
  let refused = '';
  try {
    while (open_.length < most) {
      try {
        open_.push(await open());
      } catch (error) {
        refused = (error as Error).message;
        break;
      }
    }
  } finally {
    await Promise.all(open_.map((session) => session.end().catch(() => {})));
  }
  return { opened: open_.length, refused };
}

const mysqlSession = (c: DatabaseCredentials) => mysql.createConnection(c);
async function pgSession(c: DatabaseCredentials) {
  const client = new pg.Client(c);
  client.on('error', () => {});
  await client.connect();
  return client;
}

describe('MySQL tenants (MariaDB per-user resource limits)', () => {
  it('caps connections at 10 per vCPU (at least 5); statements stop after 120 s by default', async () => {
    const id = randomUUID();
    const credentials = await deployDatabase(driver, 'mysql', {
      id,
      resources: { memoryMb: 512, cpus: 0.5 },
    });
    const five = await sessionsUntilRefused(() => mysqlSession(credentials), 10);
    expect(five.opened).toBe(5);
    expect(five.refused).toMatch(/has exceeded the 'max_user_connections' resource/);
    const grants = await adminCli('mysql', root, `SHOW GRANTS FOR '${tenantNames(id).user}'@'%'`);
    expect(grants.stdout).toMatch(/MAX_USER_CONNECTIONS 5 MAX_STATEMENT_TIME 120/);
    // The statement time is the session's default (MariaDB lets a session change it, as the card says).
    const session = await mysqlSession(credentials);
    try {
      const [rows] = await session.query('SELECT @@max_statement_time AS t');
      expect(rows).toEqual([{ t: 120 }]);
      await session.query('SET SESSION max_statement_time = 0.2');
      await expect(session.query('SELECT SLEEP(2)')).rejects.toThrow(/max_statement_time exceeded/);
    } finally {
      await session.end();
    }

    // Sold more: the same user gets the new limits at the redeploy.
    await deployDatabase(driver, 'mysql', {
      id,
      password: credentials.password,
      resources: { memoryMb: 1024, cpus: 1 },
    });
    expect((await sessionsUntilRefused(() => mysqlSession(credentials), 15)).opened).toBe(10);
  });
});

describe('PostgreSQL tenants (role limits)', () => {
  it('caps connections, sets the statement time and sort memory, and temporary files the tenant cannot lift', async () => {
    const id = randomUUID();
    const credentials = await deployDatabase(driver, 'postgresql', {
      id,
      resources: { memoryMb: 512, cpus: 0.5 },
    });
    const sessions = await sessionsUntilRefused(() => pgSession(credentials), 10);
    expect(sessions.opened).toBe(5);
    expect(sessions.refused).toMatch(/too many connections for role/);

    const client = await pgSession(credentials);
    try {
      const show = async (name: string) => (await client.query(`SHOW ${name}`)).rows[0]?.[name];
      expect(await show('statement_timeout')).toBe('2min');
      expect(await show('work_mem')).toBe('8MB');
      expect(await show('temp_file_limit')).toBe('256MB');
      // temp_file_limit is for superusers to set; the tenant is not one.
      await expect(client.query('SET temp_file_limit = -1')).rejects.toThrow(/permission denied/);
      // A statement past the role's timeout (shortened here by the session, as the card says it may be).
      await client.query("SET statement_timeout = '200ms'");
      await expect(client.query('SELECT pg_sleep(2)')).rejects.toThrow(/statement timeout/);
    } finally {
      await client.end();
    }
  });
});
