import { createSecretKey } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  createTestApp,
  present,
  type Requester,
  register,
  TEST_JWT_SECRET,
  type TestApp,
} from '../../../test/create-test-app.ts';
import { type ServerProcess, startServerProcess } from '../../../test/server-process.ts';
import { type EventStream, openEventStream } from '../../../test/sse-client.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import { createMemoryMailer } from '../../lib/mailer.ts';

let db: Db;
let dbUrl: string;
let app: TestApp;
let clock: number;

beforeAll(async () => {
  ({ db, url: dbUrl } = await createTestDatabase());
});
beforeEach(async () => {
  await truncateAll(db);
  clock = Date.now();
  app = createTestApp(db, { now: () => new Date(clock) });
});

const NEW_PASSWORD = 'Brand#new42';
const refresh = (target: Requester, refreshToken: string) =>
  call(target, 'POST', '/api/auth/refresh', { body: { refreshToken } });
const profile = (target: Requester, token: string) => call(target, 'GET', '/api/auth/profile', { token });
const login = (target: Requester, emailOrUsername: string, password: string) =>
  call(target, 'POST', '/api/auth/login', { body: { emailOrUsername, password } });

describe('access and refresh tokens', () => {
  it('signs in with a 15-minute access token and a refresh token, both in the answer', async () => {
    const res = await call(app, 'POST', '/api/auth/register', {
      body: {
        accountType: 'individual',
        firstName: 'Ada',
        lastName: 'Lovelace',
        username: 'ada',
        email: 'ada@example.com',
        password: 'Analytical#1843',
      },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      token: expect.stringMatching(/^ey/),
      expiresIn: 900,
      refreshToken: expect.stringMatching(/^[\w-]{43}$/),
      user: { username: 'ada' },
    });
    const claims = decodeJwt(res.json.token);
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(900);
    expect(claims.tv).toBe(0);
    const refreshDays = (Date.parse(res.json.refreshTokenExpiresAt) - clock) / 86_400_000;
    expect(refreshDays).toBeCloseTo(30, 3);

    const signedIn = await login(app, 'ada', 'Analytical#1843');
    expect(signedIn.json.refreshToken).toMatch(/^[\w-]{43}$/);
    expect(signedIn.json.refreshToken).not.toBe(res.json.refreshToken);
  });

  it('stores only sha-256 hashes of refresh tokens', async () => {
    const { refreshToken } = await register(app);
    const rows = await db.selectFrom('refresh_tokens').select('token_hash').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]?.token_hash).not.toContain(refreshToken);
  });

  it('rotates the refresh token on every use; the new pair works', async () => {
    const first = await register(app);
    const { refreshToken } = first;
    const rotated = await refresh(app, refreshToken);
    expect(rotated.status).toBe(200);
    expect(rotated.json).toEqual({
      token: expect.stringMatching(/^ey/),
      expiresIn: 900,
      refreshToken: expect.stringMatching(/^[\w-]{43}$/),
      refreshTokenExpiresAt: expect.any(String),
    });
    expect(rotated.json.refreshToken).not.toBe(refreshToken);
    expect((await profile(app, rotated.json.token)).json.user.id).toBe(first.user.id);
    expect((await refresh(app, rotated.json.refreshToken)).status).toBe(200);
  });

  it('revokes the whole family when a rotated refresh token is used again', async () => {
    const { refreshToken } = await register(app);
    const rotated = await refresh(app, refreshToken);
    expect(rotated.status).toBe(200);

    // Someone replays the old token (stolen, say): refused, and the thief's victim is signed out too.
    const replay = await refresh(app, refreshToken);
    expect(replay.status).toBe(401);
    expect(replay.json).toEqual({ error: 'unauthorized', message: 'Invalid or expired refresh token' });
    const legitimate = await refresh(app, rotated.json.refreshToken);
    expect(legitimate.status).toBe(401);
  });

  it('keeps other sign-ins of the user when one family is revoked', async () => {
    const { body, refreshToken } = await register(app);
    const laptop = await login(app, body.username, body.password);
    await refresh(app, refreshToken);
    await refresh(app, refreshToken); // reuse: the first family dies
    expect((await refresh(app, laptop.json.refreshToken)).status).toBe(200);
  });

  it('lets only one of two racing refreshes with the same token through', async () => {
    const { refreshToken } = await register(app);
    const results = await Promise.all([refresh(app, refreshToken), refresh(app, refreshToken)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it('refuses an expired refresh token', async () => {
    const { refreshToken } = await register(app);
    clock += 31 * 86_400_000;
    expect((await refresh(app, refreshToken)).status).toBe(401);
  });

  it.each([
    [{}, 'Refresh token is required'],
    [{ refreshToken: '' }, 'Refresh token is required'],
    [{ refreshToken: 'x'.repeat(500) }, 'Invalid refresh token'],
  ])('answers 400 for refresh body %j', async (body, message) => {
    const res = await call(app, 'POST', '/api/auth/refresh', { badBody: body });
    expect(res.status).toBe(400);
    expect(res.json.details?.fieldErrors?.refreshToken).toContain(message);
  });

  it('answers 401 for a refresh token that never existed', async () => {
    const res = await refresh(app, 'made-up');
    expect(res.status).toBe(401);
    expect(res.json.error).toBe('unauthorized');
  });

  it('logout revokes the refresh token family, and answers the same for an unknown token', async () => {
    const { refreshToken } = await register(app);
    const rotated = await refresh(app, refreshToken);
    const out = await call(app, 'POST', '/api/auth/logout', {
      body: { refreshToken: rotated.json.refreshToken },
    });
    expect(out.status).toBe(200);
    expect(out.json).toEqual({ message: 'Logged out successfully' });
    expect((await refresh(app, rotated.json.refreshToken)).status).toBe(401);
    const unknown = await call(app, 'POST', '/api/auth/logout', { body: { refreshToken: 'nope' } });
    expect(unknown.status).toBe(200);
  });

  it('refuses an access token without a token version (issued before versions existed)', async () => {
    const { user } = await register(app);
    const legacy = await new SignJWT({ role: 'user' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(user.id))
      .setIssuer('berth')
      .setAudience('berth-api')
      .setIssuedAt()
      .setExpirationTime('7d')
      .sign(createSecretKey(Buffer.from(TEST_JWT_SECRET, 'utf8')));
    const res = await profile(app, legacy);
    expect(res.status).toBe(401);
  });
});

describe('a password change ends every session', () => {
  it('kills earlier access and refresh tokens, and gives the caller a new pair that works', async () => {
    const { token, body, refreshToken } = await register(app);
    const phone = await login(app, body.username, body.password);
    expect((await profile(app, phone.json.token)).status).toBe(200);

    const changed = await call(app, 'PUT', '/api/auth/change-password', {
      token,
      body: { currentPassword: body.password, newPassword: NEW_PASSWORD },
    });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({
      message: 'Password changed successfully!',
      token: expect.stringMatching(/^ey/),
      refreshToken: expect.any(String),
      expiresIn: 900,
    });

    for (const old of [token, phone.json.token]) {
      const res = await profile(app, old);
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: 'unauthorized', message: 'Session expired, please sign in again' });
    }
    expect((await refresh(app, refreshToken)).status).toBe(401);
    expect((await refresh(app, phone.json.refreshToken)).status).toBe(401);

    expect((await profile(app, changed.json.token)).status).toBe(200);
    expect((await refresh(app, changed.json.refreshToken)).status).toBe(200);
  });

  it('a password reset kills earlier access and refresh tokens', async () => {
    const mailer = createMemoryMailer();
    const withMail = createTestApp(db, { mailer });
    const { token, body, refreshToken } = await register(withMail);
    await call(withMail, 'POST', '/api/password-reset/request', { body: { email: body.email } });
    await expect.poll(() => mailer.sent.length).toBe(1);
    const resetToken = /token=([\w-]+)/.exec(mailer.sent[0]?.text ?? '')?.[1];
    const reset = await call(withMail, 'POST', '/api/password-reset/reset', {
      body: { token: present(resetToken, 'the reset link'), password: NEW_PASSWORD },
    });
    expect(reset.status).toBe(200);
    expect((await profile(withMail, token)).status).toBe(401);
    expect((await refresh(withMail, refreshToken)).status).toBe(401);
  });

  it('refuses an admin token from before the change on admin routes too', async () => {
    const { token, body, user } = await register(app);
    await db.updateTable('users').set({ role: 'admin' }).where('id', '=', String(user.id)).execute();
    expect((await call(app, 'GET', '/api/admin/users', { token })).status).toBe(200);
    await call(app, 'PUT', '/api/auth/change-password', {
      token,
      body: { currentPassword: body.password, newPassword: NEW_PASSWORD },
    });
    expect((await call(app, 'GET', '/api/admin/users', { token })).status).toBe(401);
  });
});

describe('across server processes (LISTEN/NOTIFY)', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  const streams: EventStream[] = [];
  beforeAll(async () => {
    a = await startServerProcess(dbUrl);
    b = await startServerProcess(dbUrl);
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await a.stop();
    await b.stop();
  });

  async function openStream(instance: ServerProcess, sessionToken: string) {
    const minted = await call(instance, 'POST', '/api/notifications/stream-token', {
      token: sessionToken,
    });
    expect(minted.status).toBe(200);
    const stream = await openEventStream(
      `${instance.url}/api/notifications/stream?token=${minted.json.token}`,
    );
    streams.push(stream);
    expect(stream.response.status).toBe(200);
    expect(await stream.next()).toEqual({ retry: 3000 });
    return { stream, streamToken: minted.json.token as string };
  }

  /** Waits (to a deadline) for `event: signed-out` and then for the server to end the response. */
  async function ended(stream: EventStream, timeoutMs = 5000) {
    await stream.next((m) => m.event === 'signed-out', timeoutMs);
    await Promise.race([
      stream.ended,
      new Promise((_, reject) => setTimeout(() => reject(new Error('stream not closed')), timeoutMs)),
    ]);
  }

  it('refuses an old token on the other process as soon as the NOTIFY arrives, though that process had cached it', async () => {
    const { token, body } = await register(a);
    // B checks the token once, so its cache holds the user's version.
    expect((await profile(b, token)).status).toBe(200);
    expect((await profile(b, token)).status).toBe(200);

    const changed = await call(a, 'PUT', '/api/auth/change-password', {
      token,
      body: { currentPassword: body.password, newPassword: NEW_PASSWORD },
    });
    expect(changed.status).toBe(200);
    // Same process: at once.
    expect((await profile(a, token)).status).toBe(401);
    // Other process: as soon as the NOTIFY arrives.
    await expect.poll(async () => (await profile(b, token)).status, { timeout: 5000 }).toBe(401);
    expect((await profile(b, changed.json.token)).status).toBe(200);
  });

  it('closes the user’s open streams on both processes with `event: signed-out`, and only theirs', async () => {
    const { token, body } = await register(a);
    const other = await register(a);
    const onA = await openStream(a, token);
    const onB = await openStream(b, token);
    const bystander = await openStream(b, other.token);

    await call(b, 'PUT', '/api/auth/change-password', {
      token,
      body: { currentPassword: body.password, newPassword: NEW_PASSWORD },
    });
    await ended(onA.stream);
    await ended(onB.stream);
    // The server ended the response right after the signed-out event.
    expect(onA.stream.messages.at(-1)).toEqual({ event: 'signed-out', data: '{}' });

    // The bystander's stream still delivers.
    await call(a, 'PUT', '/api/auth/change-password', {
      token: other.token,
      body: { currentPassword: other.body.password, newPassword: NEW_PASSWORD },
    });
    await bystander.stream.next((m) => m.event === 'notification', 5000);

    // A stream token minted before the change opens nothing any more (EventSource reconnects).
    const reopen = await fetch(`${a.url}/api/notifications/stream?token=${onA.streamToken}`);
    expect(reopen.status).toBe(401);
    expect(await reopen.json()).toEqual({
      error: 'unauthorized',
      message: 'Invalid or expired stream token',
    });
  });

  it('mints a stream token from a refreshed access token and streams with it', async () => {
    const { refreshToken } = await register(a);
    const rotated = await refresh(a, refreshToken);
    const { stream } = await openStream(b, rotated.json.token);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream');
  });
});
