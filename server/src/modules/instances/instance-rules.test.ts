import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createTestApp,
  type DeployBody,
  type Method,
  register,
  type TestApp,
} from '../../../test/create-test-app.ts';
import { startTestRunner, waitForStatus } from '../../../test/instances-harness.ts';
import { listen } from '../../../test/listen.ts';
import { createMemoryDriver } from '../../../test/provisioning/memory-driver.ts';
import { type EventStream, openEventStream } from '../../../test/sse-client.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../lib/crypto.ts';
import { type PgListener, startPgListener } from '../../lib/pg-listener.ts';
import { createNotificationHub, NOTIFICATIONS_CHANNEL } from '../notifications/notifications.hub.ts';

/**
 * The instance API's own rules: ownership, sign-in, plan limits, validation and the live updates of a
 * user's stream. The driver keeps its instances in memory; the platform database, the job runner and
 * the notifications' NOTIFY are real. What the API does with real instances (the clients logging in
 * with the credentials it hands out) is tested on the local driver in instances.test.ts.
 */

type SqlType = 'mysql' | 'postgresql';
const DISPLAY = { mysql: 'MySQL', postgresql: 'PostgreSQL' } as const satisfies Record<SqlType, string>;

let db: Db;
let runner: JobRunner;
let listener: PgListener;
let app: TestApp;

beforeAll(async () => {
  const database = await createTestDatabase();
  db = database.db;
  const driver = createMemoryDriver();
  const cipher = createEphemeralCipher();
  const hub = createNotificationHub();
  listener = await startPgListener({
    connectionString: database.url,
    channel: NOTIFICATIONS_CHANNEL,
    onMessage: hub.publish,
  });
  app = createTestApp(db, { provisioner: driver, cipher, notificationHub: hub });
  runner = await startTestRunner({ ...database, driver, cipher });
}, 60_000);

afterAll(async () => {
  await runner?.stop();
  await listener?.stop();
});

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

/** Deploys through the API and waits until it runs; answers the instance. */
async function deployRunning(token: string, type: SqlType, name = `db-${type}`) {
  const res = await deploy(token, { name, type: DISPLAY[type], region: 'us-east-1' });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  const instance = await waitForStatus(app, token, res.json.instance.id, 'running');
  return { instance };
}

describe('who may use an instance', { timeout: 30_000 }, () => {
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

describe('plan limits', { timeout: 30_000 }, () => {
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
