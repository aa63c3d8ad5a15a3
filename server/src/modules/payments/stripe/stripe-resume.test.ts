import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessDatabase,
  call,
  createTestServices,
  register,
  type TestApp,
} from '../../../../test/create-test-app.ts';
import { type FakeStripe, startFakeStripe, toAppWebhook } from '../../../../test/fake-stripe.ts';
import {
  startTestProvisioning,
  startTestRunner,
  type TestProvisioning,
  waitForStatus,
} from '../../../../test/instances-harness.ts';
import { tenantCli } from '../../../../test/provisioning/db-clients.ts';
import { createTestDatabase } from '../../../../test/test-db.ts';
import { createApp } from '../../../app.ts';
import type { Db } from '../../../db/database.ts';
import type { JobRunner } from '../../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../../lib/crypto.ts';
import type { DatabaseCredentials } from '../../../provisioning/engine.ts';
import type { Services } from '../../../services.ts';

/**
 * The commercial loop end to end on a real MySQL tenant: the trial ends and the tenant is locked out;
 * the user pays through Stripe Checkout, the webhook arrives, and the same tenant lets them in again.
 */

const WEBHOOK_SECRET = 'whsec_test_resume';
let db: Db;
let prov: TestProvisioning;
let runner: JobRunner;
let app: TestApp;
let fake: FakeStripe;
let services: Services;
let clock = Date.now();
const now = () => new Date(clock);

beforeAll(async () => {
  const database = await createTestDatabase();
  db = database.db;
  prov = await startTestProvisioning();
  fake = await startFakeStripe({ webhookSecret: WEBHOOK_SECRET });
  const cipher = createEphemeralCipher();
  services = createTestServices(db, {
    provisioner: prov.driver,
    cipher,
    now,
    publicUrl: 'http://app.test',
    payments: { stripe: { secretKey: 'sk_test_resume', webhookSecret: WEBHOOK_SECRET, apiBase: fake.url } },
  });
  app = createApp(services);
  fake.deliverTo = toAppWebhook(app);
  runner = await startTestRunner({ ...database, driver: prov.driver, cipher });
}, 300_000);

afterAll(async () => {
  await runner?.stop();
  await prov?.stop();
  await fake?.close();
}, 60_000);

describe('trial expiry and payment', { timeout: 90_000 }, () => {
  it('suspends a MySQL instance when the trial ends, and a Stripe payment resumes the same one', async () => {
    const { token } = await register(app);
    const deploy = await call(app, 'POST', '/api/instances/deploy', {
      token,
      body: { name: 'shop', type: 'mysql' },
    });
    expect(deploy.status).toBe(202);
    const id: string = deploy.json.instance.id;
    await waitForStatus(app, token, id, 'running');
    const access = accessDatabase((await call(app, 'GET', `/api/instances/${id}/access`, { token })).json);
    const credentials: DatabaseCredentials = {
      host: access.host,
      port: access.port,
      database: access.name,
      user: access.user,
      password: access.password,
    };
    expect((await tenantCli('mysql', credentials, 'SELECT 1')).stdout).toBe('1');

    // The 60-minute trial runs out; the scheduler suspends the instance.
    clock += 61 * 60_000;
    expect(await services.trialNotices.sendDue()).toMatchObject({ ended: 1 });
    await waitForStatus(app, token, id, 'suspended');
    const refused = await tenantCli('mysql', credentials, 'SELECT 1');
    expect(refused.ok).toBe(false);
    expect(refused.stderr).toMatch(/account is locked/);

    // Pay: Checkout, the buyer pays, Stripe's events arrive.
    const pay = await call(app, 'POST', '/api/payments/create-paypal-payment', {
      token,
      body: { plan: 'starter', billingCycle: 'monthly', provider: 'stripe' },
    });
    expect(pay.status).toBe(200);
    const { events } = fake.completeCheckout(String(pay.json.redirectUrl).split('/').pop() ?? '');
    for (const event of events) expect(await fake.deliver(event)).toBe(200);

    expect((await call(app, 'GET', '/api/subscriptions/status', { token })).json.subscription).toMatchObject({
      standing: 'active',
      plan: 'starter',
    });
    // The same instance (same id, same credentials) is back, with no redeploy.
    expect((await waitForStatus(app, token, id, 'running')).suspended).toBe(false);
    expect((await tenantCli('mysql', credentials, 'SELECT 1')).stdout).toBe('1');
  });
});
