import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  createTestApp,
  newAccount,
  present,
  register,
  type TestApp,
} from '../../../test/create-test-app.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';

let db: Db;
let app: TestApp;

beforeAll(async () => {
  ({ db } = await createTestDatabase());
  app = createTestApp(db);
});
beforeEach(() => truncateAll(db));

describe('POST /api/auth/register', () => {
  it('creates the account, starts a 60-minute trial and signs it in', async () => {
    const before = Date.now();
    const res = await call(app, 'POST', '/api/auth/register', { body: newAccount({ username: 'Grace_H' }) });
    expect(res.status).toBe(201);
    expect(res.json.token).toMatch(/^ey/);
    const user = res.json.user;
    expect(user).toMatchObject({
      username: 'Grace_H',
      firstName: 'Ada',
      lastName: 'Lovelace',
      accountType: 'individual',
      companyName: null,
      avatarUrl: null,
      instancesUsed: 0,
    });
    expect(user.subscription).toMatchObject({
      standing: 'trial',
      isTrialActive: true,
      isInactive: false,
      plan: 'free',
      maxInstances: 1,
    });
    const trialMs = Date.parse(present(user.subscription.trialEndsAt, 'a trial end')) - before;
    expect(trialMs).toBeGreaterThan(59 * 60_000);
    expect(trialMs).toBeLessThanOrEqual(60 * 60_000 + 5_000);
  });

  it('stores an argon2id hash, never the password', async () => {
    const { body } = await register(app);
    const row = await db.selectFrom('users').select('password_hash').executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(row.password_hash).not.toContain(body.password);
  });

  it('keeps the company name for companies and requires it', async () => {
    const company = await register(app, { accountType: 'company', companyName: 'Analytical Engines Ltd' });
    expect(company.user).toMatchObject({ accountType: 'company', companyName: 'Analytical Engines Ltd' });
    const missing = await call(app, 'POST', '/api/auth/register', {
      body: newAccount({ accountType: 'company' }),
    });
    expect(missing.status).toBe(400);
    expect(missing.json.details?.fieldErrors?.companyName).toEqual(['Company name is required']);
  });

  it.each([
    [{ accountType: 'team' }, 'accountType', 'Please select an account type'],
    [{ firstName: '' }, 'firstName', 'First name is required'],
    [{ firstName: 'x'.repeat(51) }, 'firstName', 'First name too long'],
    [{ lastName: 'y'.repeat(51) }, 'lastName', 'Last name too long'],
    [
      { accountType: 'company', companyName: 'A' },
      'companyName',
      'Company name must be at least 2 characters',
    ],
    [{ accountType: 'company', companyName: 'C'.repeat(101) }, 'companyName', 'Company name too long'],
    [{ username: 'ab' }, 'username', 'Username must be at least 3 characters'],
    [{ username: 'a'.repeat(31) }, 'username', 'Username too long'],
    [
      { username: 'ada lovelace' },
      'username',
      'Username can only contain letters, numbers, hyphens, and underscores',
    ],
    [{ email: 'ada.example.com' }, 'email', 'Invalid email address'],
    [{ email: '' }, 'email', 'Email is required'],
    [{ password: 'lowercase1' }, 'password', 'Password must meet all requirements below'],
    [{ password: '' }, 'password', 'Password is required'],
  ])('refuses %j with "%s: %s"', async (patch, field, message) => {
    const res = await call(app, 'POST', '/api/auth/register', { badBody: { ...newAccount(), ...patch } });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('validation_error');
    expect(res.json.details?.fieldErrors?.[field]).toContain(message);
    expect(await db.selectFrom('users').select('id').execute()).toHaveLength(0);
  });

  it('accepts a password passing four of the five checks', async () => {
    // no special character: length, lower, upper, digit
    const res = await call(app, 'POST', '/api/auth/register', {
      body: newAccount({ password: 'Lovelace1843' }),
    });
    expect(res.status).toBe(201);
  });

  it('refuses a taken e-mail or username, whatever the case, and writes nothing', async () => {
    const { body } = await register(app);
    const sameEmail = await call(app, 'POST', '/api/auth/register', {
      body: newAccount({ email: body.email.toUpperCase() }),
    });
    expect(sameEmail.status).toBe(409);
    expect(sameEmail.json.message).toBe('Email is already registered');
    const sameName = await call(app, 'POST', '/api/auth/register', {
      body: newAccount({ username: body.username.toUpperCase() }),
    });
    expect(sameName.status).toBe(409);
    expect(sameName.json.message).toBe('Username is already taken');
    expect(await db.selectFrom('users').select('id').execute()).toHaveLength(1);
  });

  it('answers 400, not 500, for a body that is not JSON', async () => {
    const res = await call(app, 'POST', '/api/auth/register', { rawBody: '{"username":' });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: 'bad_request' });
  });

  it('upper-cases and keeps the referral code', async () => {
    await register(app, { ref: 'friend42' });
    const row = await db.selectFrom('users').select('referral_code').executeTakeFirstOrThrow();
    expect(row.referral_code).toBe('FRIEND42');
  });
});

describe('POST /api/auth/login', () => {
  it('signs in with the username or the e-mail, in any case', async () => {
    const { body } = await register(app);
    for (const login of [body.username, body.email, body.email.toUpperCase()]) {
      const res = await call(app, 'POST', '/api/auth/login', {
        body: { emailOrUsername: login, password: body.password },
      });
      expect(res.status).toBe(200);
      expect(res.json.user.username).toBe(body.username);
      expect(res.json.token).toMatch(/^ey/);
    }
  });

  it('answers 401 with one message for a wrong password and for an unknown user', async () => {
    const { body } = await register(app);
    const wrong = await call(app, 'POST', '/api/auth/login', {
      body: { emailOrUsername: body.username, password: 'Wrong#password1' },
    });
    const unknown = await call(app, 'POST', '/api/auth/login', {
      body: { emailOrUsername: 'nobody-here', password: 'Wrong#password1' },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.json).toEqual({ error: 'unauthorized', message: 'Invalid email/username or password' });
    expect(unknown.json).toEqual(wrong.json);
  });

  it.each([
    [{ password: 'x' }, 'emailOrUsername', 'Email or username is required'],
    [{ emailOrUsername: 'ab', password: 'x' }, 'emailOrUsername', 'Must be at least 3 characters'],
    [{ emailOrUsername: 'ada' }, 'password', 'Password is required'],
  ])('refuses %j with "%s: %s"', async (body, field, message) => {
    const res = await call(app, 'POST', '/api/auth/login', { badBody: body });
    expect(res.status).toBe(400);
    expect(res.json.details?.fieldErrors?.[field]).toContain(message);
  });

  it('limits attempts per client and says when to retry', async () => {
    const limited = createTestApp(db, { rateLimits: { login: { points: 3, windowSeconds: 60 } } });
    const attempt = () =>
      call(limited, 'POST', '/api/auth/login', { body: { emailOrUsername: 'someone', password: 'x' } });
    for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(401);
    const blocked = await attempt();
    expect(blocked.status).toBe(429);
    expect(blocked.json.error).toBe('rate_limited');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('profile and password', () => {
  it('answers the signed-in user for a valid token only', async () => {
    const { token, user } = await register(app);
    const ok = await call(app, 'GET', '/api/auth/profile', { token });
    expect(ok.status).toBe(200);
    expect(ok.json.user.id).toBe(user.id);

    expect((await call(app, 'GET', '/api/auth/profile')).status).toBe(401);
    expect((await call(app, 'GET', '/api/auth/profile', { token: 'not-a-token' })).status).toBe(401);
    const foreign = createTestApp(db, { jwtSecret: 'another-secret-that-is-also-32-characters!' });
    const { token: foreignToken } = await register(foreign);
    expect((await call(app, 'GET', '/api/auth/profile', { token: foreignToken })).status).toBe(401);
  });

  it('answers 401 once the account is gone', async () => {
    const { token } = await register(app);
    await db.deleteFrom('users').execute();
    const res = await call(app, 'GET', '/api/auth/profile', { token });
    expect(res.status).toBe(401);
  });

  it('updates personal information and keeps usernames unique', async () => {
    const other = await register(app);
    const { token } = await register(app);
    const res = await call(app, 'PUT', '/api/auth/profile', {
      token,
      body: { firstName: 'Augusta', lastName: 'King', username: 'countess' },
    });
    expect(res.status).toBe(200);
    expect(res.json.user).toMatchObject({ firstName: 'Augusta', lastName: 'King', username: 'countess' });
    expect(res.json.message).toBe('Profile updated successfully!');

    const clash = await call(app, 'PUT', '/api/auth/profile', {
      token,
      body: { firstName: 'A', lastName: 'K', username: other.body.username },
    });
    expect(clash.status).toBe(409);
    expect(clash.json.message).toBe('Username is already taken');
  });

  it.each([
    [{ firstName: '', lastName: 'K', username: 'abc' }, 'firstName', 'First name is required'],
    [{ firstName: 'A', lastName: '', username: 'abc' }, 'lastName', 'Last name is required'],
    [{ firstName: 'A', lastName: 'K', username: 'ab' }, 'username', 'Username must be at least 3 characters'],
  ])('refuses profile %j with "%s: %s"', async (body, field, message) => {
    const { token } = await register(app);
    const res = await call(app, 'PUT', '/api/auth/profile', { token, body });
    expect(res.status).toBe(400);
    expect(res.json.details?.fieldErrors?.[field]).toContain(message);
  });

  it('changes the password only with the right current one', async () => {
    const { token, body } = await register(app);
    const wrong = await call(app, 'PUT', '/api/auth/change-password', {
      token,
      body: { currentPassword: 'not-it', newPassword: 'Brand#new42' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json.message).toBe('Current password is incorrect');

    const short = await call(app, 'PUT', '/api/auth/change-password', {
      token,
      body: { currentPassword: body.password, newPassword: 'lowercase1' },
    });
    expect(short.status).toBe(400);
    expect(short.json.details?.fieldErrors?.newPassword).toContain(
      'Password must meet all requirements below',
    );

    const ok = await call(app, 'PUT', '/api/auth/change-password', {
      token,
      body: { currentPassword: body.password, newPassword: 'Brand#new42' },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.message).toBe('Password changed successfully!');

    const login = (password: string) =>
      call(app, 'POST', '/api/auth/login', { body: { emailOrUsername: body.username, password } });
    expect((await login(body.password)).status).toBe(401);
    expect((await login('Brand#new42')).status).toBe(200);
  });
});
