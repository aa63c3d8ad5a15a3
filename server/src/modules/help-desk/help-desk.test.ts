import { mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  answerOf,
  type BodyOf,
  call,
  createTestApp,
  register,
  registerAdmin,
  type TestApp,
} from '../../../test/create-test-app.ts';
import { GIF, JPG, MB, PNG, WEBP } from '../../../test/sample-images.ts';
import { type ListeningApp, startListeningApp } from '../../../test/server-process.ts';
import { startSmtpPeer } from '../../../test/smtp-peer.ts';
import { openEventStream } from '../../../test/sse-client.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import { type JobRunner, startJobRunner } from '../../jobs/job-runner.ts';
import { createMailTask, SEND_MAIL_TASK } from '../../jobs/mail-task.ts';
import { createSmtpMailer } from '../../lib/mailer.ts';
import { createNotificationsService } from '../notifications/notifications.service.ts';
import { createHelpFiles } from './help-desk.files.ts';
import { createHelpDeskService, ORPHAN_AGE_MS } from './help-desk.service.ts';

let db: Db;
let dbUrl: string;
let pool: Awaited<ReturnType<typeof createTestDatabase>>['pool'];
let app: TestApp;
let root: string;
let dir: string;

beforeAll(async () => {
  ({ db, url: dbUrl, pool } = await createTestDatabase());
  root = await mkdtemp(path.join(tmpdir(), 'berth-help-test-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));
beforeEach(async () => {
  await truncateAll(db);
  dir = await mkdtemp(path.join(root, 'uploads-'));
  app = createTestApp(db, { helpUploadsDir: dir });
});

const filesOnDisk = async () => (await readdir(dir).catch(() => [])).sort();

async function upload(token: string, bytes: Buffer | string, name = 'shot.png', target: TestApp = app) {
  const form = new FormData();
  form.set('file', new Blob([bytes]), name);
  const res = await target.request('/api/help/upload', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return answerOf<'POST', '/api/help/upload'>(res);
}

async function getImage(token: string | undefined, url: string) {
  const res = await app.request(`/api${url}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

type TicketBody = BodyOf<'POST', '/api/help/submit'>;

const ticketBody = (overrides: Partial<TicketBody> = {}): TicketBody => ({
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  category: 'technical',
  subject: 'My site is down',
  message: 'It says 502 since this morning.',
  path: '/instances',
  ...overrides,
});

async function submit(token: string, overrides: Partial<TicketBody> = {}) {
  return call(app, 'POST', '/api/help/submit', { token, body: ticketBody(overrides) });
}

describe('uploads', () => {
  it('stores PNG, JPEG, GIF and WebP under random names and serves them to the uploader only', async () => {
    const owner = await register(app);
    const stranger = await register(app);
    for (const [bytes, type] of [
      [PNG, 'image/png'],
      [JPG, 'image/jpeg'],
      [GIF, 'image/gif'],
      [WEBP, 'image/webp'],
    ] as const) {
      const res = await upload(owner.token, bytes, 'my screen.png');
      expect(res.status).toBe(201);
      expect(res.json.file).toEqual({
        url: expect.stringMatching(/^\/uploads\/help\/[a-f0-9]{32}\.(png|jpg|gif|webp)$/),
        name: 'my screen.png',
      });
      const mine = await getImage(owner.token, res.json.file.url);
      expect(mine).toMatchObject({ status: 200, type });
      expect(mine.bytes.equals(bytes)).toBe(true);
      expect((await getImage(stranger.token, res.json.file.url)).status).toBe(404);
      expect((await getImage(undefined, res.json.file.url)).status).toBe(401);
    }
    expect(await filesOnDisk()).toHaveLength(4);
    // On disk the files are the server's alone: no other user or tenant of the host reads them.
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    for (const file of await filesOnDisk())
      expect((await stat(path.join(dir, file))).mode & 0o777).toBe(0o600);
  });

  it('refuses a text file renamed to .png, and files over 5 MB, with clear messages', async () => {
    const { token } = await register(app);
    const text = await upload(token, 'hello, I am not an image', 'photo.png');
    expect(text.status).toBe(400);
    expect(text.json.message).toBe('Only PNG, JPEG, GIF or WebP images can be attached');
    const svg = await upload(
      token,
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      'x.svg',
    );
    expect(svg.status).toBe(400);
    const big = await upload(token, Buffer.concat([PNG, Buffer.alloc(5 * MB)]), 'big.png');
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ message: 'Image must be 5 MB or smaller' });
    expect(await filesOnDisk()).toEqual([]);
  });

  it('deletes an unattached upload of the uploader (removed before sending), nobody else’s', async () => {
    const owner = await register(app);
    const stranger = await register(app);
    const { json } = await upload(owner.token, PNG);
    const file = json.file.url.split('/').pop();
    expect((await call(app, 'DELETE', `/api/help/upload/${file}`, { token: stranger.token })).status).toBe(
      404,
    );
    expect(await filesOnDisk()).toHaveLength(1);
    expect((await call(app, 'DELETE', `/api/help/upload/${file}`, { token: owner.token })).status).toBe(200);
    expect(await filesOnDisk()).toEqual([]);
    expect((await getImage(owner.token, json.file.url)).status).toBe(404);
    // Once attached, an upload goes only with its ticket.
    const again = await upload(owner.token, PNG);
    await submit(owner.token, { attachments: [again.json.file] });
    const attached = again.json.file.url.split('/').pop();
    expect((await call(app, 'DELETE', `/api/help/upload/${attached}`, { token: owner.token })).status).toBe(
      404,
    );
  });
});

describe('customer tickets', () => {
  it('sends a ticket with 5 images and a context snapshot; a 6th image is refused', async () => {
    const { token } = await register(app);
    const files = [];
    for (let i = 0; i < 6; i++) files.push((await upload(token, PNG, `shot-${i}.png`)).json.file);
    const six = await submit(token, { attachments: files });
    expect(six.status).toBe(400);
    expect(six.json.message).toBe('At most 5 images');

    const res = await submit(token, { attachments: files.slice(0, 5) });
    expect(res.status).toBe(201);
    expect(res.json.item).toMatchObject({
      subject: 'My site is down',
      category: 'technical',
      status: 'open',
      adminResponse: null,
      attachments: files.slice(0, 5),
      context: { plan: expect.any(String), standing: 'trial', instances: [] },
    });
    expect(res.json.item._id).toBe(res.json.item.id);
    const mine = await call(app, 'GET', '/api/help/my', { token });
    expect(mine.json.items.map((t: { id: string }) => t.id)).toEqual([res.json.item.id]);
  });

  it('takes no snapshot without consent, and validates the form with the spec’s messages', async () => {
    const { token } = await register(app);
    const res = await submit(token, { shareContext: false });
    expect(res.json.item.context).toBeNull();
    const other = await call(app, 'POST', '/api/help/submit', {
      token,
      badBody: { ...ticketBody(), category: 'other' },
    });
    expect(other.json.message).toBe('Please select a valid category');
    expect((await submit(token, { email: 'nope' })).json.message).toBe('Invalid email');
    expect((await submit(token, { subject: 'x'.repeat(201) })).json.message).toBe('Subject is too long');
    expect((await submit(token, { message: 'x'.repeat(5001) })).json.message).toBe('Message is too long');
    expect((await submit(token, { name: 'x'.repeat(121) })).json.message).toBe('Name is too long');
  });

  it('limits tickets and uploads per user (429)', async () => {
    app = createTestApp(db, {
      helpUploadsDir: dir,
      rateLimits: {
        helpSubmit: { points: 2, windowSeconds: 3600 },
        helpUpload: { points: 1, windowSeconds: 3600 },
      },
    });
    const { token } = await register(app);
    const other = await register(app);
    expect((await submit(token)).status).toBe(201);
    expect((await submit(token)).status).toBe(201);
    const third = await submit(token);
    expect(third.status).toBe(429);
    expect((await submit(other.token)).status).toBe(201);
    expect((await upload(token, PNG)).status).toBe(201);
    expect((await upload(token, PNG)).status).toBe(429);
  });

  it("refuses another user's upload as an attachment", async () => {
    const owner = await register(app);
    const thief = await register(app);
    const { json } = await upload(owner.token, PNG);
    const res = await submit(thief.token, { attachments: [json.file] });
    expect(res.status).toBe(400);
    expect((await call(app, 'GET', '/api/help/my', { token: thief.token })).json.items).toEqual([]);
  });

  it("keeps tickets and their images private: another user's id and files answer 404", async () => {
    const owner = await register(app);
    const stranger = await register(app);
    const { json } = await upload(owner.token, PNG);
    const ticket = (await submit(owner.token, { attachments: [json.file] })).json.item;
    expect((await call(app, 'GET', '/api/help/my', { token: stranger.token })).json.items).toEqual([]);
    expect((await getImage(stranger.token, json.file.url)).status).toBe(404);
    expect((await call(app, 'DELETE', `/api/help/${ticket.id}`, { token: stranger.token })).status).toBe(404);
    expect((await call(app, 'DELETE', '/api/help/not-a-uuid', { token: stranger.token })).status).toBe(404);

    expect((await call(app, 'DELETE', `/api/help/${ticket.id}`, { token: owner.token })).status).toBe(200);
    expect((await call(app, 'GET', '/api/help/my', { token: owner.token })).json.items).toEqual([]);
    expect(await filesOnDisk()).toEqual([]);
    expect((await getImage(owner.token, json.file.url)).status).toBe(404);
  });
});

describe('admin side', () => {
  it('answers 403 to a customer on every admin route', async () => {
    await registerAdmin(app, db);
    const { token } = await register(app);
    const ticket = (await submit(token)).json.item;
    expect((await call(app, 'GET', '/api/help/all', { token })).status).toBe(403);
    expect(
      (await call(app, 'PUT', `/api/help/${ticket.id}/status`, { token, body: { status: 'closed' } })).status,
    ).toBe(403);
    expect(
      (await call(app, 'POST', `/api/help/${ticket.id}/answer`, { token, body: { text: 'hi' } })).status,
    ).toBe(403);
    expect((await call(app, 'GET', '/api/help/all')).status).toBe(401);
  });

  it('lists every ticket with status and category filters, search and paging, and sees the images', async () => {
    const admin = await registerAdmin(app, db);
    const a = await register(app);
    const b = await register(app);
    const img = (await upload(a.token, PNG)).json.file;
    await submit(a.token, { subject: 'Billing question', category: 'billing', attachments: [img] });
    await submit(a.token, { subject: 'Feature: dark mode', category: 'feature' });
    const bug = (await submit(b.token, { subject: 'Crash', category: 'bug', email: 'grace@example.com' }))
      .json.item;
    await call(app, 'PUT', `/api/help/${bug.id}/status`, { token: admin.token, body: { status: 'closed' } });

    const all = await call(app, 'GET', '/api/help/all', { token: admin.token });
    expect(all.json).toMatchObject({ total: 3, page: 1, pages: 1 });
    // Open tickets first, the one due soonest on top (the same plan: the oldest), then the others.
    expect(all.json.items.map((t: { subject: string }) => t.subject)).toEqual([
      'Billing question',
      'Feature: dark mode',
      'Crash',
    ]);
    const subjects = async (query: string) =>
      (await call(app, 'GET', `/api/help/all?${query}`, { token: admin.token })).json.items.map(
        (t: { subject: string }) => t.subject,
      );
    expect(await subjects('sort=newest')).toEqual(['Crash', 'Feature: dark mode', 'Billing question']);
    expect(await subjects('status=closed')).toEqual(['Crash']);
    expect(await subjects('status=open&category=billing')).toEqual(['Billing question']);
    expect(await subjects('q=GRACE@')).toEqual(['Crash']);
    expect(await subjects('q=dark')).toEqual(['Feature: dark mode']);
    expect(await subjects('q=100%25')).toEqual([]);
    const page2 = await call(app, 'GET', '/api/help/all?limit=2&page=2', { token: admin.token });
    expect(page2.json).toMatchObject({ total: 3, pages: 2, page: 2 });
    expect(page2.json.items).toHaveLength(1);
    expect((await call(app, 'GET', '/api/help/all?status=pending', { token: admin.token })).status).toBe(400);
    expect((await getImage(admin.token, img.url)).status).toBe(200);

    const status = await call(app, 'PUT', `/api/help/${bug.id}/status`, {
      token: admin.token,
      body: { status: 'open' },
    });
    expect(status.json.item.status).toBe('open');
    const missing = '00000000-0000-4000-8000-000000000000';
    expect(
      (
        await call(app, 'PUT', `/api/help/${missing}/status`, {
          token: admin.token,
          body: { status: 'open' },
        })
      ).status,
    ).toBe(404);
  });

  it('records the plan and due time of each ticket (Pro 4 h, Starter and trials 24 h); admins get open tickets by due time, the overdue marked', async () => {
    let clock = new Date('2027-03-01T09:00:00.000Z');
    app = createTestApp(db, { helpUploadsDir: dir, now: () => clock });
    const at = (time: string) => {
      clock = new Date(`2027-03-01T${time}:00.000Z`);
    };
    const admin = await registerAdmin(app, db);
    const [trial, starter, pro] = [await register(app), await register(app), await register(app)];
    for (const [customer, plan] of [
      [starter, 'starter'],
      [pro, 'pro'],
    ] as const) {
      const granted = await call(app, 'POST', `/api/admin/users/${customer.user.id}/plan`, {
        token: admin.token,
        body: { plan, billingCycle: 'monthly' },
      });
      expect(granted.status, JSON.stringify(granted.json)).toBe(200);
    }

    const trialTicket = (await submit(trial.token, { subject: 'Trial question' })).json.item;
    expect(trialTicket).toMatchObject({ plan: 'free', dueAt: '2027-03-02T09:00:00.000Z', overdue: false });
    at('09:30');
    const starterTicket = (await submit(starter.token, { subject: 'Starter question' })).json.item;
    expect(starterTicket).toMatchObject({ plan: 'starter', dueAt: '2027-03-02T09:30:00.000Z' });
    at('10:00');
    const proTicket = (await submit(pro.token, { subject: 'Pro question' })).json.item;
    expect(proTicket).toMatchObject({ plan: 'pro', dueAt: '2027-03-01T14:00:00.000Z', overdue: false });
    // The customer reads the same due time with their tickets.
    expect((await call(app, 'GET', '/api/help/my', { token: pro.token })).json.items[0]?.dueAt).toBe(
      '2027-03-01T14:00:00.000Z',
    );

    const list = async (query = '') =>
      // (typed as the route's answer: the query string is the route's own)
      (
        await call(app, 'GET', `/api/help/all${query}` as '/api/help/all', { token: admin.token })
      ).json.items.map((t) => [t.subject, t.plan, t.overdue]);
    // The Pro ticket, sent last, is due first.
    expect(await list()).toEqual([
      ['Pro question', 'pro', false],
      ['Trial question', 'free', false],
      ['Starter question', 'starter', false],
    ]);
    at('14:01');
    expect(await list()).toEqual([
      ['Pro question', 'pro', true],
      ['Trial question', 'free', false],
      ['Starter question', 'starter', false],
    ]);
    // Answered, it is no longer overdue nor first; the open ones keep their order.
    const answered = await call(app, 'POST', `/api/help/${proTicket.id}/answer`, {
      token: admin.token,
      body: { text: 'Fixed.', notify: false },
    });
    expect(answered.json.item).toMatchObject({ status: 'answered', overdue: false });
    expect(await list()).toEqual([
      ['Trial question', 'free', false],
      ['Starter question', 'starter', false],
      ['Pro question', 'pro', false],
    ]);
    expect(await list('?sort=newest')).toEqual([
      ['Pro question', 'pro', false],
      ['Starter question', 'starter', false],
      ['Trial question', 'free', false],
    ]);
    expect((await call(app, 'GET', '/api/help/all?sort=plan', { token: admin.token })).status).toBe(400);
  });

  it('requires answer text and keeps an answer’s images to its admin’s own uploads', async () => {
    const admin = await registerAdmin(app, db);
    const customer = await register(app);
    const ticket = (await submit(customer.token)).json.item;
    const blank = await call(app, 'POST', `/api/help/${ticket.id}/answer`, {
      token: admin.token,
      body: { text: '  ' },
    });
    expect(blank.status).toBe(400);
    expect(blank.json.message).toBe('Response text is required');
    const customersImage = (await upload(customer.token, PNG)).json.file;
    const foreign = await call(app, 'POST', `/api/help/${ticket.id}/answer`, {
      token: admin.token,
      body: { text: 'See image', attachments: [customersImage] },
    });
    expect(foreign.status).toBe(400);
  });
});

describe('answering', () => {
  let server: ListeningApp;
  let runner: JobRunner;
  let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
  beforeAll(async () => {
    smtp = await startSmtpPeer();
    runner = await startJobRunner({
      pgPool: pool,
      connectionString: dbUrl,
      taskList: { [SEND_MAIL_TASK]: createMailTask(createSmtpMailer(smtp.url, 'support@berth.test')) },
      pollIntervalMs: 200,
      log: () => {},
    });
  });
  beforeEach(async () => {
    server = await startListeningApp(db, dbUrl, { helpUploadsDir: dir });
  });
  afterAll(async () => {
    await server?.stop();
    await runner.stop();
    await smtp.close();
  });

  it('notifies the customer live, e-mails them through SMTP, and shows the answer with its images', async () => {
    const admin = await registerAdmin(server.app, db);
    const customer = await register(server.app, { email: 'customer@example.com', firstName: 'Grace' });
    const ticket = (
      await call(server.app, 'POST', '/api/help/submit', { token: customer.token, body: ticketBody() })
    ).json.item;
    const minted = await call(server.app, 'POST', '/api/notifications/stream-token', {
      token: customer.token,
    });
    const stream = await openEventStream(`${server.url}/api/notifications/stream?token=${minted.json.token}`);
    await stream.next((m) => m.retry !== undefined);

    const image = (await upload(admin.token, GIF, 'steps.gif', server.app)).json.file;
    const answer = await call(server.app, 'POST', `/api/help/${ticket.id}/answer`, {
      token: admin.token,
      body: {
        text: 'Restarted it. See [the guide](https://example.com/guide).',
        attachments: [image],
        notifyEmail: true,
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.json.item).toMatchObject({
      status: 'answered',
      adminResponse: {
        text: 'Restarted it. See [the guide](https://example.com/guide).',
        respondedAt: expect.any(String),
        attachments: [image],
      },
    });

    const live = await stream.next((m) => m.event === 'notification', 5000);
    expect(JSON.parse(live.data ?? '{}')).toMatchObject({
      type: 'helpdesk',
      title: 'Support answered your ticket',
      message: 'Your ticket "My site is down" has a response from support.',
    });
    stream.close();

    const mail = await smtp.nextMail(10_000);
    expect(mail.to).toMatchObject({ text: 'ada@example.com' });
    expect(mail.subject).toBe('Re: My site is down');
    expect(mail.text).toContain('Restarted it.');

    const mine = await call(server.app, 'GET', '/api/help/my', { token: customer.token });
    expect(mine.json.items[0]?.adminResponse?.attachments).toEqual([image]);
    const res = await server.app.request(`/api${image.url}`, {
      headers: { authorization: `Bearer ${customer.token}` },
    });
    expect(res.status).toBe(200);
  });

  it('replaces an earlier answer, deleting its images not kept, and uses the given notification text', async () => {
    const admin = await registerAdmin(server.app, db);
    const customer = await register(server.app);
    const ticket = (
      await call(server.app, 'POST', '/api/help/submit', { token: customer.token, body: ticketBody() })
    ).json.item;
    const first = (await upload(admin.token, PNG, 'a.png', server.app)).json.file;
    const second = (await upload(admin.token, PNG, 'b.png', server.app)).json.file;
    await call(server.app, 'POST', `/api/help/${ticket.id}/answer`, {
      token: admin.token,
      body: { text: 'First', attachments: [first, second], notify: false },
    });
    const again = await call(server.app, 'POST', `/api/help/${ticket.id}/answer`, {
      token: admin.token,
      body: {
        text: 'Second',
        attachments: [second],
        notifyTitle: 'Update',
        notifyMessage: 'We looked again',
      },
    });
    expect(again.json.item.adminResponse).toMatchObject({ text: 'Second', attachments: [second] });
    expect(await filesOnDisk()).toEqual([second.url.split('/').pop()]);
    const notes = await call(server.app, 'GET', '/api/notifications', { token: customer.token });
    const helpdesk = notes.json.items.filter((n: { type: string }) => n.type === 'helpdesk');
    expect(helpdesk).toEqual([expect.objectContaining({ title: 'Update', message: 'We looked again' })]);
  });
});

describe('orphan sweep', () => {
  it('deletes unattached uploads older than a day and stray files, keeps the rest', async () => {
    const { token } = await register(app);
    const old = (await upload(token, PNG, 'old.png')).json.file;
    const fresh = (await upload(token, PNG, 'fresh.png')).json.file;
    const used = (await upload(token, PNG, 'used.png')).json.file;
    await submit(token, { attachments: [used] });
    const name = (url: string) => url.split('/').pop() as string;
    const longAgo = new Date(Date.now() - ORPHAN_AGE_MS - 60_000);
    await db
      .updateTable('help_uploads')
      .set({ created_at: longAgo } as never)
      .where('file_name', 'in', [name(old.url), name(used.url)])
      .execute();
    const stray = `${'a'.repeat(32)}.png`;
    await writeFile(path.join(dir, stray), PNG);
    await utimes(path.join(dir, stray), longAgo, longAgo);

    const service = createHelpDeskService({
      db,
      now: () => new Date(),
      files: createHelpFiles(dir),
      notifications: createNotificationsService({ db }),
      subscriptions: { get: async () => Promise.reject(new Error('unused')) },
      publicUrl: 'http://localhost',
    });
    expect(await service.sweepOrphans()).toBe(2);
    expect(await filesOnDisk()).toEqual([name(fresh.url), name(used.url)].sort());
  });
});
