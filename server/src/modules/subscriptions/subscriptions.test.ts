import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, register } from '../../../test/create-test-app.ts';
import { insertInstanceRows } from '../../../test/instance-rows.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';

let db: Db;
beforeAll(async () => {
  ({ db } = await createTestDatabase());
});

describe('GET /api/subscriptions/status', () => {
  it('answers a trial for a new account, then inactive once 60 minutes have passed', async () => {
    let clock = Date.now();
    const app = createTestApp(db, { now: () => new Date(clock) });
    const { token } = await register(app);

    const during = await call(app, 'GET', '/api/subscriptions/status', { token });
    expect(during.status).toBe(200);
    expect(during.json.subscription).toMatchObject({
      standing: 'trial',
      isTrialActive: true,
      maxInstances: 1,
      planLabel: 'Free',
      currencySymbol: '$',
    });
    expect(during.json.prices).toEqual({ starter: 3.99, pro: 19.99, addonInstance: 3.99 });
    expect(during.json.methods.stripe.enabled).toBe(false);

    clock += 61 * 60_000;
    const after = await call(app, 'GET', '/api/subscriptions/status', { token });
    expect(after.json.subscription).toMatchObject({
      standing: 'inactive',
      isInactive: true,
      isTrialActive: false,
    });
  });

  it('reports a paid Pro plan as active and unlimited', async () => {
    const app = createTestApp(db);
    const { token, user } = await register(app);
    const periodEnd = new Date(Date.now() + 30 * 86_400_000);
    await db
      .updateTable('subscriptions')
      .set({ plan: 'pro', status: 'active', billing_cycle: 'monthly', current_period_end: periodEnd })
      .where('user_id', '=', String(user.id))
      .execute();
    const res = await call(app, 'GET', '/api/subscriptions/status', { token });
    expect(res.json.subscription).toMatchObject({
      standing: 'active',
      isSubscriptionActive: true,
      maxInstances: -1,
      planLabel: 'Pro',
      billingCycle: 'monthly',
      nextBillingDate: periodEnd.toISOString(),
    });
  });

  it('needs a signed-in user', async () => {
    const res = await call(createTestApp(db), 'GET', '/api/subscriptions/status');
    expect(res.status).toBe(401);
    expect(res.json.error).toBe('unauthorized');
  });

  it('counts instances as the plan does: all but those being deleted', async () => {
    const app = createTestApp(db);
    const { token, user } = await register(app);
    await insertInstanceRows(db, String(user.id), 3);
    await db
      .updateTable('instances')
      .set({ status: 'deleting' })
      .where('user_id', '=', String(user.id))
      .where('name', '=', 'db 0')
      .execute();
    const res = await call(app, 'GET', '/api/subscriptions/status', { token });
    expect(res.json.subscription).toMatchObject({ usedInstances: 2, instancesUsed: 2 });
    // The deploy decision counts the same way: the trial allows 1, so 2 is over.
    const can = await call(app, 'GET', '/api/subscriptions/can-create-instance', { token });
    expect(can.json).toMatchObject({ canCreate: false });
    expect(can.json.reason).toContain('you have 2');
  });
});
