import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTestServices, registerAdmin } from '../../../../test/create-test-app.ts';
import { createMemoryDriver } from '../../../../test/provisioning/memory-driver.ts';
import { createTestDatabase } from '../../../../test/test-db.ts';
import { createApp } from '../../../app.ts';
import type { Db } from '../../../db/database.ts';
import type { Services } from '../../../services.ts';
import { ORPHAN_GRACE_DAYS } from './backup-schedule.ts';
import { insertBackup, keepBackupsOfDeleted, updateBackup } from './instance-backups.repository.ts';

/**
 * The daily schedule and retention by plan, on the real platform database: which backups go (exactly
 * those past their plan's days, never an instance's newest complete one), and that each instance gets
 * one scheduled backup a day at its own time. The driver (in memory, its MySQL engine with backups, as
 * the schedule asks) deploys nothing here: the instances are rows.
 */

const NOW = new Date('2026-12-10T23:59:00Z');
const DAY = 86_400_000;
let db: Db;
let services: Services;
let clock = NOW;

async function customer(plan: 'free' | 'starter' | 'pro') {
  const user = await db
    .insertInto('users')
    .values({
      email: `${plan}-${Math.random().toString(36).slice(2)}@example.com`,
      username: `u${Math.random().toString(36).slice(2, 12)}`,
      password_hash: 'x',
      first_name: 'A',
      last_name: 'B',
      account_type: 'individual',
      company_name: null,
      avatar_url: null,
      referral_code: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('subscriptions')
    .values({
      user_id: user.id,
      plan,
      status: plan === 'free' ? 'trialing' : 'active',
      billing_cycle: null,
      trial_ends_at: null,
      current_period_end: null,
    })
    .execute();
  return user.id;
}

async function instance(userId: string, status: 'running' | 'suspended' = 'running') {
  const row = await db
    .insertInto('instances')
    .values({
      user_id: userId,
      name: 'db',
      type: 'mysql',
      category: 'database',
      region: 'us-east-1',
      memory: '256MB',
      cpu: '0.25',
      status,
      deployed_at: new Date(NOW.getTime() - 90 * DAY),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A backup made `daysAgo` before NOW, with a stored object, in state `status`. */
async function backup(
  instanceId: string,
  daysAgo: number,
  status: 'complete' | 'failed' | 'running' = 'complete',
) {
  const id = `b-${Math.random().toString(16).slice(2, 14).padEnd(12, '0')}`;
  await insertBackup(db, {
    id,
    instanceId,
    kind: 'scheduled',
    name: `${daysAgo} days`,
    note: '',
    location: 'local',
    createdAt: new Date(NOW.getTime() - daysAgo * DAY),
  });
  const parts = [{ name: 'dump.sql.gz', size: 3, sha256: 'x', plainSize: 3 }];
  if (status !== 'running') await updateBackup(db, id, { status, parts });
  await services.vault.store.put(
    `instances/${instanceId}/${id}/dump.sql.gz.enc`,
    Readable.from([Buffer.from('abc')]),
  );
  return id;
}

const remaining = async (instanceId: string) =>
  (
    await db
      .selectFrom('instance_backups')
      .select('name')
      .where('instance_id', '=', instanceId)
      .orderBy('created_at')
      .execute()
  ).map((b) => b.name);

beforeAll(async () => {
  ({ db } = await createTestDatabase());
  services = createTestServices(db, { provisioner: createMemoryDriver(), now: () => clock });
});

describe('retention by plan', () => {
  it('removes exactly the backups past their plan’s days, keeping each instance’s newest complete one', async () => {
    const starter = await instance(await customer('starter'));
    const pro = await instance(await customer('pro'));
    const trial = await instance(await customer('free'));
    const lonely = await instance(await customer('starter'));
    for (const days of [1, 6, 8, 20]) await backup(starter, days);
    const failed = await backup(starter, 10, 'failed');
    await backup(starter, 12, 'running');
    for (const days of [8, 29, 31]) await backup(pro, days);
    for (const days of [2, 9]) await backup(trial, days);
    await backup(lonely, 40);

    const removed = await services.backupSchedule.applyRetention();
    expect(removed).toHaveLength(5);
    expect(removed).toContain(failed);
    expect(await remaining(starter)).toEqual(['12 days', '6 days', '1 days']);
    expect(await remaining(pro)).toEqual(['29 days', '8 days']);
    expect(await remaining(trial)).toEqual(['2 days']);
    expect(await remaining(lonely)).toEqual(['40 days']);
    // The stored archives went with them.
    expect(await services.vault.store.list(`instances/${pro}/`)).toHaveLength(2);
    expect(await services.vault.store.list(`instances/${starter}/`)).toHaveLength(3);
    expect(await services.backupSchedule.applyRetention()).toEqual([]);
  });

  it('follows the days the admin sets for a plan', async () => {
    const pro = await instance(await customer('pro'));
    for (const days of [3, 5, 12]) await backup(pro, days);
    const settings = await services.paymentSettings.read();
    await services.paymentSettings.write({ ...settings, backupDays: { starter: 7, pro: 4 } }, NOW);
    await services.backupSchedule.applyRetention();
    expect(await remaining(pro)).toEqual(['3 days']);
    await services.paymentSettings.write(settings, NOW);
  });
});

describe('a deleted instance’s backups', () => {
  it('all go once past their plan’s days, its newest too; those within them stay', async () => {
    const userId = await customer('starter');
    const gone = await instance(userId);
    const older = await backup(gone, 9);
    const newer = await backup(gone, 8);
    const recent = await backup(gone, 2);
    // As the delete job leaves them: the instance row gone, its backups keeping what a restore needs.
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('instances').where('id', '=', gone).execute();
      await keepBackupsOfDeleted(trx, gone, {
        name: 'db',
        region: 'us-east-1',
        memory: '256MB',
        cpu: '0.25',
        settings: null,
        sealedKey: null,
        deletedAt: NOW.toISOString(),
      });
    });
    const removed = await services.backupSchedule.applyRetention();
    expect(removed.sort()).toEqual([older, newer].sort());
    expect(await remaining(gone)).toEqual(['2 days']);
    expect(await services.vault.store.list(`instances/${gone}/`)).toEqual([
      `instances/${gone}/${recent}/dump.sql.gz.enc`,
    ]);
  });
});

describe('the sweep of the store', () => {
  it('finds places no backup names and backups missing files, counts them for the admin, and removes the orphans after their grace period', async () => {
    const app = createApp(services);
    const admin = await registerAdmin(app, db);
    const adminView = async () => {
      const res = await call(app, 'GET', '/api/admin/capabilities', { token: admin.token });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json.backups.sweep;
    };
    expect(await adminView()).toBeNull();

    const live = await instance(await customer('pro'));
    const kept = await backup(live, 1);
    const lacking = await backup(live, 2);
    for (const id of [kept, lacking])
      await services.vault.store.put(
        `instances/${live}/${id}/manifest.json.enc`,
        Readable.from([Buffer.from('m')]),
      );
    await services.vault.store.remove(`instances/${live}/${lacking}/dump.sql.gz.enc`);
    // Files of a backup no record names (a delete that lost its record, an instance Berth forgot).
    const orphan = `instances/${randomUUID()}/b-0000000000aa`;
    for (const name of ['dump.sql.gz.enc', 'manifest.json.enc'])
      await services.vault.store.put(`${orphan}/${name}`, Readable.from([Buffer.from('old')]));

    clock = NOW;
    const first = await services.backupSchedule.sweepStore();
    expect(first.orphans).toContain(orphan);
    expect(first.missing).toContain(lacking);
    expect(first.missing).not.toContain(kept);
    expect(first.removed).toEqual([]);
    expect(await adminView()).toMatchObject({
      sweptAt: NOW.toISOString(),
      orphans: first.orphans.length,
      missing: first.missing.length,
      removed: 0,
      graceDays: ORPHAN_GRACE_DAYS,
    });
    expect(await services.vault.store.list(`${orphan}/`)).toHaveLength(2);

    // Within the grace period it stays; after it, it goes (found first at NOW, not at each sweep).
    clock = new Date(NOW.getTime() + (ORPHAN_GRACE_DAYS - 1) * DAY);
    expect((await services.backupSchedule.sweepStore()).removed).toEqual([]);
    clock = new Date(NOW.getTime() + ORPHAN_GRACE_DAYS * DAY + 1000);
    const last = await services.backupSchedule.sweepStore();
    expect(last.removed).toContain(orphan);
    expect(await services.vault.store.list(`${orphan}/`)).toEqual([]);
    expect(await services.vault.store.list(`instances/${live}/${kept}/`)).toHaveLength(2);
    expect(await adminView()).toMatchObject({ orphans: 0, removed: last.removed.length });
    clock = NOW;
  });
});

describe('the daily schedule', () => {
  it('records one scheduled backup a day per running instance, at times spread by instance', async () => {
    await db.deleteFrom('instance_backups').execute();
    const owner = await customer('pro');
    const running = await Promise.all(Array.from({ length: 12 }, () => instance(owner)));
    const suspended = await instance(owner, 'suspended');
    clock = NOW; // 23:59 UTC: every instance's time of day has passed
    const first = await services.backupSchedule.scheduleDue();
    expect(first).toBeGreaterThanOrEqual(running.length);
    const rows = await db
      .selectFrom('instance_backups')
      .selectAll()
      .where('instance_id', 'in', [...running, suspended])
      .execute();
    expect(new Set(rows.map((r) => r.instance_id))).toEqual(new Set(running));
    expect(rows.every((r) => r.kind === 'scheduled' && r.status === 'running')).toBe(true);
    // Its job is in the instance's queue.
    const { rows: jobs } = await sql<{ n: number }>`
      select count(*)::int as n from graphile_worker._private_jobs j
        join graphile_worker._private_job_queues q on q.id = j.job_queue_id
       where q.queue_name = any(${running.map((id) => `instance:${id}`)}::text[])`.execute(db);
    expect(jobs[0]?.n).toBe(running.length);
    // Not again the same day.
    expect(await services.backupSchedule.scheduleDue()).toBe(0);
    // The next day at 00:00 almost none is due yet: the times are spread over the day.
    clock = new Date(NOW.getTime() + 60_000 + 1000);
    const early = await services.backupSchedule.scheduleDue();
    expect(early).toBeLessThan(running.length / 2);
    clock = new Date(NOW.getTime() + DAY);
    expect(await services.backupSchedule.scheduleDue()).toBe(
      running.length - early + (first - running.length),
    );
  });
});
