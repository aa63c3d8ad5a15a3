import { REGIONS } from '@berth/openapi/rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessDatabase,
  call,
  createTestApp,
  type DeployBody,
  type Method,
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
import { listen } from '../../../test/listen.ts';
import { adminCli, tenantCli } from '../../../test/provisioning/db-clients.ts';
import { type EventStream, openEventStream } from '../../../test/sse-client.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import { BACKUPS_NOT_OFFSITE } from '../../backup-storage/object-store.ts';
import type { Db } from '../../db/database.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { type Cipher, createEphemeralCipher } from '../../lib/crypto.ts';
import { type PgListener, startPgListener } from '../../lib/pg-listener.ts';
import type { DatabaseCredentials } from '../../provisioning/engine.ts';
import { MONGODB_UNAVAILABLE } from '../../provisioning/local/local-driver.ts';
import { createNotificationHub, NOTIFICATIONS_CHANNEL } from '../notifications/notifications.hub.ts';

/**
 * The instance API end to end: the real local driver (MariaDB and PostgreSQL servers), the real job
 * runner, the real `mariadb` and `psql` clients logging in with the credentials the API hands out.
 */

type SqlType = 'mysql' | 'postgresql';
const DISPLAY = { mysql: 'MySQL', postgresql: 'PostgreSQL' } as const satisfies Record<SqlType, string>;

let db: Db;
let prov: TestProvisioning;
let runner: JobRunner;
let listener: PgListener;
let app: TestApp;
let cipher: Cipher;
const jobLog: string[] = [];

beforeAll(async () => {
  const database = await createTestDatabase();
  db = database.db;
  prov = await startTestProvisioning();
  cipher = createEphemeralCipher();
  const hub = createNotificationHub();
  listener = await startPgListener({
    connectionString: database.url,
    channel: NOTIFICATIONS_CHANNEL,
    onMessage: hub.publish,
  });
  app = createTestApp(db, { provisioner: prov.driver, cipher, notificationHub: hub });
  runner = await startTestRunner({ ...database, driver: prov.driver, cipher, log: jobLog });
}, 300_000);

afterAll(async () => {
  await runner?.stop();
  await listener?.stop();
  await prov?.stop();
}, 60_000);

async function grantPlan(userId: unknown, plan: 'starter' | 'pro') {
  await db
    .updateTable('subscriptions')
    .set({ plan, status: 'active', current_period_end: null })
    .where('user_id', '=', String(userId))
    .execute();
}

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

  it('answers 404 to another user on every instance route, and for ids that are no uuid', async () => {
    const owner = await register(app);
    const { instance } = await deployRunning(owner.token, 'mysql');
    const other = await register(app);
    const id = instance.id;
    const routes: [Method, string, unknown?][] = [
      ['GET', `/api/instances/${id}`],
      ['PUT', `/api/instances/${id}`, { name: 'Mine now' }],
      ['DELETE', `/api/instances/${id}`],
      ['GET', `/api/instances/${id}/access`],
      ['POST', `/api/instances/${id}/password`, { type: 'MySQL', password: 'Stolen-pass-123' }],
    ];
    for (const [method, path, body] of routes) {
      const res = await call(app, method, path, { token: other.token, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json).toEqual({ error: 'not_found', message: 'Instance not found' });
      const garbage = await call(app, method, path.replace(id, 'not-a-uuid'), { token: owner.token, body });
      expect(garbage.status, `${method} not-a-uuid`).toBe(404);
    }
    const list = await call(app, 'GET', '/api/instances', { token: other.token });
    expect(list.json).toMatchObject({ instances: [], total: 0 });
    // Nothing changed for the owner.
    expect(await waitForStatus(app, owner.token, id, 'running')).toMatchObject({ name: 'db-mysql' });
  });

  it('needs a signed-in user on every instance route', async () => {
    for (const [method, path] of [
      ['GET', '/api/instances'],
      ['GET', '/api/instances/capabilities'],
      ['POST', '/api/instances/deploy'],
      ['GET', '/api/subscriptions/can-create-instance'],
    ] as const) {
      expect((await call(app, method, path, { body: method === 'POST' ? {} : undefined })).status).toBe(401);
    }
  });
});

describe('plan limits', { timeout: 60_000 }, () => {
  const CANNOT = 'Cannot create instance. Please check your subscription status.';

  it('lets a trial deploy 1 instance, refuses the 2nd with 403, and counts it in the subscription', async () => {
    const { token } = await register(app);
    expect((await call(app, 'GET', '/api/subscriptions/can-create-instance', { token })).json).toEqual({
      canCreate: true,
    });
    expect((await deploy(token, { type: 'MySQL' })).status).toBe(202);
    const second = await deploy(token, { type: 'PostgreSQL' });
    expect(second.status).toBe(403);
    expect(second.json).toEqual({ error: 'plan_limit', message: CANNOT });
    const can = await call(app, 'GET', '/api/subscriptions/can-create-instance', { token });
    expect(can.json).toEqual({
      canCreate: false,
      reason: 'Your plan allows 1 instance and you have 1. Delete one or upgrade to deploy another.',
    });
    const status = await call(app, 'GET', '/api/subscriptions/status', { token });
    expect(status.json.subscription).toMatchObject({ maxInstances: 1, usedInstances: 1, instancesUsed: 1 });
  });

  it('decides concurrent deploys of a trial one at a time: exactly one gets through', async () => {
    const { token } = await register(app);
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => deploy(token, { type: 'MySQL', name: `race ${i}` })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([202, 403, 403, 403, 403]);
  });

  it('limits Starter to 1, lets Pro deploy more, and frees the place of an instance being deleted', async () => {
    const starter = await register(app);
    await grantPlan(starter.user.id, 'starter');
    const first = await deploy(starter.token, { type: 'MySQL' });
    expect(first.status).toBe(202);
    expect((await deploy(starter.token, { type: 'MySQL' })).status).toBe(403);
    await waitForStatus(app, starter.token, first.json.instance.id, 'running');
    expect(
      (await call(app, 'DELETE', `/api/instances/${first.json.instance.id}`, { token: starter.token }))
        .status,
    ).toBe(202);
    expect((await deploy(starter.token, { type: 'PostgreSQL' })).status).toBe(202);

    const pro = await register(app);
    await grantPlan(pro.user.id, 'pro');
    for (const type of ['MySQL', 'PostgreSQL', 'mysql'] as const)
      expect((await deploy(pro.token, { type })).status).toBe(202);
    expect((await call(app, 'GET', '/api/instances', { token: pro.token })).json.total).toBe(3);
  });

  it('refuses deploy, delete and password changes once the subscription is inactive, with the spec texts', async () => {
    const { token, user } = await register(app);
    const { instance } = await deployRunning(token, 'mysql');
    await db
      .updateTable('subscriptions')
      .set({ trial_ends_at: new Date(Date.now() - 60_000) })
      .where('user_id', '=', String(user.id))
      .execute();
    expect((await call(app, 'GET', '/api/subscriptions/can-create-instance', { token })).json).toEqual({
      canCreate: false,
      reason: 'Your subscription is inactive. Choose a plan to deploy instances.',
    });
    const deployed = await deploy(token, { type: 'MySQL' });
    expect(deployed.status).toBe(403);
    expect(deployed.json.message).toBe(CANNOT);
    const deleted = await call(app, 'DELETE', `/api/instances/${instance.id}`, { token });
    expect(deleted.status).toBe(403);
    expect(deleted.json).toEqual({
      error: 'subscription_inactive',
      message: 'Your subscription is inactive. Deleting instances is disabled.',
    });
    const changed = await call(app, 'POST', `/api/instances/${instance.id}/password`, {
      token,
      body: { type: 'MySQL', password: 'Another-pass-123' },
    });
    expect(changed.status).toBe(403);
    expect(changed.json.message).toBe('Subscription inactive — changing passwords is disabled.');
    // Renaming stays allowed.
    const renamed = await call(app, 'PUT', `/api/instances/${instance.id}`, {
      token,
      body: { name: 'Kept' },
    });
    expect(renamed.status).toBe(200);
  });
});

describe('validation', () => {
  let token: string;
  let id: string;
  beforeAll(async () => {
    ({ token } = await register(app));
    const res = await deploy(token, { type: 'MySQL', name: 'Valid' });
    id = res.json.instance.id;
  });

  it.each([
    [{ type: 'MySQL' }, 'Instance name is required'],
    [{ type: 'MySQL', name: '   ' }, 'Instance name is required'],
    [{ type: 'MySQL', name: 'x'.repeat(101) }, 'Name too long'],
    [{ type: 'MySQL', name: 'ok', description: 'd'.repeat(501) }, 'Description too long'],
    [{ name: 'ok' }, 'Please select an application or a database'],
    [{ name: 'ok', type: 'Oracle' }, 'Please select an application or a database'],
    [{ name: 'ok', type: 'MySQL', region: 'mars-1' }, 'Please select a valid region'],
    [{ name: 'ok', type: 'MySQL', memory: 'lots' }, 'Memory must be one of 256MB, 512MB, 1GB, 2GB, 4GB'],
    [{ name: 'ok', type: 'MySQL', memory: '8GB' }, 'Memory must be one of 256MB, 512MB, 1GB, 2GB, 4GB'],
    [{ name: 'ok', type: 'MySQL', cpu: '3' }, 'CPU must be one of 0.25, 0.5, 1, 2 vCPU'],
    [{ name: 'ok', type: 'MySQL', cpu: 'fast' }, 'CPU must be one of 0.25, 0.5, 1, 2 vCPU'],
  ])('refuses deploy body %j with "%s"', async (body, message) => {
    const res = await call(app, 'POST', '/api/instances/deploy', { token, badBody: body });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(message);
  });

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

  it('updates name and description with "Instance updated successfully", and checks them', async () => {
    const ok = await call(app, 'PUT', `/api/instances/${id}`, {
      token,
      body: { name: ' Renamed ', description: 'Now described' },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.message).toBe('Instance updated successfully');
    expect(ok.json.instance).toMatchObject({ name: 'Renamed', description: 'Now described' });
    for (const [body, message] of [
      [{ name: '' }, 'Instance name is required'],
      [{ name: 'y'.repeat(101) }, 'Name too long'],
      [{ name: 'ok', description: 'z'.repeat(501) }, 'Description too long'],
    ] as const) {
      const res = await call(app, 'PUT', `/api/instances/${id}`, { token, body });
      expect(res.status).toBe(400);
      expect(res.json.message).toBe(message);
    }
  });

  it.each([
    [
      { type: 'WordPress', password: 'Long-enough-1' },
      'Only MongoDB or MySQL password changes are supported',
    ],
    [{ type: 'n8n', password: 'Long-enough-1' }, 'Only MongoDB or MySQL password changes are supported'],
    [{ type: 'PostgreSQL', password: 'Long-enough-1' }, 'This is a MySQL instance, not PostgreSQL'],
    [
      { type: 'MySQL', password: 'short' },
      'A database password must be 8 to 128 characters without control characters',
    ],
    [
      { type: 'MySQL', password: 'tab\there-1234' },
      'A database password must be 8 to 128 characters without control characters',
    ],
    [{ type: 'MySQL' }, 'Password is required'],
  ])('refuses password body %j with "%s"', async (body, message) => {
    await waitForStatus(app, token, id, 'running');
    const res = await call(app, 'POST', `/api/instances/${id}/password`, { token, badBody: body });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(message);
  });

  it('pages and searches the list: newest first, trimmed, any case, limits checked', async () => {
    const { token: t, user } = await register(app);
    await grantPlan(user.id, 'pro');
    for (const name of ['Alpha shop', 'beta', 'ALPHA blog', 'gamma', '50%_off']) {
      expect((await deploy(t, { type: 'PostgreSQL', name })).status).toBe(202);
    }
    const all = await call(app, 'GET', '/api/instances', { token: t });
    expect(all.json).toMatchObject({ total: 5, pages: 1, page: 1, limit: 24 });
    expect(all.json.instances.map((i: { name: string }) => i.name)).toEqual([
      '50%_off',
      'gamma',
      'ALPHA blog',
      'beta',
      'Alpha shop',
    ]);
    const page2 = await call(app, 'GET', '/api/instances?page=2&limit=2', { token: t });
    expect(page2.json).toMatchObject({ total: 5, pages: 3, page: 2, limit: 2 });
    expect(page2.json.instances.map((i: { name: string }) => i.name)).toEqual(['ALPHA blog', 'beta']);
    const found = await call(app, 'GET', `/api/instances?search=${encodeURIComponent('  alpha ')}`, {
      token: t,
    });
    expect(found.json.instances.map((i: { name: string }) => i.name)).toEqual(['ALPHA blog', 'Alpha shop']);
    const literal = await call(app, 'GET', `/api/instances?search=${encodeURIComponent('%_')}`, { token: t });
    expect(literal.json.total).toBe(1);
    expect((await call(app, 'GET', '/api/instances?limit=1000', { token: t })).status).toBe(200);
    for (const query of ['limit=1001', 'limit=0', 'page=0', 'page=two']) {
      expect((await call(app, 'GET', `/api/instances?${query}`, { token: t })).status, query).toBe(400);
    }
  });
});

describe('live updates', { timeout: 30_000 }, () => {
  let streams: EventStream[] = [];
  afterAll(() => {
    for (const s of streams) s.close();
    streams = [];
  });

  it('pushes instance status changes and the "Instance ready" notification to the user’s open stream', async () => {
    const server = await listen(app);
    try {
      const { token } = await register(app);
      const minted = await call(app, 'POST', '/api/notifications/stream-token', { token });
      const stream = await openEventStream(
        `${server.url}/api/notifications/stream?token=${minted.json.token}`,
      );
      streams.push(stream);
      expect(await stream.next()).toEqual({ retry: 3000 });

      const res = await deploy(token, { type: 'PostgreSQL', name: 'Live' });
      const id = res.json.instance.id;
      const isInstance = (status: string) => (m: { event?: string; data?: string }) =>
        m.event === 'instance' && JSON.parse(m.data ?? '{}').status === status;
      const deploying = await stream.next(isInstance('deploying'), 5000);
      expect(JSON.parse(deploying.data ?? '')).toEqual({ id, status: 'deploying', statusMessage: null });
      expect(deploying.id).toBeUndefined();
      // The status change and the notification go out in one transaction, in either order.
      const isReady = (m: { event?: string; data?: string }) =>
        m.event === 'notification' && JSON.parse(m.data ?? '{}').title === 'Instance ready';
      await stream.next(isInstance('running'), 10_000);
      const ready = stream.messages.find(isReady) ?? (await stream.next(isReady, 5000));
      expect(JSON.parse(ready.data ?? '')).toMatchObject({
        type: 'instance',
        title: 'Instance ready',
        message:
          'Your PostgreSQL instance "Live" is ready. Its connection details are on the Instances page.',
      });

      await call(app, 'DELETE', `/api/instances/${id}`, { token });
      await stream.next(isInstance('deleting'), 5000);
      await stream.next(isInstance('deleted'), 10_000);
    } finally {
      await server.close();
    }
  });
});
