import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type BodyOf,
  call,
  createTestApp,
  register,
  registerAdmin,
  type TestApp,
} from '../../../test/create-test-app.ts';
import { startSmtpPeer } from '../../../test/smtp-peer.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import { type JobRunner, startJobRunner } from '../../jobs/job-runner.ts';
import { createMailTask, SEND_MAIL_TASK } from '../../jobs/mail-task.ts';
import { createSmtpMailer, type Mailer } from '../../lib/mailer.ts';
import { createNotificationsService } from '../notifications/notifications.service.ts';
import { createAnnouncementsService, FANOUT_TASK } from './announcements.service.ts';

let db: Db;
let app: TestApp;
let runner: JobRunner;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
/** The first SMTP send fails when set (a mail server hiccup); later sends go through. */
let failNextSend = false;

beforeAll(async () => {
  const test = await createTestDatabase();
  db = test.db;
  app = createTestApp(db);
  smtp = await startSmtpPeer();
  const real = createSmtpMailer(smtp.url, 'news@berth.test');
  const flaky: Mailer = {
    kind: 'smtp',
    async send(message) {
      if (failNextSend) {
        failNextSend = false;
        throw new Error('421 try again later');
      }
      await real.send(message);
    },
  };
  // Small batches, so a few users already take several.
  const announcements = createAnnouncementsService({
    db,
    notifications: createNotificationsService({ db }),
    publicUrl: 'http://berth.test',
  });
  runner = await startJobRunner({
    pgPool: test.pool,
    connectionString: test.url,
    taskList: { [FANOUT_TASK]: announcements.fanoutTask(3), [SEND_MAIL_TASK]: createMailTask(flaky) },
    pollIntervalMs: 100,
    log: () => {},
  });
});
afterAll(async () => {
  await runner.stop();
  await smtp.close();
});
beforeEach(() => truncateAll(db));

const send = (token: string, body: Omit<BodyOf<'POST', '/api/notifications/send'>, 'type'>) =>
  call(app, 'POST', '/api/notifications/send', { token, body: { type: 'announcement', ...body } });

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`not done within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Announcement notifications per user, once the announcement's job completed. */
async function delivered(title: string, timeoutMs?: number) {
  await until(
    () => db.selectFrom('announcements').select('completed_at').where('title', '=', title).executeTakeFirst(),
    (row) => row?.completed_at != null,
    timeoutMs,
  );
  const rows = await db
    .selectFrom('notifications')
    .select(['user_id', (eb) => eb.fn.countAll<string>().as('n')])
    .where('title', '=', title)
    .groupBy('user_id')
    .execute();
  return new Map(rows.map((r) => [r.user_id, Number(r.n)]));
}

async function setPlan(userId: unknown, plan: 'starter' | 'pro') {
  await db
    .updateTable('subscriptions')
    .set({ plan, status: 'active', current_period_end: new Date(Date.now() + 86_400_000) })
    .where('user_id', '=', String(userId))
    .execute();
}

describe('POST /api/notifications/send', () => {
  it('is for admins only, and checks title, message, plan and user', async () => {
    const admin = await registerAdmin(app, db);
    const customer = await register(app);
    expect((await send(customer.token, { scope: 'all', title: 'Hi', message: 'There' })).status).toBe(403);
    expect((await send(admin.token, { scope: 'all', title: ' ', message: 'There' })).json.message).toBe(
      'Title and message are required',
    );
    expect((await send(admin.token, { scope: 'single', title: 'Hi', message: 'There' })).json.message).toBe(
      'Please select a user',
    );
    expect((await send(admin.token, { scope: 'plan', title: 'Hi', message: 'There' })).json.message).toBe(
      'Please select a plan',
    );
    const unknown = await send(admin.token, {
      scope: 'single',
      userId: '00000000-0000-4000-8000-000000000000',
      title: 'Hi',
      message: 'There',
    });
    expect(unknown.status).toBe(404);
  });

  it('delivers to all, to a plan, or to one user: exactly one notification each, counted', async () => {
    const admin = await registerAdmin(app, db);
    const users = [];
    for (let i = 0; i < 7; i++) users.push(await register(app));
    await setPlan(users[0]?.user.id, 'pro');
    await setPlan(users[1]?.user.id, 'pro');
    await setPlan(users[2]?.user.id, 'starter');

    const all = await send(admin.token, { scope: 'all', title: 'Maintenance', message: 'Tonight 22:00 UTC' });
    expect(all.status).toBe(202);
    expect(all.json.count).toBe(8); // 7 customers and the admin
    const toAll = await delivered('Maintenance');
    expect(toAll.size).toBe(8);
    expect([...toAll.values()].every((n) => n === 1)).toBe(true);

    const pro = await send(admin.token, {
      scope: 'plan',
      plan: 'pro',
      title: 'Pro news',
      message: 'New regions',
    });
    expect(pro.json.count).toBe(2);
    expect([...(await delivered('Pro news')).keys()].sort()).toEqual(
      [String(users[0]?.user.id), String(users[1]?.user.id)].sort(),
    );

    const one = await send(admin.token, {
      scope: 'single',
      userId: users[5]?.user.id,
      title: 'Just you',
      message: 'Hello',
    });
    expect(one.json.count).toBe(1);
    expect([...(await delivered('Just you')).entries()]).toEqual([[String(users[5]?.user.id), 1]]);

    const list = await call(app, 'GET', '/api/notifications', { token: users[5]?.token });
    expect(list.json.items[0]).toMatchObject({ type: 'announcement', title: 'Just you', message: 'Hello' });
  });

  it('e-mails each recipient through SMTP when asked, retrying a failed send', async () => {
    const admin = await registerAdmin(app, db);
    const a = await register(app, { email: 'one@example.com' });
    const b = await register(app, { email: 'two@example.com' });
    await setPlan(a.user.id, 'starter');
    await setPlan(b.user.id, 'starter');
    failNextSend = true;
    const res = await send(admin.token, {
      scope: 'plan',
      plan: 'starter',
      title: 'Starter update',
      message: 'Backups now daily',
      sendEmail: true,
    });
    expect(res.json.count).toBe(2);
    // One of the two sends failed once; the queue tries it again after its backoff (about 3 s).
    const first = await smtp.nextMail(15_000);
    const second = await smtp.nextMail(15_000);
    expect([first, second].map((m) => (m.to && 'text' in m.to ? m.to.text : '')).sort()).toEqual([
      'one@example.com',
      'two@example.com',
    ]);
    expect(first.subject).toBe('Starter update');
    expect(first.text).toContain('Backups now daily');
    expect(failNextSend).toBe(false);
  }, 40_000);

  it('answers a 2,000-user broadcast before delivering it, and completes it in the job', async () => {
    const admin = await registerAdmin(app, db);
    await sql`
      with made as (
        insert into users (username, email, password_hash, first_name, last_name, account_type)
        select 'bulk' || n, 'bulk' || n || '@example.com', 'x', 'Bulk', 'User ' || n, 'individual'
        from generate_series(1, 2000) as n
        returning id
      )
      insert into subscriptions (user_id, plan, status) select id, 'free', 'trialing' from made`.execute(db);

    const res = await send(admin.token, { scope: 'all', title: 'Big news', message: 'For everyone' });
    expect(res.json.count).toBe(2001);
    // The answer does not wait for the delivery: in batches of 3, the job is far from done by now.
    // (How fast the answer comes is measured by `npm run bench`, not here.)
    const atAnswer = await db
      .selectFrom('announcements')
      .select(['completed_at', 'delivered'])
      .where('title', '=', 'Big news')
      .executeTakeFirstOrThrow();
    expect(atAnswer.completed_at).toBeNull();
    expect(atAnswer.delivered).toBeLessThan(2001);
    const counts = await delivered('Big news', 150_000);
    expect(counts.size).toBe(2001);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
  }, 180_000);
});

describe('GET /api/users', () => {
  it('lists users by name for admins only', async () => {
    const admin = await registerAdmin(app, db, { firstName: 'Zed', lastName: 'Admin' });
    const customer = await register(app, {
      firstName: 'Grace',
      lastName: 'Hopper',
      email: 'grace@example.com',
    });
    expect((await call(app, 'GET', '/api/users?page=1&limit=100', { token: customer.token })).status).toBe(
      403,
    );
    expect((await call(app, 'GET', '/api/users')).status).toBe(401);
    const res = await call(app, 'GET', '/api/users?page=1&limit=100', { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ total: 2, page: 1, pages: 1, limit: 100 });
    expect(res.json.users).toEqual([
      expect.objectContaining({ firstName: 'Zed', lastName: 'Admin', role: 'admin' }),
      {
        _id: customer.user.id,
        id: customer.user.id,
        firstName: 'Grace',
        lastName: 'Hopper',
        email: 'grace@example.com',
        role: 'user',
      },
    ]);
    const found = await call(app, 'GET', '/api/users?search=HOPP', { token: admin.token });
    expect(found.json.users.map((u: { email: string }) => u.email)).toEqual(['grace@example.com']);
    expect((await call(app, 'GET', '/api/users?limit=101', { token: admin.token })).status).toBe(400);
  });
});
