import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type BodyOf, call, createTestApp } from '../../../test/create-test-app.ts';
import { startSmtpPeer } from '../../../test/smtp-peer.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import { createSmtpMailer } from '../../lib/mailer.ts';

let db: Db;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
beforeAll(async () => {
  ({ db } = await createTestDatabase());
  smtp = await startSmtpPeer();
});
afterAll(() => smtp.close());
beforeEach(() => truncateAll(db));

type ContactBody = BodyOf<'POST', '/api/contact/submit'>;

const message = (patch: Partial<ContactBody> = {}): ContactBody => ({
  name: '  Grace Hopper ',
  email: 'grace@example.com',
  subject: 'Custom domain',
  message: 'How do I point my domain at my WordPress site?',
  category: 'technical',
  path: '/help',
  ...patch,
});

describe('POST /api/contact/submit', () => {
  it('stores the message and mails it to the support address, replying to the sender', async () => {
    const app = createTestApp(db, {
      mailer: createSmtpMailer(smtp.url, 'Berth <no-reply@berth.test>'),
      supportEmail: 'help@berth.test',
    });
    const res = await call(app, 'POST', '/api/contact/submit', { body: message() });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      success: true,
      message: "Message sent successfully! We'll get back to you within 24 hours.",
    });

    const row = await db.selectFrom('contact_messages').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      name: 'Grace Hopper',
      email: 'grace@example.com',
      subject: 'Custom domain',
      category: 'technical',
      path: '/help',
      ip: 'local',
    });

    const mail = await smtp.nextMail();
    expect(mail.to && 'value' in mail.to ? mail.to.value[0]?.address : '').toBe('help@berth.test');
    expect(mail.replyTo?.value).toEqual([{ name: 'Grace Hopper', address: 'grace@example.com' }]);
    expect(mail.subject).toBe('[Contact: technical] Custom domain');
    expect(mail.text).toContain('How do I point my domain at my WordPress site?');
  });

  it.each([
    [{ name: '' }, 'name', 'Name is required'],
    [{ name: 'n'.repeat(121) }, 'name', 'Name is too long'],
    [{ email: 'grace' }, 'email', 'Invalid email'],
    [{ email: `${'e'.repeat(195)}@x.com` }, 'email', 'Email is too long'],
    [{ subject: ' ' }, 'subject', 'Subject is required'],
    [{ subject: 's'.repeat(201) }, 'subject', 'Subject is too long'],
    [{ message: '' }, 'message', 'Message is required'],
    [{ message: 'm'.repeat(5001) }, 'message', 'Message is too long'],
    [{ category: 'sales' }, 'category', 'Please select a valid category'],
    [{ category: undefined }, 'category', 'Please select a valid category'],
  ])('refuses %j with "%s: %s" and stores nothing', async (patch, field, text) => {
    const res = await call(createTestApp(db), 'POST', '/api/contact/submit', {
      badBody: { ...message(), ...patch },
    });
    expect(res.status).toBe(400);
    expect(res.json.details?.fieldErrors?.[field]).toContain(text);
    expect(await db.selectFrom('contact_messages').select('id').execute()).toHaveLength(0);
  });

  it('limits messages per client address', async () => {
    const app = createTestApp(db, { rateLimits: { contact: { points: 2, windowSeconds: 60 } } });
    expect((await call(app, 'POST', '/api/contact/submit', { body: message() })).status).toBe(200);
    expect((await call(app, 'POST', '/api/contact/submit', { body: message() })).status).toBe(200);
    const blocked = await call(app, 'POST', '/api/contact/submit', { body: message() });
    expect(blocked.status).toBe(429);
    expect(await db.selectFrom('contact_messages').select('id').execute()).toHaveLength(2);
  });

  it('refuses a body over the JSON limit with 413 before parsing it', async () => {
    const res = await call(createTestApp(db), 'POST', '/api/contact/submit', {
      body: message({ message: 'm'.repeat(300 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ error: 'payload_too_large', message: 'Request body is too large' });
  });
});
