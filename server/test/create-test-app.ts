import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp, type HttpOptions } from '../src/app.ts';
import type { Db } from '../src/db/database.ts';
import { createMemoryMailer } from '../src/lib/mailer.ts';
import { prepareSetupToken } from '../src/modules/auth/first-admin.ts';
import { createServices, type ServicesConfig } from '../src/services.ts';

export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';

type TestOptions = Partial<ServicesConfig> & HttpOptions;

/** The services on a test database, built by the same composition root as main.ts. */
export function createTestServices(db: Db, overrides: Partial<ServicesConfig> = {}) {
  return createServices({
    db,
    jwtSecret: TEST_JWT_SECRET,
    mailer: createMemoryMailer(),
    avatarsDir: path.join(tmpdir(), 'berth-test-avatars', randomUUID()),
    helpUploadsDir: path.join(tmpdir(), 'berth-test-help-uploads', randomUUID()),
    ...overrides,
  });
}

/**
 * The app on a test database; mail is kept in memory and avatars go to a temp folder (made on upload).
 * Options are the services' configuration and the HTTP layer's own (rate limits, proxies, web app).
 */
export function createTestApp(db: Db, options: TestOptions = {}) {
  const { trustedProxies, webDistDir, rateLimits, sseHeartbeatMs, accessLog, ...config } = options;
  return createApp(createTestServices(db, config), {
    trustedProxies,
    webDistDir,
    rateLimits,
    sseHeartbeatMs,
    accessLog,
  });
}

export type TestApp = ReturnType<typeof createTestApp>;

/** Sends a JSON request to the in-process app (nothing listens on a port). */
export async function call(
  app: TestApp,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; rawBody?: string } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const res = await app.request(path, { method, headers, body });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers
  const json: any = text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  return { status: res.status, headers: res.headers, json };
}

let counter = 0;

/** A valid registration body; each call gets a distinct username and e-mail. */
export function newAccount(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    accountType: 'individual',
    firstName: 'Ada',
    lastName: 'Lovelace',
    username: `ada${counter}`,
    email: `ada${counter}@example.com`,
    password: 'Analytical#1843',
    ...overrides,
  };
}

/**
 * Registers the first admin of a fresh database the way an operator does from elsewhere: with the
 * one-time setup token the server prints at start (requests here come through no socket, so none is
 * "from this machine").
 */
export async function registerAdmin(app: TestApp, db: Db, overrides: Record<string, unknown> = {}) {
  const setupToken = await prepareSetupToken(db);
  if (!setupToken) throw new Error('an admin exists already: registerAdmin needs a fresh database');
  const admin = await register(app, { ...overrides, setupToken });
  if (admin.user.role !== 'admin') throw new Error('the setup token did not make an admin');
  return admin;
}

export async function register(app: TestApp, overrides: Record<string, unknown> = {}) {
  const body = newAccount(overrides);
  const res = await call(app, 'POST', '/api/auth/register', { body });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.json)}`);
  return { ...res.json, body } as { token: string; user: Record<string, unknown>; body: typeof body };
}
