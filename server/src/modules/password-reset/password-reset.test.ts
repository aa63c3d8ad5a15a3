import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, register, type TestApp } from '../../../test/create-test-app.ts';
import { waitFor } from '../../../test/instances-harness.ts';
import { startSmtpPeer } from '../../../test/smtp-peer.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import { createMemoryMailer, createSmtpMailer } from '../../lib/mailer.ts';

const PUBLIC_URL = 'http://berth.test:8080';
let db: Db;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let clock: number;
let app: TestApp;

beforeAll(async () => {
  ({ db } = await createTestDatabase());
  smtp = await startSmtpPeer();
});
afterAll(() => smtp.close());
beforeEach(async () => {
  await truncateAll(db);
  clock = Date.now();
  app = createTestApp(db, {
    mailer: createSmtpMailer(smtp.url, 'Berth <no-reply@berth.test>'),
    publicUrl: PUBLIC_URL,
    now: () => new Date(clock),
  });
});

/** Asks for a reset and reads the link from the mail the SMTP server received. */
async function requestLink(email: string): Promise<{ link: URL; token: string }> {
  const res = await call(app, 'POST', '/api/password-reset/request', { body: { email: `  ${email} ` } });
  expect(res.status).toBe(200);
  const mail = await smtp.nextMail();
  expect(mail.to && 'value' in mail.to ? mail.to.value[0]?.address : '').toBe(email);
  const href = /https?:\/\/\S+/.exec(mail.text ?? '')?.[0] ?? '';
  const link = new URL(href);
  return { link, token: link.searchParams.get('token') ?? '' };
}

const login = (username: string, password: string) =>
  call(app, 'POST', '/api/auth/login', { body: { emailOrUsername: username, password } });

describe('password reset', () => {
  it('mails a link that verifies, resets the password once, and lets the user sign in with the new one', async () => {
    const { body } = await register(app);
    const { link, token } = await requestLink(body.email);
    expect(`${link.origin}${link.pathname}`).toBe(`${PUBLIC_URL}/reset-password`);
    expect(token).toMatch(/^[\w-]{43}$/);

    const verified = await call(app, 'GET', `/api/password-reset/verify/${token}`);
    expect(verified.status).toBe(200);
    expect(verified.json).toMatchObject({ success: true });

    const reset = await call(app, 'POST', '/api/password-reset/reset', {
      body: { token, password: 'Fresh#pass1' },
    });
    expect(reset.status).toBe(200);
    expect(reset.json).toEqual({ success: true, message: expect.any(String) });

    expect((await login(body.username, body.password)).status).toBe(401);
    expect((await login(body.username, 'Fresh#pass1')).status).toBe(200);

    // Single use: the same link no longer verifies nor resets.
    const again = await call(app, 'GET', `/api/password-reset/verify/${token}`);
    expect(again.status).toBe(400);
    expect(again.json.message).toBe('Invalid or expired reset token');
    const reuse = await call(app, 'POST', '/api/password-reset/reset', {
      body: { token, password: 'Third#pass1' },
    });
    expect(reuse.status).toBe(400);
    expect(reuse.json.message).toBe('Invalid or expired reset token');
    expect((await login(body.username, 'Fresh#pass1')).status).toBe(200);
  });

  it('stores only a sha-256 hash of the token', async () => {
    const { body } = await register(app);
    const { token } = await requestLink(body.email);
    const rows = await db.selectFrom('password_reset_tokens').select('token_hash').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]?.token_hash).not.toContain(token);
  });

  it('answers the same for an unknown e-mail and sends nothing', async () => {
    const { body } = await register(app);
    const memory = createMemoryMailer();
    const quiet = createTestApp(db, { mailer: memory });
    // The unknown address first: once the known one's mail is there, one for the unknown would be too.
    const unknown = await call(quiet, 'POST', '/api/password-reset/request', {
      body: { email: 'nobody@example.com' },
    });
    const known = await call(quiet, 'POST', '/api/password-reset/request', { body: { email: body.email } });
    expect(unknown.status).toBe(known.status);
    expect(unknown.json).toEqual(known.json);
    await waitFor(() => (memory.sent.length > 0 ? true : undefined), { what: 'the reset mail' });
    expect(memory.sent.map((m) => m.to)).toEqual([body.email]);
  });

  it('answers the spec message for a token that never existed, whatever its shape', async () => {
    for (const token of ['made-up', 'x'.repeat(500)]) {
      const verified = await call(app, 'GET', `/api/password-reset/verify/${token}`);
      expect(verified.status).toBe(400);
      expect(verified.json.message).toBe('Invalid or expired reset token');
      const reset = await call(app, 'POST', '/api/password-reset/reset', {
        body: { token, password: 'Fresh#pass1' },
      });
      expect(reset.status).toBe(400);
      expect(reset.json.message).toBe('Invalid or expired reset token');
    }
  });

  it('refuses a token after one hour', async () => {
    const { body } = await register(app);
    const { token } = await requestLink(body.email);
    clock += 61 * 60_000;
    const verified = await call(app, 'GET', `/api/password-reset/verify/${token}`);
    expect(verified.status).toBe(400);
    expect(verified.json.message).toBe('Invalid or expired reset token');
    const reset = await call(app, 'POST', '/api/password-reset/reset', {
      body: { token, password: 'Fresh#pass1' },
    });
    expect(reset.json.message).toBe('Invalid or expired reset token');
  });

  it('invalidates the other outstanding links of the user on reset', async () => {
    const { body } = await register(app);
    const first = await requestLink(body.email);
    const second = await requestLink(body.email);
    await call(app, 'POST', '/api/password-reset/reset', {
      body: { token: second.token, password: 'Fresh#pass1' },
    });
    const older = await call(app, 'GET', `/api/password-reset/verify/${first.token}`);
    expect(older.status).toBe(400);
    expect(older.json.message).toBe('Invalid or expired reset token');
  });

  it('lets only one of two racing resets with the same token through', async () => {
    const { body } = await register(app);
    const { token } = await requestLink(body.email);
    const results = await Promise.all(
      ['Race#one1', 'Race#two2'].map((password) =>
        call(app, 'POST', '/api/password-reset/reset', { body: { token, password } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it('tells the user with a "password changed" notification', async () => {
    const { body } = await register(app);
    const { token } = await requestLink(body.email);
    await call(app, 'POST', '/api/password-reset/reset', { body: { token, password: 'Fresh#pass1' } });
    const session = (await login(body.username, 'Fresh#pass1')).json.token;
    const list = await call(app, 'GET', '/api/notifications', { token: session });
    expect(list.json.items[0]).toMatchObject({ type: 'security', title: 'Password changed' });
  });

  it.each([
    // The registration rules (four of five checks), with their message.
    [{ token: 'x', password: 'lowercase1' }, 'password', 'Password must meet all requirements below'],
    [{ token: 'x', password: '' }, 'password', 'Password is required'],
    [{ password: 'long-enough' }, 'token', 'Reset token is required'],
  ])('validates the reset body %j', async (resetBody, field, message) => {
    const res = await call(app, 'POST', '/api/password-reset/reset', { badBody: resetBody });
    expect(res.status).toBe(400);
    expect(res.json.details?.fieldErrors?.[field]).toContain(message);
  });

  it.each([
    [{}, 'Email is required'],
    [{ email: '   ' }, 'Email is required'],
    [{ email: 'not-an-email' }, 'Invalid email address'],
  ])('validates the request body %j', async (requestBody, message) => {
    const res = await call(app, 'POST', '/api/password-reset/request', { badBody: requestBody });
    expect(res.status).toBe(400);
    expect(res.json.details?.fieldErrors?.email).toContain(message);
  });

  it('limits reset requests per client', async () => {
    const limited = createTestApp(db, { rateLimits: { passwordReset: { points: 2, windowSeconds: 60 } } });
    const ask = () =>
      call(limited, 'POST', '/api/password-reset/request', { body: { email: 'a@example.com' } });
    expect((await ask()).status).toBe(200);
    expect((await ask()).status).toBe(200);
    const blocked = await ask();
    expect(blocked.status).toBe(429);
    expect(blocked.json.error).toBe('rate_limited');
  });
});
