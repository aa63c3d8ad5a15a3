import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, register, type TestApp } from '../../../test/create-test-app.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import { createNotificationsService } from '../notifications/notifications.service.ts';
import { createTrialNoticesService } from './trial-notices.service.ts';

let db: Db;
let app: TestApp;
let start: number;
let clock: number;
const minutes = (n: number) => start + n * 60_000;

beforeAll(async () => {
  ({ db } = await createTestDatabase());
});
beforeEach(async () => {
  await truncateAll(db);
  start = Date.now();
  clock = start;
  suspendedUsers = [];
  app = createTestApp(db, { now: () => new Date(clock) });
});

/** A fresh service, as each server process would have its own (no instances here: see instances tests). */
let suspendedUsers: string[] = [];

const notices = () =>
  createTrialNoticesService({
    db,
    now: () => new Date(clock),
    notifications: createNotificationsService({ db }),
    subscriptions: {
      suspendInstancesOf: async (userId: string) => {
        suspendedUsers.push(userId);
        return 0;
      },
    },
  });

const trialTitles = async (token: string) =>
  (await call(app, 'GET', '/api/notifications', { token })).json.items
    .filter((n: { type: string }) => n.type === 'trial')
    .map((n: { title: string }) => n.title);

describe('trial notices', () => {
  it('warns once when 5 minutes are left and tells once when the trial has ended', async () => {
    const { token } = await register(app);

    clock = minutes(54);
    expect(await notices().sendDue()).toEqual({ warned: 0, ended: 0, lapsed: 0 });
    clock = minutes(55) + 1000;
    expect(await notices().sendDue()).toEqual({ warned: 1, ended: 0, lapsed: 0 });
    clock = minutes(57);
    expect(await notices().sendDue()).toEqual({ warned: 0, ended: 0, lapsed: 0 });
    expect(await trialTitles(token)).toEqual(['Your trial ends in 5 minutes']);

    clock = minutes(60);
    expect(await notices().sendDue()).toEqual({ warned: 0, ended: 1, lapsed: 0 });
    clock = minutes(90);
    expect(await notices().sendDue()).toEqual({ warned: 0, ended: 0, lapsed: 0 });
    expect(await trialTitles(token)).toEqual(['Your free trial has ended', 'Your trial ends in 5 minutes']);
  });

  it('sends each notice exactly once when several processes run at the same moment', async () => {
    const accounts = [await register(app), await register(app), await register(app)];
    const runAll = async () => {
      const results = await Promise.all([notices(), notices(), notices(), notices()].map((n) => n.sendDue()));
      return results.reduce((sum, r) => ({
        warned: sum.warned + r.warned,
        ended: sum.ended + r.ended,
        lapsed: sum.lapsed + r.lapsed,
      }));
    };
    clock = minutes(56);
    expect(await runAll()).toEqual({ warned: 3, ended: 0, lapsed: 0 });
    clock = minutes(61);
    expect(await runAll()).toEqual({ warned: 0, ended: 3, lapsed: 0 });
    for (const { token } of accounts) expect(await trialTitles(token)).toHaveLength(2);
  });

  it('skips the warning of a trial that ended while no server ran, and still tells it ended', async () => {
    const { token } = await register(app);
    clock = minutes(70);
    expect(await notices().sendDue()).toEqual({ warned: 0, ended: 1, lapsed: 0 });
    expect(await trialTitles(token)).toEqual(['Your free trial has ended']);
  });

  it('leaves accounts that paid during the trial alone', async () => {
    const { user } = await register(app);
    await db
      .updateTable('subscriptions')
      .set({ plan: 'starter', status: 'active', billing_cycle: 'monthly' })
      .where('user_id', '=', String(user.id))
      .execute();
    clock = minutes(56);
    expect(await notices().sendDue()).toEqual({ warned: 0, ended: 0, lapsed: 0 });
    clock = minutes(61);
    expect(await notices().sendDue()).toEqual({ warned: 0, ended: 0, lapsed: 0 });
  });

  it('suspends once when a paid period ends without renewal, and again only after a new period', async () => {
    const { token, user } = await register(app);
    const userId = String(user.id);
    const admin = await register(app);
    await db.updateTable('users').set({ role: 'admin' }).where('id', '=', String(admin.user.id)).execute();
    await db
      .updateTable('subscriptions')
      .set({ plan: 'pro', status: 'active', trial_ends_at: null, current_period_end: null })
      .where('user_id', '=', String(admin.user.id))
      .execute();
    const grant = await call(app, 'POST', `/api/admin/users/${userId}/plan`, {
      token: admin.token,
      body: { plan: 'starter', billingCycle: 'monthly' },
    });
    expect(grant.status).toBe(200);
    const end = (
      await db
        .selectFrom('subscriptions')
        .select('current_period_end')
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow()
    ).current_period_end as Date;

    clock = end.getTime() - 1000;
    expect(await notices().sendDue()).toEqual({ warned: 0, ended: 0, lapsed: 0 });
    clock = end.getTime();
    const runs = await Promise.all([notices(), notices(), notices()].map((n) => n.sendDue()));
    expect(runs.reduce((sum, r) => sum + r.lapsed, 0)).toBe(1);
    clock = end.getTime() + 86_400_000;
    expect(await notices().sendDue()).toEqual({ warned: 0, ended: 0, lapsed: 0 });
    expect(suspendedUsers).toEqual([userId]);
    const status = await call(app, 'GET', '/api/subscriptions/status', { token });
    expect(status.json.subscription.standing).toBe('inactive');
    const billing = (await call(app, 'GET', '/api/notifications', { token })).json.items.filter(
      (n: { type: string }) => n.type === 'billing',
    );
    expect(billing.map((n: { title: string }) => n.title)).toEqual(['Your subscription has ended']);

    // A new grant starts a new period, whose own lapse suspends again.
    expect(
      (
        await call(app, 'POST', `/api/admin/users/${userId}/plan`, {
          token: admin.token,
          body: { plan: 'pro', billingCycle: 'yearly' },
        })
      ).status,
    ).toBe(200);
    expect(await notices().sendDue()).toEqual({ warned: 0, ended: 0, lapsed: 0 });
    clock += 366 * 86_400_000;
    expect(await notices().sendDue()).toEqual({ warned: 0, ended: 0, lapsed: 1 });
    expect(suspendedUsers).toEqual([userId, userId]);
  });
});
