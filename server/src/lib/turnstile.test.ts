import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type BodyOf,
  call,
  createTestApp,
  type ErrorFields,
  newAccount,
  register,
  type TestApp,
} from '../../test/create-test-app.ts';
import {
  FAIL_SECRET,
  PASS_SECRET,
  SPENT_SECRET,
  startFakeTurnstile,
  TEST_SITE_KEY,
} from '../../test/fake-turnstile.ts';
import { createTestDatabase, truncateAll } from '../../test/test-db.ts';
import type { Db } from '../db/database.ts';
import { CaptchaError } from './errors.ts';
import { createTurnstileVerifier, turnstileOff } from './turnstile.ts';

let fake: Awaited<ReturnType<typeof startFakeTurnstile>>;
let db: Db;
beforeAll(async () => {
  fake = await startFakeTurnstile();
  ({ db } = await createTestDatabase());
});
afterAll(() => fake.close());
beforeEach(() => truncateAll(db));

const verifier = (secretKey: string, timeoutMs?: number) =>
  createTurnstileVerifier({ siteKey: TEST_SITE_KEY, secretKey, verifyUrl: fake.url, timeoutMs });

describe('TurnstileVerifier', () => {
  it('passes a fresh token once, then refuses it as spent', async () => {
    const check = verifier(PASS_SECRET);
    await expect(check.verify('token-1', '203.0.113.7')).resolves.toBeUndefined();
    expect(fake.requests.at(-1)).toEqual({
      secret: PASS_SECRET,
      response: 'token-1',
      remoteip: '203.0.113.7',
    });
    await expect(check.verify('token-1')).rejects.toBeInstanceOf(CaptchaError);
  });

  it.each([
    ['a failing secret', FAIL_SECRET, 'token-2'],
    ['an already-spent secret', SPENT_SECRET, 'token-3'],
    ['no token', PASS_SECRET, undefined],
    ['an empty token', PASS_SECRET, ''],
  ])('refuses %s with the spec message', async (_case, secret, token) => {
    await expect(verifier(secret).verify(token)).rejects.toThrow('Please complete the CAPTCHA verification');
  });

  it.each([
    ['a non-200 answer', 'http-500'],
    ['a body that is not JSON', 'not-json'],
    ['a timeout', 'slow'],
  ])('fails closed on %s', async (_case, token) => {
    await expect(verifier(PASS_SECRET, 300).verify(token)).rejects.toBeInstanceOf(CaptchaError);
  });

  it('fails closed when siteverify cannot be reached', async () => {
    const check = createTurnstileVerifier({
      siteKey: TEST_SITE_KEY,
      secretKey: PASS_SECRET,
      verifyUrl: 'http://127.0.0.1:1/siteverify',
    });
    await expect(check.verify('token-4')).rejects.toBeInstanceOf(CaptchaError);
  });

  it('lets everything through when off, and has no site key', async () => {
    expect(turnstileOff.siteKey).toBeNull();
    await expect(turnstileOff.verify(undefined)).resolves.toBeUndefined();
  });
});

describe('bot check on the public forms', () => {
  let app: TestApp;
  let n = 0;
  const token = () => `form-token-${++n}`;
  beforeAll(() => {
    app = createTestApp(db, { turnstile: verifier(PASS_SECRET) });
  });

  const contact = (turnstileToken?: string) =>
    ({
      name: 'Ada',
      email: 'ada@example.com',
      subject: 'Hello',
      message: 'Question',
      category: 'general',
      turnstileToken,
    }) satisfies BodyOf<'POST', '/api/contact/submit'>;
  /** Each public form, sent to `target` with a bot-check token (or none), its body typed by its route. */
  const forms: [string, (target: TestApp, t?: string) => Promise<{ status: number; json: ErrorFields }>][] = [
    [
      'register',
      (target, t) => call(target, 'POST', '/api/auth/register', { body: newAccount({ turnstileToken: t }) }),
    ],
    [
      'login',
      async (target, t) => {
        const { body } = await register(createTestApp(db));
        return call(target, 'POST', '/api/auth/login', {
          body: { emailOrUsername: body.username, password: body.password, turnstileToken: t },
        });
      },
    ],
    [
      'password reset request',
      (target, t) =>
        call(target, 'POST', '/api/password-reset/request', {
          body: { email: 'ada@example.com', turnstileToken: t },
        }),
    ],
    ['contact', (target, t) => call(target, 'POST', '/api/contact/submit', { body: contact(t) })],
  ];

  it.each(forms)(
    '%s: refuses a missing, failed or reused token and accepts a fresh one',
    async (_name, send) => {
      const missing = await send(app, undefined);
      expect(missing.status).toBe(400);
      expect(missing.json).toEqual({
        error: 'captcha_failed',
        message: 'Please complete the CAPTCHA verification',
      });

      const fresh = token();
      const ok = await send(app, fresh);
      expect(ok.status).toBeLessThan(300);

      const reused = await send(app, fresh);
      expect(reused.status).toBe(400);
      expect(reused.json.message).toBe('Please complete the CAPTCHA verification');

      const failed = await send(createTestApp(db, { turnstile: verifier(FAIL_SECRET) }), token());
      expect(failed.status).toBe(400);
      expect(failed.json.error).toBe('captcha_failed');
    },
  );

  it('creates no account when the bot check fails', async () => {
    await call(app, 'POST', '/api/auth/register', { body: newAccount() });
    expect(await db.selectFrom('users').select('id').execute()).toHaveLength(0);
  });
});

describe('GET /api/config', () => {
  it('gives the site key when the bot check is on, null when off, with OAuth off and plan prices', async () => {
    const on = await call(createTestApp(db, { turnstile: verifier(PASS_SECRET) }), 'GET', '/api/config');
    expect(on.status).toBe(200);
    // (What this install offers, also in the answer, is config.test.ts' subject.)
    expect(on.json).toMatchObject({
      turnstileSiteKey: TEST_SITE_KEY,
      oauthEnabled: false,
      plans: {
        currency: 'USD',
        currencySymbol: '$',
        starter: { monthly: 3.99, yearlyDiscount: 0.1, yearly: 43.09 },
        pro: { monthly: 19.99, yearlyDiscount: 0.3, yearly: 167.92 },
        addonInstance: 3.99,
      },
    });
    const off = await call(createTestApp(db), 'GET', '/api/config');
    expect(off.json.turnstileSiteKey).toBeNull();
  });
});
