import { randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BodyOf, call, createTestApp, register, type TestApp } from '../../../test/create-test-app.ts';
import { insertInstanceRows } from '../../../test/instance-rows.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import { DOWNGRADE_BLOCKED_MESSAGE } from '../subscriptions/billing-rules.ts';

let db: Db;
let app: TestApp;
let clock: number;
const DAY = 86_400_000;

beforeAll(async () => {
  ({ db } = await createTestDatabase());
});
beforeEach(async () => {
  await truncateAll(db);
  clock = Date.parse('2026-03-15T12:00:00Z');
  app = createTestApp(db, { now: () => new Date(clock) });
});

async function admin() {
  const account = await register(app);
  await db.updateTable('users').set({ role: 'admin' }).where('id', '=', String(account.user.id)).execute();
  return account;
}

const grant = (token: string, id: string, body: BodyOf<'POST', '/api/admin/users/{id}/plan'>) =>
  call(app, 'POST', `/api/admin/users/${id}/plan`, { token, body });

describe('admin access', () => {
  it('answers 401 without a token and 403 to a non-admin', async () => {
    await admin(); // The first account is the admin; the next one is not.
    const user = await register(app);
    expect((await call(app, 'GET', '/api/admin/users')).status).toBe(401);
    const list = await call(app, 'GET', '/api/admin/users', { token: user.token });
    expect(list.status).toBe(403);
    expect(list.json.error).toBe('forbidden');
    const own = await grant(user.token, String(user.user.id), { plan: 'pro', billingCycle: 'yearly' });
    expect(own.status).toBe(403);
    expect(
      (await call(app, 'DELETE', `/api/admin/users/${user.user.id}/plan`, { token: user.token })).status,
    ).toBe(403);
  });

  it('checks the role in the database, not the token: a demoted admin is refused at once', async () => {
    const boss = await admin();
    expect((await call(app, 'GET', '/api/admin/users', { token: boss.token })).status).toBe(200);
    await db.updateTable('users').set({ role: 'user' }).where('id', '=', String(boss.user.id)).execute();
    expect((await call(app, 'GET', '/api/admin/users', { token: boss.token })).status).toBe(403);
  });

  it('answers 404 for an unknown user and 400 for a bad body', async () => {
    const { token } = await admin();
    for (const id of [randomUUID(), 'not-a-uuid']) {
      expect((await grant(token, id, { plan: 'pro', billingCycle: 'monthly' })).status).toBe(404);
      expect((await call(app, 'DELETE', `/api/admin/users/${id}/plan`, { token })).status).toBe(404);
    }
    const user = await register(app);
    for (const badBody of [
      { plan: 'free', billingCycle: 'monthly' },
      { plan: 'pro', billingCycle: 'weekly' },
    ]) {
      const refused = await call(app, 'POST', `/api/admin/users/${user.user.id}/plan`, { token, badBody });
      expect(refused.status).toBe(400);
    }
  });
});

describe('admin users list', () => {
  it('lists users newest first with plan, standing and instances, searchable and paged', async () => {
    const { token } = await admin();
    clock += 1000;
    const alice = await register(app, { username: 'alice_x', email: 'alice@corp.example' });
    clock += 1000;
    await register(app, { username: 'bob', email: 'bob@home.example' });
    await insertInstanceRows(db, String(alice.user.id), 1);
    // created_at is the database's now(): order by it, newest first.
    const all = await call(app, 'GET', '/api/admin/users', { token });
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ total: 3, pages: 1, page: 1, limit: 20 });
    const found = await call(app, 'GET', '/api/admin/users?search=CORP', { token });
    expect(found.json.users).toEqual([
      {
        id: alice.user.id,
        username: 'alice_x',
        email: 'alice@corp.example',
        role: 'user',
        plan: 'free',
        standing: 'trial',
        instancesUsed: 1,
        createdAt: expect.any(String),
      },
    ]);
    // LIKE wildcards are taken literally.
    expect((await call(app, 'GET', '/api/admin/users?search=%25', { token })).json.total).toBe(0);
    expect((await call(app, 'GET', '/api/admin/users?search=e_x', { token })).json.total).toBe(1);
    const paged = await call(app, 'GET', '/api/admin/users?page=2&limit=2', { token });
    expect(paged.json).toMatchObject({ total: 3, pages: 2, page: 2, limit: 2 });
    expect(paged.json.users).toHaveLength(1);
    expect((await call(app, 'GET', '/api/admin/users?limit=0', { token })).status).toBe(400);
  });
});

describe('manual plan grants', () => {
  it.each([
    ['starter', 'monthly', 1, '2026-04-15T12:00:00.000Z', 'Starter'],
    ['pro', 'yearly', -1, '2027-03-15T12:00:00.000Z', 'Pro'],
  ] as const)(
    'grants %s %s at once: active, maxInstances %i, period to %s',
    async (plan, cycle, max, end, label) => {
      const { token } = await admin();
      const user = await register(app);
      const res = await grant(token, String(user.user.id), { plan, billingCycle: cycle });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ plan, standing: 'active', maxInstances: max, nextBillingDate: end });
      const status = (await call(app, 'GET', '/api/subscriptions/status', { token: user.token })).json;
      expect(status.subscription).toMatchObject({
        plan,
        planLabel: label,
        status: 'active',
        standing: 'active',
        isTrialActive: false,
        isSubscriptionActive: true,
        maxInstances: max,
        billingCycle: cycle,
        nextBillingDate: end,
      });
      // The trial is over: its end is the moment of the grant.
      expect(status.subscription.trialEndsAt).toBe('2026-03-15T12:00:00.000Z');
      // A manual grant records no invoice.
      expect((await call(app, 'GET', '/api/payments/billing-history', { token: user.token })).json).toEqual({
        invoices: [],
      });
      // After the period the standing is inactive again.
      clock = Date.parse(end) + DAY;
      expect(
        (await call(app, 'GET', '/api/subscriptions/status', { token: user.token })).json.subscription
          .standing,
      ).toBe('inactive');
    },
  );

  it('revokes at once: inactive, no period, no deploys', async () => {
    const { token } = await admin();
    const user = await register(app);
    await grant(token, String(user.user.id), { plan: 'pro', billingCycle: 'monthly' });
    const res = await call(app, 'DELETE', `/api/admin/users/${user.user.id}/plan`, { token });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      status: 'canceled',
      standing: 'inactive',
      isInactive: true,
      billingCycle: null,
      nextBillingDate: null,
    });
    const can = await call(app, 'GET', '/api/subscriptions/can-create-instance', { token: user.token });
    expect(can.json.canCreate).toBe(false);
    // A revoked trial does not come back.
    clock += 1000;
    expect(
      (await call(app, 'GET', '/api/subscriptions/status', { token: user.token })).json.subscription.standing,
    ).toBe('inactive');
  });

  it('refuses Pro → Starter while more than 1 instance is used, with the spec message', async () => {
    const { token } = await admin();
    const user = await register(app);
    const id = String(user.user.id);
    await grant(token, id, { plan: 'pro', billingCycle: 'monthly' });
    await insertInstanceRows(db, id, 2);
    const refused = await grant(token, id, { plan: 'starter', billingCycle: 'monthly' });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ error: 'conflict', message: DOWNGRADE_BLOCKED_MESSAGE });
    const still = (await call(app, 'GET', '/api/subscriptions/status', { token: user.token })).json;
    expect(still.subscription).toMatchObject({ plan: 'pro', maxInstances: -1, usedInstances: 2 });
    // Pro again (a renewal) is fine; with one instance left the downgrade goes through.
    expect((await grant(token, id, { plan: 'pro', billingCycle: 'yearly' })).status).toBe(200);
    await db.deleteFrom('instances').where('user_id', '=', id).where('name', '=', 'db 1').execute();
    const ok = await grant(token, id, { plan: 'starter', billingCycle: 'monthly' });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ plan: 'starter', maxInstances: 1, usedInstances: 1 });
  });
});
