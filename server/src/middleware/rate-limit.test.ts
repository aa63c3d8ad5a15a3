import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp } from '../../test/create-test-app.ts';
import { listen } from '../../test/listen.ts';
import { createTestDatabase, truncateAll } from '../../test/test-db.ts';
import type { RateLimits } from '../app.ts';
import type { Db } from '../db/database.ts';
import { parseTrustedProxies, type TrustedProxies } from '../lib/client-address.ts';

let db: Db;
const servers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  ({ db } = await createTestDatabase());
});
beforeEach(() => truncateAll(db));
afterAll(async () => {
  for (const server of servers) await server.close();
});

function trusted(value: string): TrustedProxies {
  const parsed = parseTrustedProxies(value);
  if ('invalid' in parsed) throw new Error(parsed.invalid);
  return parsed;
}

/** The app on a real loopback socket with these limits and trusted proxies. */
async function serve(trustedProxies: string, rateLimits: Partial<RateLimits>) {
  const server = await listen(createTestApp(db, { trustedProxies: trusted(trustedProxies), rateLimits }));
  servers.push(server);
  return (path: string, body: unknown, forwardedFor?: string) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
      },
      body: JSON.stringify(body),
    }).then((res) => res.status);
}

const loginAs = (emailOrUsername: string) => ({ emailOrUsername, password: 'Wrong#password1' });
const roomy = { points: 100, windowSeconds: 60 };

describe('client address behind a proxy', () => {
  it('limits per X-Forwarded-For client when the peer is a trusted proxy', async () => {
    const post = await serve('127.0.0.1', { login: { points: 2, windowSeconds: 60 }, loginAccount: roomy });
    for (let i = 0; i < 2; i++)
      expect(await post('/api/auth/login', loginAs(`a${i}-one`), '198.51.100.1')).toBe(401);
    expect(await post('/api/auth/login', loginAs('a-one-more'), '198.51.100.1')).toBe(429);
    // Another client behind the same proxy has its own budget; a forged left-most entry changes nothing.
    expect(await post('/api/auth/login', loginAs('b-one'), '198.51.100.2')).toBe(401);
    expect(await post('/api/auth/login', loginAs('b-two'), '198.51.100.1, 198.51.100.2')).toBe(401);
    expect(await post('/api/auth/login', loginAs('b-three'), '198.51.100.9, 198.51.100.2')).toBe(429);
  });

  it('ignores X-Forwarded-For when no proxy is trusted (the default): rotating it does not help', async () => {
    const post = await serve('', { login: { points: 2, windowSeconds: 60 }, loginAccount: roomy });
    expect(await post('/api/auth/login', loginAs('c-one'), '198.51.100.1')).toBe(401);
    expect(await post('/api/auth/login', loginAs('c-two'), '198.51.100.2')).toBe(401);
    expect(await post('/api/auth/login', loginAs('c-three'), '198.51.100.3')).toBe(429);
  });
});

describe('per-account limits', () => {
  it('limits sign-in attempts on one account from rotating addresses, and leaves other accounts alone', async () => {
    const post = await serve('127.0.0.1', { login: roomy, loginAccount: { points: 3, windowSeconds: 60 } });
    for (let i = 1; i <= 3; i++)
      expect(await post('/api/auth/login', loginAs('victim'), `203.0.113.${i}`)).toBe(401);
    // Any case of the same login counts for the same account.
    expect(await post('/api/auth/login', loginAs('VICTIM'), '203.0.113.99')).toBe(429);
    expect(await post('/api/auth/login', loginAs('bystander'), '203.0.113.99')).toBe(401);
  });

  it('limits reset mails per e-mail from rotating addresses, answering 429 for unknown e-mails alike', async () => {
    const post = await serve('127.0.0.1', {
      passwordReset: roomy,
      passwordResetAccount: { points: 2, windowSeconds: 60 },
    });
    const ask = (email: string, from: string) => post('/api/password-reset/request', { email }, from);
    expect(await ask('nobody@example.com', '203.0.113.1')).toBe(200);
    expect(await ask('Nobody@Example.com', '203.0.113.2')).toBe(200);
    expect(await ask('nobody@example.com', '203.0.113.3')).toBe(429);
    expect(await ask('someone@example.com', '203.0.113.3')).toBe(200);
  });
});
