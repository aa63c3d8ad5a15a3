import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessDatabase,
  call,
  createTestServices,
  register,
  type TestApp,
} from '../../../test/create-test-app.ts';
import {
  startTestProvisioning,
  startTestRunner,
  type TestProvisioning,
  waitForStatus,
} from '../../../test/instances-harness.ts';
import { tenantCli } from '../../../test/provisioning/db-clients.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import { createApp } from '../../app.ts';
import type { Db } from '../../db/database.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../lib/crypto.ts';
import type { DatabaseCredentials } from '../../provisioning/engine.ts';
import type { SubscriptionsService } from './subscriptions.service.ts';
import type { TrialNoticesService } from './trial-notices.service.ts';

/**
 * A lapsed subscription locks the customer's database users out; a paid (or granted) one lets them in
 * again. Real driver, real servers, real clients; the trial clock is injected.
 */

type SqlType = 'mysql' | 'postgresql';

let db: Db;
let prov: TestProvisioning;
let runner: JobRunner;
let app: TestApp;
let subscriptions: SubscriptionsService;
let trialNotices: TrialNoticesService;
let clock = Date.now();
const now = () => new Date(clock);

beforeAll(async () => {
  const database = await createTestDatabase();
  db = database.db;
  prov = await startTestProvisioning();
  const cipher = createEphemeralCipher();
  const services = createTestServices(db, { provisioner: prov.driver, cipher, now });
  app = createApp(services);
  ({ subscriptions, trialNotices } = services);
  runner = await startTestRunner({ ...database, driver: prov.driver, cipher });
}, 300_000);

afterAll(async () => {
  await runner?.stop();
  await prov?.stop();
}, 60_000);

async function deployed(token: string, type: SqlType) {
  const res = await call(app, 'POST', '/api/instances/deploy', {
    token,
    body: { name: `trial ${type}`, type },
  });
  expect(res.status).toBe(202);
  const id: string = res.json.instance.id;
  await waitForStatus(app, token, id, 'running');
  const access = await call(app, 'GET', `/api/instances/${id}/access`, { token });
  const { host, port, name, user, password } = accessDatabase(access.json);
  return { id, credentials: { host, port, database: name, user, password } as DatabaseCredentials };
}

describe('suspension when the subscription lapses', { timeout: 60_000 }, () => {
  it('locks the tenants out when the trial ends, and lets them in again after a grant', async () => {
    const people = await Promise.all(['mysql', 'postgresql'].map(() => register(app)));
    const types: SqlType[] = ['mysql', 'postgresql'];
    const instances = await Promise.all(types.map((type, i) => deployed(people[i]?.token ?? '', type)));
    for (const [i, type] of types.entries()) {
      expect(
        (await tenantCli(type, instances[i]?.credentials as DatabaseCredentials, 'SELECT 1')).stdout,
      ).toBe('1');
    }

    // The trial ends: the scheduler tells each user and suspends their instances.
    clock += 61 * 60_000;
    expect(await trialNotices.sendDue()).toMatchObject({ ended: 2 });
    for (const [i, type] of types.entries()) {
      const { token } = people[i] ?? { token: '' };
      const { id, credentials } = instances[i] ?? { id: '', credentials: {} as DatabaseCredentials };
      const suspended = await waitForStatus(app, token, id, 'suspended');
      expect(suspended.suspended).toBe(true);
      const refused = await tenantCli(type, credentials, 'SELECT 1');
      expect(refused.ok).toBe(false);
      expect(refused.stderr).toMatch(type === 'mysql' ? /account is locked/ : /not permitted to log in/);
      // Credentials stay readable (the UI shows them with the suspended banner).
      expect((await call(app, 'GET', `/api/instances/${id}/access`, { token })).status).toBe(200);
    }

    // An admin grants a plan and resumes the user's instances.
    for (const [i, type] of types.entries()) {
      const person = people[i];
      const instance = instances[i];
      if (!person || !instance) throw new Error('missing fixture');
      await db
        .updateTable('subscriptions')
        .set({ plan: 'starter', status: 'active', current_period_end: null })
        .where('user_id', '=', String(person.user.id))
        .execute();
      expect(await subscriptions.resumeInstancesOf(String(person.user.id))).toBe(1);
      const resumed = await waitForStatus(app, person.token, instance.id, 'running');
      expect(resumed.suspended).toBe(false);
      expect((await tenantCli(type, instance.credentials, 'SELECT 1')).stdout).toBe('1');
    }
  });

  it('suspends an instance whose deploy is still running when the trial ends, once it is deployed', async () => {
    clock = Date.now();
    const { token, user } = await register(app);
    const res = await call(app, 'POST', '/api/instances/deploy', {
      token,
      body: { name: 'late', type: 'MySQL' },
    });
    expect(await subscriptions.suspendInstancesOf(String(user.id))).toBe(1);
    const suspended = await waitForStatus(app, token, res.json.instance.id, 'suspended');
    expect(suspended.suspended).toBe(true);
    const access = await call(app, 'GET', `/api/instances/${suspended.id}/access`, { token });
    const { host, port, name, user: login, password } = accessDatabase(access.json);
    const refused = await tenantCli(
      'mysql',
      { host, port, database: name, user: login, password },
      'SELECT 1',
    );
    expect(refused.stderr).toMatch(/account is locked/);
    // Suspending again changes nothing.
    expect(await subscriptions.suspendInstancesOf(String(user.id))).toBe(0);
  });

  it('an admin revoke locks a MySQL tenant out at once, and a grant lets it in again', async () => {
    clock = Date.now();
    const boss = await register(app);
    await db.updateTable('users').set({ role: 'admin' }).where('id', '=', String(boss.user.id)).execute();
    const { token, user } = await register(app);
    const { id, credentials } = await deployed(token, 'mysql');
    const plan = `/api/admin/users/${user.id}/plan` as const;

    const revoked = await call(app, 'DELETE', plan, { token: boss.token });
    expect(revoked.status).toBe(200);
    expect(revoked.json.standing).toBe('inactive');
    expect((await waitForStatus(app, token, id, 'suspended')).suspended).toBe(true);
    const refused = await tenantCli('mysql', credentials, 'SELECT 1');
    expect(refused.ok).toBe(false);
    expect(refused.stderr).toMatch(/account is locked/);

    const granted = await call(app, 'POST', plan, {
      token: boss.token,
      body: { plan: 'starter', billingCycle: 'monthly' },
    });
    expect(granted.status).toBe(200);
    expect(granted.json).toMatchObject({ standing: 'active', maxInstances: 1, usedInstances: 1 });
    // The same instance comes back (no redeploy): same id, same credentials.
    expect((await waitForStatus(app, token, id, 'running')).suspended).toBe(false);
    expect((await tenantCli('mysql', credentials, 'SELECT 1')).stdout).toBe('1');
  });
});
