import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestServices, register, type TestApp } from '../../../../test/create-test-app.ts';
import { type FakeStripe, startFakeStripe, toAppWebhook } from '../../../../test/fake-stripe.ts';
import { startTestRunner, waitForStatus } from '../../../../test/instances-harness.ts';
import { createMemoryDriver, type MemoryDriver } from '../../../../test/provisioning/memory-driver.ts';
import { createTestDatabase } from '../../../../test/test-db.ts';
import { createApp } from '../../../app.ts';
import type { Db } from '../../../db/database.ts';
import type { JobRunner } from '../../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../../lib/crypto.ts';
import type { Services } from '../../../services.ts';

/**
 * The commercial loop: the trial ends and the MySQL instance is suspended; the user pays through Stripe
 * Checkout, the webhook arrives, and the same instance is resumed. The driver keeps its instances in
 * memory (the test reads what its engine was told); that a suspended real tenant refuses its logins and
 * takes them again on resume is proven on the local driver (provisioning/local/local-driver.test.ts).
 */

const WEBHOOK_SECRET = 'whsec_test_resume';
let db: Db;
let driver: MemoryDriver;
let runner: JobRunner;
let app: TestApp;
let fake: FakeStripe;
let services: Services;
let clock = Date.now();
const now = () => new Date(clock);

beforeAll(async () => {
  const database = await createTestDatabase();
  db = database.db;
  driver = createMemoryDriver();
  fake = await startFakeStripe({ webhookSecret: WEBHOOK_SECRET });
  const cipher = createEphemeralCipher();
  services = createTestServices(db, {
    provisioner: driver,
    cipher,
    now,
    publicUrl: 'http://app.test',
    payments: { stripe: { secretKey: 'sk_test_resume', webhookSecret: WEBHOOK_SECRET, apiBase: fake.url } },
  });
  app = createApp(services);
  fake.deliverTo = toAppWebhook(app);
  runner = await startTestRunner({ ...database, driver, cipher });
}, 60_000);

afterAll(async () => {
  await runner?.stop();
  await fake?.close();
});

describe('trial expiry and payment', { timeout: 30_000 }, () => {
  it('suspends a MySQL instance when the trial ends, and a Stripe payment resumes the same one', async () => {
    const { token } = await register(app);
    const deploy = await call(app, 'POST', '/api/instances/deploy', {
      token,
      body: { name: 'shop', type: 'mysql' },
    });
    expect(deploy.status).toBe(202);
    const id: string = deploy.json.instance.id;
    await waitForStatus(app, token, id, 'running');
    const access = await call(app, 'GET', `/api/instances/${id}/access`, { token });
    expect(access.status).toBe(200);
    expect(driver.instances.get(id)?.suspended).toBe(false);

    // The 60-minute trial runs out; the scheduler suspends the instance.
    clock += 61 * 60_000;
    expect(await services.trialNotices.sendDue()).toMatchObject({ ended: 1 });
    expect((await waitForStatus(app, token, id, 'suspended')).suspended).toBe(true);
    expect(driver.instances.get(id)?.suspended).toBe(true);

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
    expect(driver.instances.get(id)?.suspended).toBe(false);
    expect((await call(app, 'GET', `/api/instances/${id}/access`, { token })).json).toEqual(access.json);
  });
});
