import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Method, present, type TestApp, variant } from '../../../test/create-test-app.ts';
import {
  startTestProvisioning,
  startTestRunner,
  type TestProvisioning,
  waitFor,
} from '../../../test/instances-harness.ts';
import { tenantCli } from '../../../test/provisioning/db-clients.ts';
import { proWithKey, v1Request } from '../../../test/public-api-client.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { type Cipher, createEphemeralCipher } from '../../lib/crypto.ts';
import type { DatabaseCredentials } from '../../provisioning/engine.ts';

/**
 * The instance routes of /api/v1 (usage's own answers are in modules/usage/usage.test.ts) against real MySQL and PostgreSQL instances (the local driver and the job
 * runner), with only an API key: what a Pro developer's script sees. The WordPress-only routes (domain,
 * SSL, backups) answer with the same rules /api applies to databases. The deploy rules of /api/v1,
 * which need no real instance, are in public-api-rules.test.ts on the memory driver.
 */

let db: Db;
let prov: TestProvisioning;
let runner: JobRunner;
let app: TestApp;
let cipher: Cipher;

beforeAll(async () => {
  const database = await createTestDatabase();
  db = database.db;
  prov = await startTestProvisioning();
  cipher = createEphemeralCipher();
  app = createTestApp(db, { provisioner: prov.driver, cipher });
  runner = await startTestRunner({ ...database, driver: prov.driver, cipher });
}, 300_000);

afterAll(async () => {
  await runner?.stop();
  await prov?.stop();
}, 60_000);

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

/** Every operation of openapi.v1.json on one instance (its path names `{instanceId}`). */
function instanceOperations() {
  const contract = JSON.parse(
    readFileSync(new URL('../../../../openapi/openapi.v1.json', import.meta.url), 'utf8'),
  ) as { paths: Record<string, Record<string, { operationId?: string; requestBody?: unknown }>> };
  return Object.entries(contract.paths)
    .filter(([path]) => path.includes('{instanceId}'))
    .flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId ?? `${method} ${path}`,
        hasBody: operation.requestBody !== undefined,
      })),
    );
}

/** A body each instance operation that takes one would accept (for a PostgreSQL instance). */
const STRANGER_BODIES: Record<string, unknown> = {
  'v1.instances.password': { type: 'PostgreSQL', password: 'Another#secret1' },
  'v1.instances.addDomain': { domain: 'shop.example.com' },
  'v1.instances.createBackup': { name: 'not yours' },
};

const credentialsOf = (data: {
  database: { host: string; port: number; name: string; user: string; password: string } | null;
}): DatabaseCredentials => {
  const database = present(data.database, 'database credentials');
  return {
    host: database.host,
    port: database.port,
    database: database.name,
    user: database.user,
    password: database.password,
  };
};

describe('/api/v1 with real database instances', { timeout: 90_000 }, () => {
  it('deploys MySQL idempotently, hands out working credentials, changes the password, refuses site-only routes, deletes', async () => {
    const { apiKey } = await proKey();
    const body = { name: 'orders-db', type: 'MySQL', region: 'us-east-1', memory: '1GB', cpu: '1' };
    const created = await v1(apiKey, 'POST', '/instances', body, { 'idempotency-key': 'deploy-orders-1' });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toMatchObject({
      success: true,
      message: 'Instance deployment initiated',
      data: {
        instance: {
          name: 'orders-db',
          type: 'MySQL',
          status: 'deploying',
          deploymentConfig: { region: 'us-east-1', memory: '1GB', cpu: '1' },
        },
      },
    });
    const id = created.json.data.instance.id;

    // While it deploys, credentials are not ready (202).
    const early = await v1(apiKey, 'GET', `/instances/${id}/access`);
    expect(early.status).toBe(202);
    expect(early.json).toEqual({
      success: true,
      message: 'Credentials not ready yet',
      data: { instanceId: id },
    });

    // The same key and body: the first answer again, no second instance. Key order does not matter.
    const replay = await v1(
      apiKey,
      'POST',
      '/instances',
      { cpu: '1', memory: '1GB', region: 'us-east-1', type: 'MySQL', name: 'orders-db' },
      {
        'idempotency-key': 'deploy-orders-1',
      },
    );
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json).toEqual(created.json);
    // The same key with another body: refused.
    const other = await v1(
      apiKey,
      'POST',
      '/instances',
      { ...body, name: 'other' },
      { 'idempotency-key': 'deploy-orders-1' },
    );
    expect(other.status).toBe(409);
    expect(other.json.message).toBe(
      'This Idempotency-Key was used with a different request. Use a new key for a new request.',
    );
    const listed = await v1(apiKey, 'GET', '/instances');
    expect(listed.json.data).toMatchObject({ total: 1, maxInstances: -1 });
    expect(listed.json.data.instances.map((i: { id: string }) => i.id)).toEqual([id]);

    await waitRunning(apiKey, id);
    const access = await v1(apiKey, 'GET', `/instances/${id}/access?type=MySQL`);
    expect(access.status).toBe(200);
    expect(access.json.message).toBe('Access credentials');
    const data = variant(access.json.data, 'database');
    expect(data.sftp).toBeNull();
    expect(data.database?.connectionString).toMatch(/^mysql:\/\//);
    // The spec lists `phpmyadmin`: a tenant of the shared server (no front door here either) has none.
    expect(data.database).toHaveProperty('phpmyadmin', null);
    const credentials = credentialsOf(data);
    expect((await tenantCli('mysql', credentials, 'SELECT 1')).stdout).toBe('1');

    const password = 'N3w-secret-for-orders';
    const changed = await v1(apiKey, 'POST', `/instances/${id}/password`, { type: 'MySQL', password });
    expect(changed.status, JSON.stringify(changed.json)).toBe(200);
    expect(changed.json).toEqual({
      success: true,
      message: 'MySQL password updated',
      data: { instanceId: id },
    });
    expect((await tenantCli('mysql', credentials, 'SELECT 1')).ok).toBe(false);
    expect((await tenantCli('mysql', { ...credentials, password }, 'SELECT 1')).stdout).toBe('1');
    const badPassword = await v1(apiKey, 'POST', `/instances/${id}/password`, {
      type: 'MySQL',
      password: 'short',
    });
    expect(badPassword.status).toBe(400);
    expect(badPassword.json.message).toBe(
      'A database password must be 8 to 128 characters without control characters',
    );

    // Domain and SSL are for sites: the same answers as /api gives for a database.
    const siteOnly = [
      [
        'POST',
        `/instances/${id}/domain`,
        { domain: 'shop.example.com' },
        'Custom domains are only available for WordPress instances',
      ],
      [
        'DELETE',
        `/instances/${id}/domain`,
        undefined,
        'Custom domains are only available for WordPress instances',
      ],
      ['POST', `/instances/${id}/ssl/enable`, undefined, 'SSL is only available for custom domains'],
      ['GET', `/instances/${id}/ssl/status`, undefined, 'SSL is only available for custom domains'],
    ] as const;
    for (const [method, path, payload, message] of siteOnly) {
      const res = await v1(apiKey, method, path, payload);
      expect([res.status, res.json.message], `${method} ${path}`).toEqual([400, message]);
    }

    const deleted = await v1(apiKey, 'DELETE', `/instances/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({
      success: true,
      message: 'Instance deletion initiated',
      data: { instanceId: id, name: 'orders-db' },
    });
    expect(Date.parse(deleted.json.data.deletedAt)).toBeGreaterThan(Date.now() - 60_000);
    await waitFor(
      async () => ((await v1(apiKey, 'GET', `/instances/${id}`)).status === 404 ? true : undefined),
      {
        timeoutMs: 30_000,
        what: 'the instance to be gone',
      },
    );
    expect((await tenantCli('mysql', { ...credentials, password }, 'SELECT 1')).ok).toBe(false);
  });

  it('deploys PostgreSQL (the spellings /api accepts), connects with psql, and keeps it from other keys', async () => {
    const { apiKey } = await proKey();
    const stranger = await proKey();
    const created = await v1(apiKey, 'POST', '/instances', { name: 'analytics', type: 'postgres' });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const id = created.json.data.instance.id;
    expect(created.json.data.instance).toMatchObject({
      type: 'PostgreSQL',
      deploymentConfig: { region: 'us-east-1', memory: '4GB', cpu: '2' },
    });
    await waitRunning(apiKey, id);
    const access = await v1(apiKey, 'GET', `/instances/${id}/access`);
    const data = variant(access.json.data, 'database');
    expect(data.database?.connectionString).toMatch(/^postgresql:\/\//);
    expect((await tenantCli('postgresql', credentialsOf(data), 'SELECT 1')).stdout).toBe('1');
    // Every operation of the published contract on one instance, with another customer's key and a
    // body it would accept: the same 404 as for an id that does not exist, and nothing changes.
    const operations = instanceOperations();
    expect(operations.length).toBeGreaterThanOrEqual(14);
    for (const { method, path, operationId, hasBody } of operations) {
      const body = hasBody ? STRANGER_BODIES[operationId] : undefined;
      if (hasBody && body === undefined)
        throw new Error(`no body for ${operationId}: add one to STRANGER_BODIES`);
      const res = await app.request(
        path.replace('{instanceId}', id).replace('{backupId}', 'b-000000000000'),
        {
          method,
          headers: {
            'x-api-key': stranger.apiKey,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        },
      );
      expect([res.status, await res.json()], `${operationId}: ${method} ${path}`).toEqual([
        404,
        { error: 'Not Found', message: 'Instance not found', details: { code: 'not_found' } },
      ]);
    }
    const after = (await v1(apiKey, 'GET', `/instances/${id}`)).json.data.instance;
    expect(after).toMatchObject({
      status: 'running',
      name: created.json.data.instance.name,
      customDomain: null,
    });
    // The password the stranger sent was never applied: the owner's credentials still log in.
    expect((await tenantCli('postgresql', credentialsOf(data), 'SELECT 1')).stdout).toBe('1');
    expect((await v1(apiKey, 'GET', `/instances/${id}/backups`)).json.data).toMatchObject({ backups: [] });
    expect((await v1(apiKey, 'DELETE', `/instances/${id}`)).status).toBe(200);
  });
});
