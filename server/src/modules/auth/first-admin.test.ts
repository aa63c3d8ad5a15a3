import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, newAccount, register, type TestApp } from '../../../test/create-test-app.ts';
import { listen } from '../../../test/listen.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import { parseTrustedProxies, type TrustedProxies } from '../../lib/client-address.ts';
import { prepareSetupToken } from './first-admin.ts';

let db: Db;
let app: TestApp;
let server: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  ({ db } = await createTestDatabase());
  app = createTestApp(db);
  server = await listen(app);
});
afterAll(() => server.close());
beforeEach(() => truncateAll(db));

/** Registers over a real loopback socket, with extra headers. */
async function registerOverSocket(url: string, headers: Record<string, string> = {}, extra = {}) {
  const res = await fetch(`${url}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(newAccount(extra)),
  });
  return { status: res.status, json: (await res.json()) as { user: { role: string }; message?: string } };
}

describe('the first admin', () => {
  it('is the first account registered from this machine itself; later ones are users', async () => {
    const first = await registerOverSocket(server.url);
    expect(first.status).toBe(201);
    expect(first.json.user.role).toBe('admin');
    expect((await registerOverSocket(server.url)).json.user.role).toBe('user');
  });

  it('is not someone whose request came through a proxy, trusted or not, nor an in-process caller', async () => {
    const proxyHeaders: Record<string, string>[] = [
      { 'x-forwarded-for': '203.0.113.5' },
      { forwarded: 'for=203.0.113.5' },
    ];
    for (const headers of proxyHeaders) {
      expect((await registerOverSocket(server.url, headers)).json.user.role).toBe('user');
    }
    const proxied = createTestApp(db, { trustedProxies: trusted('127.0.0.1') });
    const behindProxy = await listen(proxied);
    try {
      const res = await registerOverSocket(behindProxy.url, { 'x-forwarded-for': '127.0.0.1' });
      expect(res.json.user.role).toBe('user');
    } finally {
      await behindProxy.close();
    }
    expect((await register(app)).user.role).toBe('user');
    // Still no admin, so the machine itself can still claim it.
    expect((await registerOverSocket(server.url)).json.user.role).toBe('admin');
  });

  it('is whoever registers with the setup token printed at start; the token works once', async () => {
    const token = await prepareSetupToken(db);
    expect(token).toMatch(/^[\w-]{32}$/);
    const rows = await db.selectFrom('setup_tokens').select('token_hash').execute();
    expect(rows.map((r) => r.token_hash)).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/)]);

    const remote = { 'x-forwarded-for': '198.51.100.20' };
    const admin = await registerOverSocket(server.url, remote, { setupToken: token });
    expect(admin.status).toBe(201);
    expect(admin.json.user.role).toBe('admin');

    const again = await registerOverSocket(server.url, remote, { setupToken: token });
    expect(again.status).toBe(400);
    expect(again.json).toMatchObject({
      error: 'validation_error',
      message: 'Invalid or used setup token',
      details: { fieldErrors: { setupToken: ['Invalid or used setup token'] } },
    });
  });

  it('kills the setup token once an admin exists, and makes none while one does', async () => {
    const token = await prepareSetupToken(db);
    expect((await registerOverSocket(server.url)).json.user.role).toBe('admin');
    expect(await db.selectFrom('setup_tokens').selectAll().execute()).toEqual([]);
    const late = await call(app, 'POST', '/api/auth/register', { body: newAccount({ setupToken: token }) });
    expect(late.status).toBe(400);
    expect(await prepareSetupToken(db)).toBeUndefined();
  });

  it('refuses a made-up setup token and creates no account', async () => {
    await prepareSetupToken(db);
    const res = await call(app, 'POST', '/api/auth/register', { body: newAccount({ setupToken: 'guess' }) });
    expect(res.status).toBe(400);
    expect(await db.selectFrom('users').select('id').execute()).toEqual([]);
  });
});

function trusted(value: string): TrustedProxies {
  const parsed = parseTrustedProxies(value);
  if ('invalid' in parsed) throw new Error(parsed.invalid);
  return parsed;
}
