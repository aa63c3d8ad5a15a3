import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Method, type TestApp } from '../../../test/create-test-app.ts';
import { startTestRunner, waitFor } from '../../../test/instances-harness.ts';
import { createMemoryDriver } from '../../../test/provisioning/memory-driver.ts';
import { proWithKey, v1Request } from '../../../test/public-api-client.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../lib/crypto.ts';

/**
 * The deploy rules of /api/v1, as /api applies them, with only an API key: field messages, a type this
 * server does not offer (n8n here), an Idempotency-Key a failed create leaves free, and a key that stops
 * once Pro ends. The driver keeps its instances in memory; the instance routes on real instances are in
 * public-api.test.ts.
 */

let db: Db;
let runner: JobRunner;
let app: TestApp;

beforeAll(async () => {
  const database = await createTestDatabase();
  db = database.db;
  const driver = createMemoryDriver({}, { notOffered: ['n8n'] });
  const cipher = createEphemeralCipher();
  app = createTestApp(db, { provisioner: driver, cipher });
  runner = await startTestRunner({ ...database, driver, cipher });
}, 60_000);

afterAll(async () => {
  await runner?.stop();
});

const proKey = () => proWithKey(app, db);

/** One /api/v1 call with `key` in X-API-Key. */
const v1 = <M extends Method, const P extends string>(
  key: string,
  method: M,
  path: P,
  body?: unknown,
  headers: Record<string, string> = {},
) => v1Request(app, key, method, path, { body, headers });

async function waitRunning(key: string, id: string) {
  return waitFor(
    async () => {
      const res = await v1(key, 'GET', `/instances/${id}`);
      if (res.json.data?.instance.status === 'error') throw new Error(JSON.stringify(res.json));
      return res.json.data?.instance.status === 'running' ? res.json.data.instance : undefined;
    },
    { timeoutMs: 30_000, what: `instance ${id} to run` },
  );
}

describe('/api/v1 deploy rules', { timeout: 30_000 }, () => {
  it('applies the deploy rules of /api: field messages, unavailable types, and a subscription that lapsed', async () => {
    const { apiKey, user } = await proKey();
    const noName = await v1(apiKey, 'POST', '/instances', { type: 'MySQL' });
    expect([noName.status, noName.json.error, noName.json.message]).toEqual([
      400,
      'Bad Request',
      'Instance name is required',
    ]);
    expect(noName.json.details?.code).toBe('validation_error');
    expect(noName.json.details?.fieldErrors).toHaveProperty('name');
    const badType = await v1(apiKey, 'POST', '/instances', { name: 'x', type: 'Oracle' });
    expect([badType.status, badType.json.message]).toEqual([
      400,
      'Please select an application or a database',
    ]);
    const custom = await v1(apiKey, 'POST', '/instances', {
      name: 'x',
      type: 'WordPress',
      domain: { type: 'custom' },
    });
    expect([custom.status, custom.json.message]).toEqual([400, 'Custom domain is required']);
    const n8n = await v1(apiKey, 'POST', '/instances', { name: 'flows', type: 'n8n' });
    expect(n8n.status).toBe(409);
    // `type` defaults to n8n (the spec): without one, the request is an n8n deploy, refused alike here.
    const untyped = await v1(apiKey, 'POST', '/instances', { name: 'flows' });
    expect(untyped.json).toEqual({
      error: 'Conflict',
      message: 'n8n is not offered on this server',
      details: { code: 'conflict', type: 'n8n', reason: 'n8n is not offered on this server' },
    });
    // A failed create does not keep its Idempotency-Key: the fixed request may use it.
    const failed = await v1(
      apiKey,
      'POST',
      '/instances',
      { type: 'MySQL' },
      { 'idempotency-key': 'retry-me' },
    );
    expect(failed.status).toBe(400);
    const fixed = await v1(
      apiKey,
      'POST',
      '/instances',
      { name: 'fixed', type: 'MySQL' },
      { 'idempotency-key': 'retry-me' },
    );
    expect(fixed.status).toBe(201);
    await waitRunning(apiKey, fixed.json.data.instance.id);
    // Pro ends: the key stops before any instance rule is asked.
    await db
      .updateTable('subscriptions')
      .set({ status: 'canceled', current_period_end: new Date(Date.now() - 1000), trial_ends_at: null })
      .where('user_id', '=', String(user.id))
      .execute();
    const refused = await v1(apiKey, 'DELETE', `/instances/${fixed.json.data.instance.id}`);
    expect([refused.status, refused.json.message]).toEqual([
      403,
      'API access requires Pro plan subscription',
    ]);
    expect((await v1(apiKey, 'GET', `/instances/${fixed.json.data.instance.id}`)).status).toBe(403);
  });
});
