import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestServices, register, type TestApp } from '../../../test/create-test-app.ts';
import { startTestRunner, waitForStatus } from '../../../test/instances-harness.ts';
import { createMemoryDriver, type MemoryDriver } from '../../../test/provisioning/memory-driver.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import { createApp } from '../../app.ts';
import type { Db } from '../../db/database.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../lib/crypto.ts';
import type { SubscriptionsService } from './subscriptions.service.ts';
import type { TrialNoticesService } from './trial-notices.service.ts';

/**
 * A lapsed subscription suspends the customer's instances; a paid (or granted) one resumes the same
 * ones. The trial clock is injected; the driver keeps its instances in memory, so the test reads what
 * its engines were told. That a suspended real tenant's logins are refused, and let in again on resume,
 * is proven on the local driver (provisioning/local/local-driver.test.ts).
 */

type SqlType = 'mysql' | 'postgresql';

let db: Db;
let driver: MemoryDriver;
let runner: JobRunner;
let app: TestApp;
let subscriptions: SubscriptionsService;
let trialNotices: TrialNoticesService;
let clock = Date.now();
const now = () => new Date(clock);

beforeAll(async () => {
  const database = await createTestDatabase();
  db = database.db;
  driver = createMemoryDriver();
  const cipher = createEphemeralCipher();
  const services = createTestServices(db, { provisioner: driver, cipher, now });
  app = createApp(services);
  ({ subscriptions, trialNotices } = services);
  runner = await startTestRunner({ ...database, driver, cipher });
}, 60_000);

afterAll(async () => {
  await runner?.stop();
});

/** Whether the driver holds the instance suspended (its logins refused on a real one). */
const suspendedOnDriver = (id: string) => driver.instances.get(id)?.suspended;

async function deployed(token: string, type: SqlType) {
  const res = await call(app, 'POST', '/api/instances/deploy', {
    token,
    body: { name: `trial ${type}`, type },
  });
  expect(res.status).toBe(202);
  const id: string = res.json.instance.id;
  await waitForStatus(app, token, id, 'running');
  const access = await call(app, 'GET', `/api/instances/${id}/access`, { token });
  expect(access.status).toBe(200);
  return { id, access: access.json };
}

describe('suspension when the subscription lapses', { timeout: 30_000 }, () => {
  it('suspends the instances when the trial ends, and resumes the same ones after a grant', async () => {
    const people = await Promise.all(['mysql', 'postgresql'].map(() => register(app)));
    const types: SqlType[] = ['mysql', 'postgresql'];
    const instances = await Promise.all(types.map((type, i) => deployed(people[i]?.token ?? '', type)));
    for (const instance of instances) expect(suspendedOnDriver(instance.id)).toBe(false);

    // The trial ends: the scheduler tells each user and suspends their instances.
    clock += 61 * 60_000;
    expect(await trialNotices.sendDue()).toMatchObject({ ended: 2 });
    for (const [i, person] of people.entries()) {
      const instance = instances[i];
      if (!instance) throw new Error('missing fixture');
      const suspended = await waitForStatus(app, person.token, instance.id, 'suspended');
      expect(suspended.suspended).toBe(true);
      expect(suspendedOnDriver(instance.id)).toBe(true);
      // Credentials stay readable (the UI shows them with the suspended banner).
      const access = await call(app, 'GET', `/api/instances/${instance.id}/access`, { token: person.token });
      expect(access.status).toBe(200);
      expect(access.json).toEqual(instance.access);
    }

    // An admin grants a plan and resumes the user's instances.
    for (const [i, person] of people.entries()) {
      const instance = instances[i];
      if (!instance) throw new Error('missing fixture');
      await db
        .updateTable('subscriptions')
        .set({ plan: 'starter', status: 'active', current_period_end: null })
        .where('user_id', '=', String(person.user.id))
        .execute();
      expect(await subscriptions.resumeInstancesOf(String(person.user.id))).toBe(1);
      const resumed = await waitForStatus(app, person.token, instance.id, 'running');
      expect(resumed.suspended).toBe(false);
      expect(suspendedOnDriver(instance.id)).toBe(false);
      // The same instance, with the same credentials: no redeploy.
      expect(
        (await call(app, 'GET', `/api/instances/${instance.id}/access`, { token: person.token })).json,
      ).toEqual(instance.access);
    }
  });

  it('suspends an instance whose deploy is still running when the trial ends, once it is deployed', async () => {
    clock = Date.now();
    const { token, user } = await register(app);
    // The deploy is held until the suspension was asked for.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    driver.hooks.beforeDeploy = () => held;
    try {
      const res = await call(app, 'POST', '/api/instances/deploy', {
        token,
        body: { name: 'late', type: 'MySQL' },
      });
      const id = res.json.instance.id;
      expect(await subscriptions.suspendInstancesOf(String(user.id))).toBe(1);
      expect(driver.instances.has(id)).toBe(false);
      release();
      const suspended = await waitForStatus(app, token, id, 'suspended');
      expect(suspended.suspended).toBe(true);
      expect(suspendedOnDriver(id)).toBe(true);
      expect((await call(app, 'GET', `/api/instances/${id}/access`, { token })).status).toBe(200);
      // Suspending again changes nothing.
      expect(await subscriptions.suspendInstancesOf(String(user.id))).toBe(0);
    } finally {
      release();
      driver.hooks.beforeDeploy = undefined;
    }
  });

  it('an admin revoke suspends a MySQL instance at once, and a grant resumes the same one', async () => {
    clock = Date.now();
    const boss = await register(app);
    await db.updateTable('users').set({ role: 'admin' }).where('id', '=', String(boss.user.id)).execute();
    const { token, user } = await register(app);
    const { id, access } = await deployed(token, 'mysql');
    const plan = `/api/admin/users/${user.id}/plan` as const;

    const revoked = await call(app, 'DELETE', plan, { token: boss.token });
    expect(revoked.status).toBe(200);
    expect(revoked.json.standing).toBe('inactive');
    expect((await waitForStatus(app, token, id, 'suspended')).suspended).toBe(true);
    expect(suspendedOnDriver(id)).toBe(true);

    const granted = await call(app, 'POST', plan, {
      token: boss.token,
      body: { plan: 'starter', billingCycle: 'monthly' },
    });
    expect(granted.status).toBe(200);
    expect(granted.json).toMatchObject({ standing: 'active', maxInstances: 1, usedInstances: 1 });
    // The same instance comes back (no redeploy): same id, same credentials.
    expect((await waitForStatus(app, token, id, 'running')).suspended).toBe(false);
    expect(suspendedOnDriver(id)).toBe(false);
    expect((await call(app, 'GET', `/api/instances/${id}/access`, { token })).json).toEqual(access);
  });
});
