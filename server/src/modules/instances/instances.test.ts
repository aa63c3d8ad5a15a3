import { REGIONS } from '@berth/openapi/rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessDatabase,
  call,
  createTestApp,
  type DeployBody,
  register,
  registerAdmin,
  type TestApp,
  variant,
} from '../../../test/create-test-app.ts';
import {
  startTestProvisioning,
  startTestRunner,
  type TestProvisioning,
  waitForGone,
  waitForStatus,
} from '../../../test/instances-harness.ts';
import { adminCli, tenantCli } from '../../../test/provisioning/db-clients.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import { BACKUPS_NOT_OFFSITE } from '../../backup-storage/object-store.ts';
import type { Db } from '../../db/database.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { type Cipher, createEphemeralCipher } from '../../lib/crypto.ts';
import type { DatabaseCredentials } from '../../provisioning/engine.ts';
import { MONGODB_UNAVAILABLE } from '../../provisioning/local/local-driver.ts';

/**
 * The instance API end to end: the real local driver (MariaDB and PostgreSQL servers), the real job
 * runner, the real `mariadb` and `psql` clients logging in with the credentials the API hands out, and
 * what this server offers. The API's own rules (ownership, plan limits, validation, live updates) are
 * tested on the memory driver in instance-rules.test.ts.
 */

type SqlType = 'mysql' | 'postgresql';
const DISPLAY = { mysql: 'MySQL', postgresql: 'PostgreSQL' } as const satisfies Record<SqlType, string>;

let db: Db;
let prov: TestProvisioning;
let runner: JobRunner;
let app: TestApp;
let cipher: Cipher;
const jobLog: string[] = [];

beforeAll(async () => {
  const database = await createTestDatabase();
  db = database.db;
  prov = await startTestProvisioning();
  cipher = createEphemeralCipher();
  app = createTestApp(db, { provisioner: prov.driver, cipher });
  runner = await startTestRunner({ ...database, driver: prov.driver, cipher, log: jobLog });
}, 300_000);

afterAll(async () => {
  await runner?.stop();
  await prov?.stop();
}, 60_000);

async function deploy(token: string, body: Omit<DeployBody, 'name'> & { name?: string }) {
  return call(app, 'POST', '/api/instances/deploy', { token, body: { name: 'My Instance', ...body } });
}

/** Deploys through the API and waits until it runs; answers the instance and its /access credentials. */
async function deployRunning(token: string, type: SqlType, name = `db-${type}`) {
  const res = await deploy(token, { name, type: DISPLAY[type], region: 'us-east-1' });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  const instance = await waitForStatus(app, token, res.json.instance.id, 'running');
  const access = await call(app, 'GET', `/api/instances/${instance.id}/access`, { token });
  expect(access.status, JSON.stringify(access.json)).toBe(200);
  const { host, port, name: database, user, password } = accessDatabase(access.json);
  const credentials: DatabaseCredentials = { host, port, database, user, password };
  return { instance, credentials, access: access.json };
}

describe('instance API with the local driver', { timeout: 60_000 }, () => {
  it('reports what can be deployed: customers read each unavailable type’s reason in their words, admins the operator’s too', async () => {
    const { token } = await register(app);
    const res = await call(app, 'GET', '/api/instances/capabilities', { token });
    expect(res.status).toBe(200);
    expect(res.json.types).toEqual([
      { type: 'mysql', name: 'MySQL', category: 'database', available: true, reason: null },
      { type: 'postgresql', name: 'PostgreSQL', category: 'database', available: true, reason: null },
      {
        type: 'mongodb',
        name: 'MongoDB',
        category: 'database',
        available: false,
        reason: 'MongoDB is not offered on this server',
      },
      {
        type: 'wordpress',
        name: 'WordPress',
        category: 'application',
        available: false,
        reason: 'WordPress is not offered on this server',
      },
      {
        type: 'n8n',
        name: 'n8n',
        category: 'application',
        available: false,
        reason: 'n8n is not offered on this server',
      },
    ]);
    // No host setting, path or command reaches a customer.
    expect(JSON.stringify(res.json)).not.toMatch(/MONGODB_ADMIN_URL|host|detail/);
    expect((await call(app, 'GET', '/api/admin/capabilities', { token })).status).toBe(403);

    const admin = await registerAdmin(app, db);
    const operator = await call(app, 'GET', '/api/admin/capabilities', { token: admin.token });
    expect(operator.status).toBe(200);
    expect(operator.json.types).toContainEqual({
      type: 'mongodb',
      name: 'MongoDB',
      category: 'database',
      available: false,
      reason: 'MongoDB is not offered on this server',
      detail: MONGODB_UNAVAILABLE,
    });
    expect(operator.json.types).toContainEqual(
      expect.objectContaining({ type: 'mysql', available: true, reason: null, detail: null }),
    );
    // No bucket configured here: the admin reads that backups are on this server, and what to set.
    expect(operator.json.backups).toEqual({
      offsite: false,
      where: expect.stringMatching(/^folder .* on this machine \(not off-site\)$/),
      detail: BACKUPS_NOT_OFFSITE,
      // No sweep of the store has run yet.
      sweep: null,
    });
    expect(JSON.stringify(res.json)).not.toContain('BACKUP_S3');
    // One host, one region (the driver's own, us-east-1 by default); every other says why not.
    expect(res.json.regions).toHaveLength(REGIONS.length);
    expect(res.json.regions[0]).toEqual({
      id: 'us-east-1',
      label: 'US East (N. Virginia)',
      available: true,
      reason: null,
    });
    expect(res.json.regions.find((r: { id: string }) => r.id === 'eu-west-1')).toEqual({
      id: 'eu-west-1',
      label: 'EU West (Ireland)',
      available: false,
      reason: 'This server runs instances in US East (N. Virginia) only',
    });
  });

  it('refuses a deploy to a region this server does not serve, saying which it serves, and records nothing', async () => {
    const { token } = await register(app);
    const res = await deploy(token, { name: 'Far away', type: 'MySQL', region: 'ap-south-1' });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: 'validation_error',
      message: 'This server runs instances in US East (N. Virginia) only',
    });
    expect((await call(app, 'GET', '/api/instances', { token })).json.total).toBe(0);
  });

  it.each(['mysql', 'postgresql'] as const)(
    'deploys %s through the API; the real client connects with the /access credentials',
    async (type) => {
      const { token } = await register(app);
      const res = await deploy(token, { name: '  Shop data  ', type: DISPLAY[type], description: 'orders' });
      expect(res.status).toBe(202);
      expect(res.json.message).toBe('Instance deployment initiated');
      expect(res.json).not.toHaveProperty('uniqueUrl');
      const id = res.json.instance.id;
      expect(res.json.instance).toMatchObject({
        _id: id,
        name: 'Shop data',
        description: 'orders',
        type: DISPLAY[type],
        product: type,
        category: 'database',
        status: 'deploying',
        statusMessage: null,
        url: null,
        adminUrl: null,
        region: 'us-east-1',
        deploymentConfig: { region: 'us-east-1', memory: '4GB', cpu: '2' },
        suspended: false,
        customDomain: null,
        metadata: { database: true, [type === 'mysql' ? 'mysql' : 'postgres']: true },
      });

      const running = await waitForStatus(app, token, id, 'running');
      expect(running.statusMessage).toBeNull();
      const access = await call(app, 'GET', `/api/instances/${id}/access?type=${DISPLAY[type]}`, { token });
      expect(access.status).toBe(200);
      const { sftp } = variant(access.json, 'database');
      const database = accessDatabase(access.json);
      const key = id.replaceAll('-', '_');
      expect(sftp).toBeNull();
      expect(database).toMatchObject({ host: '127.0.0.1', name: `t_${key}`, user: `u_${key}` });
      expect(database.password).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(database.connectionString).toBe(
        `${type}://u_${key}:${database.password}@127.0.0.1:${database.port}/t_${key}`,
      );

      const { tls: _tls, ...plain } = database;
      const credentials = { ...plain, database: database.name };
      const used = await tenantCli(
        type,
        credentials,
        "CREATE TABLE notes (id int PRIMARY KEY, body text); INSERT INTO notes VALUES (1, 'hello'); SELECT body FROM notes;",
      );
      expect(used.stderr).toBe('');
      expect(used.stdout).toBe('hello');

      // At rest the credentials are ciphertext: the password is nowhere in the row.
      const stored = await db
        .selectFrom('instance_credentials')
        .selectAll()
        .where('instance_id', '=', id)
        .execute();
      expect(stored).toHaveLength(1);
      expect(stored[0]?.secret).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(stored[0]?.secret).not.toContain(database.password);
      expect(JSON.stringify(stored)).not.toContain(database.password);
    },
  );

  it.each(['mysql', 'postgresql'] as const)(
    'changes the %s password: answers "{type} password updated", the old one fails, the new one works',
    async (type) => {
      const { token } = await register(app);
      const { instance, credentials } = await deployRunning(token, type);
      const password = `N3w-pass "quoted" \\ ${type}!`;
      const res = await call(app, 'POST', `/api/instances/${instance.id}/password`, {
        token,
        body: { type: DISPLAY[type], password },
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json).toEqual({ message: `${DISPLAY[type]} password updated` });

      const old = await tenantCli(type, credentials, 'SELECT 1');
      expect(old.ok).toBe(false);
      expect(old.stderr).toMatch(/denied|authentication failed/);
      expect((await tenantCli(type, { ...credentials, password }, 'SELECT 1')).stdout).toBe('1');
      const access = await call(app, 'GET', `/api/instances/${instance.id}/access`, { token });
      expect(accessDatabase(access.json).password).toBe(password);
      const stored = await db
        .selectFrom('instance_credentials')
        .select(['secret', 'pending_password'])
        .where('instance_id', '=', instance.id)
        .executeTakeFirstOrThrow();
      expect(stored.pending_password).toBeNull();
      expect(stored.secret).not.toContain(password);
    },
  );

  it.each(['mysql', 'postgresql'] as const)(
    'deletes a %s instance: 202, then the row, the login and the database are gone',
    async (type) => {
      const { token } = await register(app);
      const { instance, credentials } = await deployRunning(token, type);
      const res = await call(app, 'DELETE', `/api/instances/${instance.id}?type=${DISPLAY[type]}`, { token });
      expect(res.status).toBe(202);
      expect(res.json.message).toBe('Instance deletion initiated');
      expect(res.json.instance.status).toBe('deleting');
      await waitForGone(app, token, instance.id);

      expect((await tenantCli(type, credentials, 'SELECT 1')).ok).toBe(false);
      const sql =
        type === 'mysql'
          ? `SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = '${credentials.database}'`
          : `SELECT COUNT(*) FROM pg_database WHERE datname = '${credentials.database}'`;
      expect(await adminCli(type, prov.root, sql)).toMatchObject({ ok: true, stdout: '0' });
      const rows = await db
        .selectFrom('instance_credentials')
        .selectAll()
        .where('instance_id', '=', instance.id)
        .execute();
      expect(rows).toEqual([]);
    },
  );

  it.each(['mysql', 'postgresql'] as const)(
    'isolates %s tenants: A cannot open B’s database with A’s credentials',
    async (type) => {
      const a = await register(app);
      const b = await register(app);
      const tenantA = (await deployRunning(a.token, type)).credentials;
      const tenantB = (await deployRunning(b.token, type)).credentials;
      const intoB = await tenantCli(type, { ...tenantA, database: tenantB.database }, 'SELECT 1');
      expect(intoB.ok).toBe(false);
      expect(intoB.stderr).toMatch(type === 'mysql' ? /Access denied/ : /permission denied for database/);
      expect((await tenantCli(type, { ...tenantB, password: tenantA.password }, 'SELECT 1')).ok).toBe(false);
    },
  );

  it.each([
    ['WordPress', 'WordPress is not offered on this server'],
    ['n8n', 'n8n is not offered on this server'],
    ['MongoDB', 'MongoDB is not offered on this server'],
  ] as const)('answers 409 with the customer’s reason for %s', async (type, reason) => {
    const other = await register(app);
    const res = await deploy(other.token, { type });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ error: 'conflict', message: reason, details: { reason } });
    expect((await call(app, 'GET', '/api/instances', { token: other.token })).json.total).toBe(0);
  });
});
