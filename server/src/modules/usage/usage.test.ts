import { randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  createTestServices,
  register,
  registerAdmin,
  type TestApp,
} from '../../../test/create-test-app.ts';
import { createMemoryDriver } from '../../../test/provisioning/memory-driver.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import { createApp } from '../../app.ts';
import type { Db } from '../../db/database.ts';
import { type StorageReport, storageReport } from '../../provisioning/disk-policy.ts';
import type { InstanceType } from '../../provisioning/instance-types.ts';
import type { SampledInstance, UsageCapability, UsageSample } from '../../provisioning/usage.ts';
import { createNotificationHub, type HubEvent, startLiveHub } from '../notifications/notifications.hub.ts';
import { compactUsage, usageStorageBytes } from './usage.repository.ts';
import type { UsageService } from './usage.service.ts';

/**
 * The usage module on real PostgreSQL: samples stored through the repository, the 5-minute rollups and
 * the retention of both, the reports the charts and the public API read, the warnings (once a day each),
 * the admin's capacity. The driver's side is a scripted UsageCapability (the real samplers have their
 * own tests against the kernel and Caddy: local/host/control-groups.test.ts, local/usage/).
 */

let db: Db;
let url = '';
let app: TestApp;
let usage: UsageService;
let clock = new Date('2026-11-20T12:00:00Z');
/** What the scripted driver answers next, per instance id. */
const next = new Map<string, Partial<UsageSample>>();
const asked: SampledInstance[][] = [];
/** The disk policy's figures the scripted driver answers (none: it judges no disk). */
let storage: StorageReport | undefined;

const MIB = 1024 * 1024;

const scripted: UsageCapability = {
  async sample(instances) {
    asked.push([...instances]);
    return instances.flatMap(({ id, type }) => {
      const part = next.get(id);
      if (!part) return [];
      const web = type === 'wordpress' || type === 'n8n';
      return [
        {
          instanceId: id,
          at: clock,
          intervalSeconds: 15,
          cpuSeconds: web ? 3 : null,
          memoryBytes: web ? 100 * MIB : null,
          memoryPeakBytes: web ? 120 * MIB : null,
          memoryLimitBytes: web ? 512 * MIB : null,
          oomKills: 0,
          diskUsedBytes: 10 * MIB,
          diskLimitBytes: 1024 * MIB,
          requests: web ? { status2xx: 10, status3xx: 2, status4xx: 1, status5xx: 0, bytesSent: 5000 } : null,
          ...part,
        },
      ];
    });
  },
  async capacity() {
    return {
      memoryBytes: 8192 * MIB,
      cpus: 4,
      diskBytes: 100_000 * MIB,
      diskFreeBytes: 60_000 * MIB,
      enforcement: 'cgroup v1',
      storage,
    };
  },
  limits: ({ type }) =>
    type === 'wordpress'
      ? {
          sharedServer: false,
          limits: [
            { label: 'Memory', value: '512MB for this instance alone', enforced: true },
            { label: 'CPU', value: '0.5 vCPU for this instance alone', enforced: true },
          ],
        }
      : {
          sharedServer: true,
          limits: [{ label: 'Connections', value: 'At most 5 at once', enforced: true }],
        },
};

const hub = createNotificationHub();

beforeAll(async () => {
  ({ db, url } = await createTestDatabase());
  const services = createTestServices(db, {
    provisioner: { ...createMemoryDriver(), usage: scripted },
    now: () => clock,
    notificationHub: hub,
  });
  usage = services.usage;
  app = createApp(services);
});

beforeEach(async () => {
  await truncateAll(db);
  next.clear();
  storage = undefined;
  clock = new Date('2026-11-20T12:00:00Z');
});

async function deployedInstance(userId: string, type: InstanceType, memory = '512MB', cpu = '0.5') {
  const row = await db
    .insertInto('instances')
    .values({
      user_id: userId,
      name: `my ${type}`,
      type,
      category: type === 'wordpress' || type === 'n8n' ? 'application' : 'database',
      region: 'us-east-1',
      memory,
      cpu,
      status: 'running',
      deployed_at: clock,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const required = (): never => {
  throw new Error('no rows');
};

const tick = (seconds = 15) => {
  clock = new Date(clock.getTime() + seconds * 1000);
};

async function notificationsOf(userId: string) {
  return db
    .selectFrom('notifications')
    .select(['title', 'message'])
    .where('user_id', '=', userId)
    .where('type', '=', 'instance')
    .orderBy('created_at')
    .execute();
}

describe('collecting', () => {
  it('stores a sample of each deployed instance and reports the same numbers as points and summary', async () => {
    const owner = await register(app);
    const site = await deployedInstance(owner.user.id, 'wordpress');
    const database = await deployedInstance(owner.user.id, 'mysql', '1GB', '1');
    // One being deleted is not asked for.
    const gone = await deployedInstance(owner.user.id, 'n8n', '1GB', '1');
    await db.updateTable('instances').set({ status: 'deleting' }).where('id', '=', gone).execute();
    next.set(site, {});
    next.set(database, {});

    expect(await usage.collect()).toBe(2);
    expect(
      asked
        .at(-1)
        ?.map((i) => i.id)
        .sort(),
    ).toEqual([site, database].sort());
    tick();
    next.set(site, { cpuSeconds: 6, memoryBytes: 200 * MIB, memoryPeakBytes: 300 * MIB });
    await usage.collect();

    const res = await call(app, 'GET', `/api/instances/${site}/usage?range=1h`, { token: owner.token });
    expect(res.status).toBe(200);
    const report = res.json;
    expect(report.measured).toBe(true);
    expect(report.stepSeconds).toBe(15);
    expect(report.cpuLimit).toBe(0.5);
    expect(report.points).toHaveLength(2);
    expect(report.points.map((p) => p.cpu)).toEqual([0.2, 0.4]);
    expect(report.summary.cpu).toEqual({ current: 0.4, peak: 0.4 });
    expect(report.summary.memory).toEqual({ current: 200 * MIB, peak: 300 * MIB, limit: 512 * MIB });
    expect(report.summary.requests).toEqual({
      status2xx: 20,
      status3xx: 4,
      status4xx: 2,
      status5xx: 0,
      bytesSent: 10_000,
      total: 26,
    });
    expect(report.limits.map((l) => l.label)).toEqual(['Memory', 'CPU']);
    expect(report.lastOutOfMemoryAt).toBeNull();

    // A database on a shared server: disk only, its engine's limits, no CPU of its own.
    const db1 = (await call(app, 'GET', `/api/instances/${database}/usage`, { token: owner.token })).json;
    expect(db1.cpuLimit).toBeNull();
    expect(db1.points[0]?.cpu).toBeNull();
    expect(db1.points[0]?.requests).toBeNull();
    expect(db1.summary.disk).toEqual({ used: 10 * MIB, limit: 1024 * MIB });
    expect(db1.summary.requests).toBeNull();
  });

  it('answers 404 for another user’s instance and 400 for an unknown range', async () => {
    const owner = await register(app);
    const stranger = await register(app);
    const site = await deployedInstance(owner.user.id, 'wordpress');
    expect((await call(app, 'GET', `/api/instances/${site}/usage`, { token: stranger.token })).status).toBe(
      404,
    );
    const bad = await call(app, 'GET', `/api/instances/${site}/usage?range=2h`, { token: owner.token });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe('range must be one of 1h, 24h, 7d');
    expect(
      (await call(app, 'GET', `/api/instances/${randomUUID()}/usage`, { token: owner.token })).status,
    ).toBe(404);
  });

  it('sends each new point to the owner’s open streams', async () => {
    const owner = await register(app);
    const site = await deployedInstance(owner.user.id, 'wordpress');
    next.set(site, { memoryBytes: 321 * MIB });
    // The signal goes out through pg_notify; a hub fed by LISTEN hears it, as main.ts's does.
    const live = await startLiveHub({ connectionString: url });
    const heard = new Promise<HubEvent>((resolve) => {
      live.hub.subscribe(owner.user.id, resolve);
    });
    try {
      await usage.collect();
      const event = await heard;
      expect(event).toMatchObject({
        kind: 'usage',
        instanceId: site,
        point: { at: clock.toISOString(), memoryBytes: 321 * MIB, memoryLimitBytes: 512 * MIB },
      });
    } finally {
      await live.stop();
    }
  });
});

describe('warnings', () => {
  it('memory above 90 % for 5 minutes, killed for memory, disk past 80 % and 95 %: each once a day', async () => {
    const owner = await register(app);
    const site = await deployedInstance(owner.user.id, 'wordpress');
    // 470 MiB of 512: above 90 %, for 5 minutes of samples.
    for (let i = 0; i <= 20; i += 1) {
      next.set(site, { memoryBytes: 470 * MIB });
      await usage.collect();
      tick();
    }
    let titles = (await notificationsOf(owner.user.id)).map((n) => n.title);
    expect(titles).toEqual(['High memory use']);

    next.set(site, { oomKills: 1 });
    clock = new Date('2026-11-20T14:02:07Z');
    await usage.collect();
    next.set(site, { diskUsedBytes: 850 * MIB });
    tick();
    await usage.collect();
    next.set(site, { diskUsedBytes: 1000 * MIB, oomKills: 1 });
    tick();
    await usage.collect();
    // The same again the same day: nothing new.
    for (let i = 0; i <= 21; i += 1) {
      next.set(site, { memoryBytes: 500 * MIB, oomKills: 1, diskUsedBytes: 1000 * MIB });
      tick();
      await usage.collect();
    }
    const sent = await notificationsOf(owner.user.id);
    titles = sent.map((n) => n.title);
    expect(titles).toEqual([
      'High memory use',
      'Restarted after running out of memory',
      'Disk 80% full',
      'Disk 95% full',
    ]);
    expect(sent[1]?.message).toBe(
      'Your WordPress instance "my wordpress" ran out of its memory (512MB) at 14:02 UTC: the system stopped the process using the most, and it was restarted.',
    );
    expect(sent[3]?.message).toContain('uses 1000 MiB of its 1 GiB disk (97%)');

    const report = (await call(app, 'GET', `/api/instances/${site}/usage`, { token: owner.token })).json;
    expect(report.lastOutOfMemoryAt).toBe(clock.toISOString());

    // The next day, the same state warns again (one of each kind per day).
    clock = new Date('2026-11-21T09:00:00Z');
    next.set(site, { oomKills: 1 });
    await usage.collect();
    expect((await notificationsOf(owner.user.id)).map((n) => n.title).at(-1)).toBe(
      'Restarted after running out of memory',
    );
  });
});

describe('a disk held short of its size', () => {
  it('tells the owner when the server’s disk gives its disk no more room though it is not full, once a day', async () => {
    const owner = await register(app);
    const site = await deployedInstance(owner.user.id, 'wordpress');
    const titles = async () => (await notificationsOf(owner.user.id)).map((n) => n.title);
    // Held, with room still dealt to it: nothing to say.
    next.set(site, { diskUsedBytes: 300 * MIB, diskLimitBytes: 1024 * MIB, diskRoomBytes: 40 * MIB });
    tick();
    await usage.collect();
    expect(await titles()).toEqual([]);

    // Nothing more dealt, 724 MiB short of its size: the owner hears why, once that day.
    for (let i = 0; i < 3; i += 1) {
      next.set(site, { diskUsedBytes: 300 * MIB, diskLimitBytes: 1024 * MIB, diskRoomBytes: 0 });
      tick();
      await usage.collect();
    }
    const sent = await notificationsOf(owner.user.id);
    expect(sent.map((n) => n.title)).toEqual(['Disk paused for lack of space']);
    expect(sent[0]?.message).toBe(
      'Your WordPress instance "my wordpress" cannot save new files for now: it uses 300 MiB of its 1 GiB disk, but this server\'s disk is fuller than planned. Our team has been told; new files and uploads work again on their own once there is room, and nothing stored is lost.',
    );
  });

  it('says a full disk is full, not held', async () => {
    const owner = await register(app);
    const site = await deployedInstance(owner.user.id, 'wordpress');
    next.set(site, { diskUsedBytes: 1024 * MIB, diskLimitBytes: 1024 * MIB, diskRoomBytes: 0 });
    tick();
    await usage.collect();
    expect((await notificationsOf(owner.user.id)).map((n) => n.title)).toEqual(['Disk 95% full']);
  });
});

describe('the disk instances live on', () => {
  const GIB = 1024 * MIB;
  /**
   * The host's disk with `usedGib` of its 100 GiB used, 4 GiB kept in reserve, promises 4× the room;
   * `heldMib`: what the hold deals each disk (none: it holds nothing).
   */
  const diskAt = (usedGib: number, heldMib: number | null = null) =>
    storageReport(
      {
        sizeBytes: 100 * GIB,
        usedBytes: usedGib * GIB,
        freeBytes: (100 - usedGib) * GIB,
        promisedBytes: 150 * GIB,
        tenantUsedBytes: 20 * GIB,
        disks: 100,
      },
      { reserveBytes: 4 * GIB, overcommit: 4 },
      { promisedBytes: 2 * GIB, disks: 2 },
      heldMib === null ? null : heldMib * MIB,
    );

  async function adminNotices(adminId: string) {
    return db
      .selectFrom('notifications')
      .select(['title', 'message'])
      .where('user_id', '=', adminId)
      .where('type', '=', 'system')
      .orderBy('created_at')
      .execute();
  }

  it('tells the admins once past 75 % and again past 85 % (deploys refused), then again only after it went down', async () => {
    const admin = await registerAdmin(app, db);
    const owner = await register(app);
    const site = await deployedInstance(owner.user.id, 'wordpress');
    next.set(site, {});
    // 70 of 96 GiB (73 %), 73 GiB (76 %) three times, 83 GiB (86 %), 70 GiB (73 %: not yet 5 points
    // under 75 %), 60 GiB (62 %), 73 GiB (76 %) again. One round a minute.
    for (const usedGib of [70, 73, 73, 73, 83, 83, 70, 60, 73]) {
      storage = diskAt(usedGib);
      await usage.collect();
      tick(60);
    }
    const notices = await adminNotices(admin.user.id);
    expect(notices.map((n) => n.title)).toEqual([
      'Disk filling up',
      'Disk full: new instances refused',
      'Disk filling up',
    ]);
    expect(notices[0]?.message).toBe(
      "The disk of this server uses 73 GiB of 96 GiB outside the reserve (76%); at 85% new instances are refused there. 150 GiB promised to instances' disks, 20 GiB written; room for about 11 more sites (Admin Panel → Server).",
    );
    expect(notices[1]?.message).toContain(
      'uses 83 GiB of 96 GiB outside the reserve (86%), past the high-water mark (85%)',
    );
    // The customer hears nothing of it.
    expect(await adminNotices(owner.user.id)).toEqual([]);

    const res = await call(app, 'GET', '/api/admin/capacity', { token: admin.token });
    expect(res.json.storage).toMatchObject({ usedBytes: 73 * GIB, promisedBytes: 150 * GIB, overcommit: 4 });
  });
  it('tells the admins once when the hold starts dealing the disk out, and again only after it stopped', async () => {
    const admin = await registerAdmin(app, db);
    const owner = await register(app);
    const site = await deployedInstance(owner.user.id, 'wordpress');
    next.set(site, {});
    // Not held, held (dealing 512 MiB, then 300 MiB: still the same hold), let go, held again.
    for (const held of [null, 512, 300, null, 200]) {
      storage = diskAt(40, held);
      await usage.collect();
      tick(60);
    }
    const notices = await adminNotices(admin.user.id);
    expect(notices.map((n) => n.title)).toEqual([
      'Disk held: instances cannot all reach their size',
      'Disk held: instances cannot all reach their size',
    ]);
    expect(notices[0]?.message).toBe(
      "The disk of this server has less room outside the reserve than its instances' disks could still take, so each is held: it may write about 512 MiB more at once, and more as it writes. A customer who writes past that is told there is no space left, though their disk is not full. Free or add space, or promise less (DISK_OVERCOMMIT, 4 now).",
    );
    expect(notices[1]?.message).toContain('about 200 MiB more at once');
    expect(await adminNotices(owner.user.id)).toEqual([]);
  });
});

describe('rollups and retention', () => {
  it('rolls 25 hours of samples into 5-minute rollups, keeps samples 24 hours and rollups 30 days', async () => {
    const owner = await register(app);
    const site = await deployedInstance(owner.user.id, 'wordpress');
    const now = new Date('2026-11-20T12:00:00Z');
    const start = now.getTime() - 25 * 3600_000;
    const rows = Array.from({ length: 25 * 240 }, (_, i) => ({
      instance_id: site,
      at: new Date(start + i * 15_000),
      interval_seconds: 15,
      cpu_seconds: 1.5,
      memory_bytes: (i % 2 === 0 ? 100 : 200) * MIB,
      memory_peak_bytes: (i % 2 === 0 ? 150 : 250) * MIB,
      memory_limit_bytes: 512 * MIB,
      oom_kills: i === 100 ? 1 : 0,
      disk_used_bytes: 10 * MIB,
      disk_limit_bytes: 1024 * MIB,
      requests_2xx: 4,
      requests_3xx: 0,
      requests_4xx: 1,
      requests_5xx: 0,
      bytes_sent: 1000,
    }));
    for (let i = 0; i < rows.length; i += 1000)
      await db
        .insertInto('instance_usage_samples')
        .values(rows.slice(i, i + 1000))
        .execute();
    // A rollup from before the retention of rollups.
    const { at: _old, ...columns } = rows[0] ?? required();
    await db
      .insertInto('instance_usage_rollups')
      .values({ ...columns, bucket: new Date(now.getTime() - 31 * 86400_000), samples: 20 })
      .execute();
    const keep = { rawSeconds: 24 * 3600, rollupSeconds: 30 * 86400 };

    const first = await compactUsage(db, now, keep);
    // 25 hours = 300 buckets of 5 minutes, each from 20 samples; the first hour's samples are gone.
    expect(first.rolledUp).toBe(300);
    expect(first.samplesDeleted).toBe(240);
    expect(first.rollupsDeleted).toBe(1);
    const rollups = await db
      .selectFrom('instance_usage_rollups')
      .selectAll()
      .where('instance_id', '=', site)
      .orderBy('bucket')
      .execute();
    expect(rollups).toHaveLength(300);
    expect(rollups[0]?.bucket.toISOString()).toBe(new Date(start).toISOString());
    expect(rollups.every((r) => r.samples === 20 && r.requests_2xx === 80 && r.requests_4xx === 20)).toBe(
      true,
    );
    expect(rollups[0]?.cpu_seconds).toBe(30);
    expect(Number(rollups[0]?.memory_bytes)).toBe(150 * MIB);
    expect(Number(rollups[0]?.memory_peak_bytes)).toBe(250 * MIB);
    expect(rollups.filter((r) => r.oom_kills > 0).map((r) => r.bucket.toISOString())).toEqual([
      new Date(start + 100 * 15_000 - ((100 * 15_000) % 300_000)).toISOString(),
    ]);
    expect(
      Number(
        (
          await db
            .selectFrom('instance_usage_samples')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirst()
        )?.n,
      ),
    ).toBe(24 * 240);

    // Again: nothing new to roll up, nothing to delete.
    expect(await compactUsage(db, now, keep)).toEqual({ rolledUp: 0, samplesDeleted: 0, rollupsDeleted: 0 });
    // Five minutes later: the next bucket only (made of samples the test never wrote: none).
    const later = await compactUsage(db, new Date(now.getTime() + 300_000), keep);
    expect(later.rolledUp).toBe(0);
    expect(later.samplesDeleted).toBe(20);

    // The week's chart reads the rollups: the same totals as the samples they came from.
    clock = now;
    const week = (await call(app, 'GET', `/api/instances/${site}/usage?range=7d`, { token: owner.token }))
      .json;
    expect(week.stepSeconds).toBe(1800);
    expect(week.points).toHaveLength(50);
    expect(week.summary.requests?.status2xx).toBe(25 * 240 * 4);
    expect(week.points[0]?.cpu).toBeCloseTo(0.1);
    const day = (await call(app, 'GET', `/api/instances/${site}/usage?range=24h`, { token: owner.token }))
      .json;
    expect(day.stepSeconds).toBe(300);

    const size = await usageStorageBytes(db);
    // Per instance and month: a full day of samples, and 30 days of rollups (25 hours' worth × 28.8).
    const perMonth = (size.samples * (24 * 240)) / (24 * 240 - 20) + (size.rollups * (30 * 24)) / 25;
    console.log(
      `[usage storage] samples of 24 h: ${(size.samples / MIB).toFixed(2)} MiB, rollups of 25 h: ${(size.rollups / MIB).toFixed(2)} MiB → about ${(perMonth / MIB).toFixed(1)} MiB per instance kept at any time (a month's rollups and a day's samples)`,
    );
  });
});

describe('the admin’s capacity', () => {
  it('shows memory and CPU sold against the host, its disk, and the busiest instances', async () => {
    const admin = await registerAdmin(app, db);
    const owner = await register(app);
    const quiet = await deployedInstance(owner.user.id, 'wordpress', '512MB', '0.5');
    const busy = await deployedInstance(owner.user.id, 'n8n', '2GB', '1');
    await deployedInstance(owner.user.id, 'mysql', '4GB', '2');
    next.set(quiet, { cpuSeconds: 0.3 });
    next.set(busy, { cpuSeconds: 9 });
    await usage.collect();
    tick();
    await usage.collect();

    expect((await call(app, 'GET', '/api/admin/capacity', { token: owner.token })).status).toBe(403);
    const res = await call(app, 'GET', '/api/admin/capacity', { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.json.memory).toEqual({ hostBytes: 8192 * MIB, soldBytes: (512 + 2048 + 4096) * MIB });
    expect(res.json.cpu).toEqual({ hostCpus: 4, soldCpus: 3.5 });
    expect(res.json.enforcement).toBe('cgroup v1');
    expect(res.json.busiest.map((b) => b.id)).toEqual([busy, quiet]);
    expect(res.json.busiest[0]?.cpu).toBeCloseTo(0.6);
  });
});

describe('the public API', () => {
  /** A Pro user's API key, as /api-access makes it. */
  async function proKey() {
    const account = await register(app);
    await db
      .updateTable('subscriptions')
      .set({ plan: 'pro', status: 'active', current_period_end: null })
      .where('user_id', '=', account.user.id)
      .execute();
    const res = await call(app, 'POST', '/api/keys/generate', { token: account.token });
    return { ...account, apiKey: String(res.json.apiKey) };
  }

  const v1 = (key: string, path: string) => app.request(`/api/v1${path}`, { headers: { 'x-api-key': key } });

  it('answers GET /api/v1/instances/{id}/usage in the envelope, with the same numbers as the Usage tab', async () => {
    const owner = await proKey();
    const site = await deployedInstance(owner.user.id, 'wordpress');
    next.set(site, {});
    await usage.collect();
    tick();
    next.set(site, { cpuSeconds: 6, memoryBytes: 300 * MIB });
    await usage.collect();

    const res = await v1(owner.apiKey, `/instances/${site}/usage?range=1h`);
    expect(res.status).toBe(200);
    expect(res.headers.get('RateLimit-Limit')).toBe('150');
    const body = (await res.json()) as { success: boolean; message: string; data: unknown };
    expect(body.success).toBe(true);
    expect(body.message).toBe('Usage retrieved');
    const tab = await call(app, 'GET', `/api/instances/${site}/usage?range=1h`, { token: owner.token });
    expect(body.data).toEqual(tab.json);
    expect(tab.json.summary.memory.current).toBe(300 * MIB);
    expect(tab.json.summary.requests?.total).toBe(26);

    // The range defaults to the last hour; the week reads the rollups (none yet: no points).
    const week = await v1(owner.apiKey, `/instances/${site}/usage?range=7d`);
    expect(((await week.json()) as { data: { stepSeconds: number } }).data.stepSeconds).toBe(1800);
  });

  it('answers 404 for another user’s instance, 400 for an unknown range and 403 without Pro', async () => {
    const owner = await proKey();
    const stranger = await proKey();
    const site = await deployedInstance(owner.user.id, 'wordpress');

    const foreign = await v1(stranger.apiKey, `/instances/${site}/usage`);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ error: 'Not Found', message: 'Instance not found' });

    const bad = await v1(owner.apiKey, `/instances/${site}/usage?range=1y`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: 'Bad Request',
      details: { code: 'validation_error' },
    });

    await db
      .updateTable('subscriptions')
      .set({ plan: 'starter' })
      .where('user_id', '=', owner.user.id)
      .execute();
    expect((await v1(owner.apiKey, `/instances/${site}/usage`)).status).toBe(403);
  });
});
