import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerOf,
  call,
  createTestApp,
  present,
  register,
  type TestApp,
} from '../../../test/create-test-app.ts';
import { insertInstanceRows } from '../../../test/instance-rows.ts';
import { type ServerProcess, startServerProcess } from '../../../test/server-process.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';

/**
 * API keys over HTTP: their lifecycle on /api/keys (login token) and what /api/v1 makes of them
 * (authentication, the Pro rule, the error table, the rate limit shared by server processes).
 */

let db: Db;
let dbUrl: string;
let app: TestApp;
const processes: ServerProcess[] = [];

beforeAll(async () => {
  const database = await createTestDatabase();
  db = database.db;
  dbUrl = database.url;
  app = createTestApp(db);
});
afterAll(async () => {
  for (const process of processes) await process.stop();
});

const PRO_REQUIRED = 'API access requires Pro plan subscription';
const INVALID_KEY = 'Invalid or missing API key';

async function setPro(userId: unknown, pro: boolean) {
  await db
    .updateTable('subscriptions')
    .set(
      pro
        ? { plan: 'pro', status: 'active', current_period_end: null }
        : {
            plan: 'pro',
            status: 'canceled',
            current_period_end: new Date(Date.now() - 1000),
            trial_ends_at: null,
          },
    )
    .where('user_id', '=', String(userId))
    .execute();
}

/** A Pro user with a fresh key. */
async function proWithKey() {
  const account = await register(app);
  await setPro(account.user.id, true);
  const res = await call(app, 'POST', '/api/keys/generate', { token: account.token });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return {
    ...account,
    userId: String(account.user.id),
    apiKey: res.json.apiKey as string,
    keyId: res.json.key.id as string,
  };
}

/** A /api/v1 call with the key in X-API-Key (or as a bearer token). */
async function v1<const P extends string>(
  path: P,
  key: string | undefined,
  options: { bearer?: boolean; base?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (key !== undefined)
    headers[options.bearer ? 'authorization' : 'x-api-key'] = options.bearer ? `Bearer ${key}` : key;
  const res = options.base
    ? await fetch(`${options.base}${path}`, { headers })
    : await app.request(path, { headers });
  return answerOf<'GET', P>(res);
}

describe('API key lifecycle', () => {
  it('refuses keys to users without a running Pro plan (trial, Starter)', async () => {
    const { token, user } = await register(app);
    const trial = await call(app, 'POST', '/api/keys/generate', { token });
    expect(trial.status).toBe(403);
    expect(trial.json).toEqual({ error: 'forbidden', message: PRO_REQUIRED });
    await db
      .updateTable('subscriptions')
      .set({ plan: 'starter', status: 'active' })
      .where('user_id', '=', String(user.id))
      .execute();
    expect((await call(app, 'POST', '/api/keys/regenerate', { token })).json.message).toBe(PRO_REQUIRED);
    expect((await call(app, 'GET', '/api/keys', { token })).json).toEqual({ keys: [] });
  });

  it('shows the key once, stores only its SHA-256, and lists it masked', async () => {
    const { token, userId, apiKey } = await proWithKey();
    expect(apiKey).toMatch(/^berth_sk_[A-Za-z0-9_-]{43}$/);
    const row = await db
      .selectFrom('api_keys')
      .selectAll()
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(createHash('sha256').update(apiKey).digest('hex'));
    // Nowhere in the row is the key itself.
    expect(JSON.stringify(row)).not.toContain(apiKey.slice('berth_sk_'.length, -4));
    const listed = await call(app, 'GET', '/api/keys', { token });
    expect(listed.status).toBe(200);
    expect(listed.json.keys).toEqual([
      {
        id: row.id,
        label: '',
        notes: '',
        prefix: 'berth_sk_',
        last4: apiKey.slice(-4),
        masked: `berth_sk_…${apiKey.slice(-4)}`,
        createdAt: row.created_at.toISOString(),
        lastUsedAt: null,
      },
    ]);
    expect(JSON.stringify(listed.json)).not.toContain(apiKey);
    // A second generate does not hand out another key.
    const again = await call(app, 'POST', '/api/keys/generate', { token });
    expect(again.status).toBe(409);
    expect(again.json.message).toBe('You already have an API key. Regenerate it to get a new one.');
  });

  it('authenticates /api/v1 by X-API-Key or Bearer, records the use, and refuses a login token', async () => {
    const { token, apiKey } = await proWithKey();
    const byHeader = await v1('/api/v1/instances', apiKey);
    expect(byHeader.status).toBe(200);
    expect(byHeader.json).toEqual({
      success: true,
      message: 'Instances retrieved',
      data: { instances: [], total: 0, maxInstances: -1, page: 1, pages: 1, limit: 24 },
    });
    expect((await v1('/api/v1/instances', apiKey, { bearer: true })).status).toBe(200);
    const used = await call(app, 'GET', '/api/keys', { token });
    expect(Date.parse(present(used.json.keys[0]?.lastUsedAt, 'a last use'))).toBeGreaterThan(
      Date.now() - 60_000,
    );
    for (const attempt of [
      await v1('/api/v1/instances', token, { bearer: true }),
      await v1('/api/v1/instances', undefined),
      await v1('/api/v1/instances', `${apiKey.slice(0, -1)}x`),
      await v1('/api/v1/instances', 'berth_sk_'),
    ]) {
      expect(attempt.status).toBe(401);
      // The spec's error table: 401 Unauthorized 'Invalid or missing API key'.
      expect(attempt.json).toEqual({
        error: 'Unauthorized',
        message: INVALID_KEY,
        details: { code: 'unauthorized' },
      });
    }
  });

  it('regenerate kills the old key at once and keeps label and notes', async () => {
    const { token, apiKey, keyId } = await proWithKey();
    const saved = await call(app, 'PUT', `/api/keys/${keyId}`, {
      token,
      body: { label: '  CI deploys ', notes: 'nightly pipeline' },
    });
    expect(saved.status).toBe(200);
    expect(saved.json.message).toBe('API key details saved');
    expect(saved.json.key).toMatchObject({ label: 'CI deploys', notes: 'nightly pipeline' });
    const tooLong = await call(app, 'PUT', `/api/keys/${keyId}`, { token, body: { label: 'x'.repeat(101) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.json.message).toBe('Label too long');

    const next = await call(app, 'POST', '/api/keys/regenerate', { token });
    expect(next.status).toBe(200);
    expect(next.json.apiKey).not.toBe(apiKey);
    expect(next.json.key).toMatchObject({
      id: keyId,
      label: 'CI deploys',
      notes: 'nightly pipeline',
      lastUsedAt: null,
    });
    expect((await v1('/api/v1/instances', apiKey)).status).toBe(401);
    expect((await v1('/api/v1/instances', next.json.apiKey)).status).toBe(200);
  });

  it('deletes a key (it stops working); another user’s key id answers 404', async () => {
    const owner = await proWithKey();
    const stranger = await proWithKey();
    for (const [method, body] of [
      ['PUT', { label: 'mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(app, method, `/api/keys/${owner.keyId}`, { token: stranger.token, body });
      expect(res.status).toBe(404);
      expect(res.json.message).toBe('API key not found');
    }
    expect((await call(app, 'DELETE', '/api/keys/not-a-uuid', { token: owner.token })).status).toBe(404);
    const deleted = await call(app, 'DELETE', `/api/keys/${owner.keyId}`, { token: owner.token });
    expect(deleted.json).toEqual({ message: 'API key deleted' });
    expect((await v1('/api/v1/instances', owner.apiKey)).status).toBe(401);
    expect((await call(app, 'GET', '/api/keys', { token: owner.token })).json.keys).toEqual([]);
    // A new key can be generated after deleting.
    expect((await call(app, 'POST', '/api/keys/generate', { token: owner.token })).status).toBe(201);
  });

  it('a key whose owner loses Pro answers 403, and works again when Pro returns', async () => {
    const { userId, apiKey } = await proWithKey();
    await setPro(userId, false);
    const refused = await v1('/api/v1/instances', apiKey);
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({
      error: 'Forbidden',
      message: PRO_REQUIRED,
      details: { code: 'forbidden' },
    });
    expect(refused.headers.get('ratelimit-limit')).toBe('150');
    await setPro(userId, true);
    expect((await v1('/api/v1/instances', apiKey)).status).toBe(200);
  });

  it('answers 404 "Instance not found" for another user’s instance and for unknown ids', async () => {
    const owner = await proWithKey();
    const stranger = await proWithKey();
    await insertInstanceRows(db, owner.userId, 1);
    const mine = await v1('/api/v1/instances', owner.apiKey);
    const id = present(mine.json.data.instances[0], 'an instance').id;
    expect((await v1(`/api/v1/instances/${id}`, owner.apiKey)).json.data.instance.id).toBe(id);
    for (const path of [
      `/api/v1/instances/${id}`,
      `/api/v1/instances/${id}/access`,
      '/api/v1/instances/nope',
    ]) {
      const res = await v1(path, stranger.apiKey);
      expect(res.status).toBe(404);
      expect(res.json).toEqual({
        error: 'Not Found',
        message: 'Instance not found',
        details: { code: 'not_found' },
      });
    }
    expect((await v1('/api/v1/instances', stranger.apiKey)).json.data.total).toBe(0);
  });
});

describe('the /api/v1 rate limit', () => {
  it('sends the RateLimit headers on every answer and refuses the 151st request in a minute with 429', async () => {
    const { apiKey } = await proWithKey();
    const first = await v1('/api/v1/instances', apiKey);
    expect(first.headers.get('ratelimit-limit')).toBe('150');
    expect(first.headers.get('ratelimit-remaining')).toBe('149');
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect(Number(first.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(60);
    // An error answer carries them too.
    const missing = await v1('/api/v1/instances/3f0c1f5e-8a1b-4c1e-9a3e-2d4b5c6d7e8f', apiKey);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('ratelimit-remaining')).toBe('148');
    for (let i = 3; i <= 150; i++) expect((await v1('/api/v1/instances', apiKey)).status).toBe(200);
    const over = await v1('/api/v1/instances', apiKey);
    expect(over.status).toBe(429);
    expect(over.json).toEqual({
      error: 'Too Many Requests',
      message: 'Rate limit exceeded. Please try again later.',
      details: { code: 'rate_limited', retryAfterSeconds: Number(over.headers.get('retry-after')) },
    });
    expect(over.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another key has its own budget.
    expect((await v1('/api/v1/instances', (await proWithKey()).apiKey)).status).toBe(200);
  });

  it('is one budget for two server processes on the same database', async () => {
    const { apiKey } = await proWithKey();
    const a = await startServerProcess(dbUrl);
    const b = await startServerProcess(dbUrl);
    processes.push(a, b);
    for (let i = 0; i < 75; i++) {
      expect((await v1('/api/v1/instances', apiKey, { base: a.url })).status).toBe(200);
      expect((await v1('/api/v1/instances', apiKey, { base: b.url })).status).toBe(200);
    }
    const onA = await v1('/api/v1/instances', apiKey, { base: a.url });
    const onB = await v1('/api/v1/instances', apiKey, { base: b.url });
    expect([onA.status, onB.status]).toEqual([429, 429]);
  });
});
