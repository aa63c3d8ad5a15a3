import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerOf,
  type BodyOf,
  call,
  createTestApp,
  type DeployBody,
  type Method,
  register,
  type TestApp,
  variant,
} from '../../../test/create-test-app.ts';
import { startTestRunner, waitForBackup, waitForStatus } from '../../../test/instances-harness.ts';
import { createMemoryDriver, type MemoryDriver } from '../../../test/provisioning/memory-driver.ts';
import { testArchives } from '../../../test/provisioning/test-archives.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../lib/crypto.ts';

/**
 * What customers are told of a feature the driver's engine declares unavailable: the instance (detail,
 * list, /api/v1) names every feature of its type, available or with the engine's reason, and every
 * endpoint of an unavailable feature answers 409 with that very reason (never a generic 400 or a 500),
 * while the features the engine offers keep working. A driver that keeps its instances in memory
 * declares the gaps (test/provisioning/memory-driver.ts); the platform database and the jobs are real.
 */

const NO_SFTP = 'SFTP is not offered on this server yet';
const NO_USAGE = 'This server does not measure usage yet';
const NO_PMA = 'phpMyAdmin is not offered on this server';
const NO_N8N_BACKUPS = 'Backups of n8n are not offered on this server yet';
const NO_N8N_DOMAINS = 'Custom domains for n8n are coming to this server soon';
const NO_PASSWORD = 'Password changes are not offered here yet';
const NO_STORAGE = 'Storage figures are not shown on this server yet';

let db: Db;
let driver: MemoryDriver;
let app: TestApp;
let runner: JobRunner;
let owner: { token: string; apiKey: string };

beforeAll(async () => {
  const database = await createTestDatabase();
  db = database.db;
  driver = createMemoryDriver({
    wordpress: { sftp: NO_SFTP, usage: NO_USAGE, databaseAdmin: NO_PMA },
    n8n: { backups: NO_N8N_BACKUPS, domains: NO_N8N_DOMAINS },
    mysql: { password: NO_PASSWORD, storage: NO_STORAGE },
  });
  const cipher = createEphemeralCipher();
  const { vault } = await testArchives();
  app = createTestApp(db, { provisioner: driver, cipher, backupVault: vault });
  runner = await startTestRunner({ ...database, driver, cipher, vault });
  const account = await register(app);
  await db
    .updateTable('subscriptions')
    .set({ plan: 'pro', status: 'active', current_period_end: null })
    .where('user_id', '=', String(account.user.id))
    .execute();
  const key = await call(app, 'POST', '/api/keys/generate', { token: account.token });
  owner = { token: account.token, apiKey: key.json.apiKey };
}, 60_000);

afterAll(async () => {
  await runner?.stop();
});

const api = <M extends Method, const P extends string>(method: M, route: P, body?: BodyOf<M, P>) =>
  call(app, method, route, { token: owner.token, body });

async function v1<M extends Method, const P extends string>(method: M, path: P, body?: unknown) {
  const res = await app.request(`/api/v1${path}`, {
    method,
    headers: { 'x-api-key': owner.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return answerOf<M, `/api/v1${P}`>(res);
}

async function deployed(body: Omit<DeployBody, 'region'>) {
  const res = await api('POST', '/api/instances/deploy', { region: 'us-east-1', ...body });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return waitForStatus(app, owner.token, res.json.instance.id, 'running');
}

const offered = { available: true, reason: null };
const declined = (reason: string) => ({ available: false, reason });

/** Every route of a feature, as [method, path after /api/instances/{id}, body]. */
type Route = readonly [Method, string, unknown?];

/** Each route answers 409 with `reason` as its message and `details.reason`, on /api and on /api/v1. */
async function expectRefused(id: string, reason: string, feature: string, routes: readonly Route[]) {
  for (const [method, route, body] of routes) {
    const res = await api(method, `/api/instances/${id}/${route}`, body);
    expect([res.status, res.json], `${method} ${route}`).toEqual([
      409,
      { error: 'conflict', message: reason, details: { feature, reason } },
    ]);
  }
}

const BACKUP_ROUTES: readonly Route[] = [
  ['GET', 'backups'],
  ['POST', 'backups/new', { name: 'Before the move' }],
  ['POST', 'backups/b-0123456789ab/restore'],
  ['DELETE', 'backups/b-0123456789ab'],
  ['POST', 'backups/b-0123456789ab/download'],
];
const DOMAIN_ROUTES: readonly Route[] = [
  ['POST', 'domain', { domain: 'flows.example.com' }],
  ['GET', 'ssl'],
  ['POST', 'ssl'],
];

describe('features a driver does not offer', { timeout: 60_000 }, () => {
  it('WordPress without SFTP, usage and phpMyAdmin: the instance says why, /access has no SFTP, usage answers 409; the rest works', async () => {
    const site = await deployed({
      name: 'Shop',
      type: 'WordPress',
      title: 'Shop',
      username: 'owner',
      email: 'owner@example.com',
      password: 'a strong password',
    });
    expect(site.features).toEqual({
      domains: offered,
      sftp: declined(NO_SFTP),
      storage: offered,
      usage: declined(NO_USAGE),
      backups: offered,
      databaseAdmin: declined(NO_PMA),
    });
    const list = await api('GET', '/api/instances');
    expect(list.json.instances.find((i) => i.id === site.id)?.features).toEqual(site.features);
    const publicOne = await v1('GET', `/instances/${site.id}`);
    expect(publicOne.json.data?.instance.features).toEqual(site.features);
    const publicList = await v1('GET', '/instances');
    expect(publicList.json.data?.instances.find((i) => i.id === site.id)?.features).toEqual(site.features);

    const access = variant((await api('GET', `/api/instances/${site.id}/access`)).json, 'database');
    expect(access.sftp).toBeNull();
    expect(access.database).toMatchObject({ user: 'u', phpmyadmin: null });

    await expectRefused(site.id, NO_USAGE, 'usage', [['GET', 'usage?range=1h']]);
    const publicUsage = await v1('GET', `/instances/${site.id}/usage`);
    expect([publicUsage.status, publicUsage.json]).toEqual([
      409,
      {
        error: 'Conflict',
        message: NO_USAGE,
        details: { code: 'conflict', feature: 'usage', reason: NO_USAGE },
      },
    ]);

    // Offered: storage, backups and domains answer as usual.
    const storage = await api('GET', `/api/instances/${site.id}/storage`);
    expect([storage.status, storage.json]).toEqual([200, { usedBytes: 1024 ** 2, limitBytes: 1024 ** 3 }]);
    const created = await api('POST', `/api/instances/${site.id}/backups/new`, { name: 'Offered' });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect((await waitForBackup(app, owner.token, site.id, created.json.id)).status).toBe('complete');
    const ssl = await api('GET', `/api/instances/${site.id}/ssl`);
    expect([ssl.status, ssl.json]).toEqual([200, { ssl: null, status: 'none' }]);
  });

  it('n8n without backups and domains: every backup and domain route answers 409 with the reason, on /api and /api/v1; a deploy with a custom domain is refused the same way', async () => {
    const n8n = await deployed({
      name: 'Flows',
      type: 'n8n',
      email: 'owner@example.com',
      password: 'Harbour2026',
    });
    expect(n8n.features).toEqual({
      domains: declined(NO_N8N_DOMAINS),
      storage: offered,
      usage: offered,
      backups: declined(NO_N8N_BACKUPS),
    });
    await expectRefused(n8n.id, NO_N8N_BACKUPS, 'backups', BACKUP_ROUTES);
    await expectRefused(n8n.id, NO_N8N_DOMAINS, 'domains', DOMAIN_ROUTES);
    for (const [method, path, body] of [
      ['GET', 'backups', undefined],
      ['POST', 'backups/new', { name: 'x' }],
      ['POST', 'domain', { domain: 'flows.example.com' }],
    ] as const) {
      const res = await v1(method, `/instances/${n8n.id}/${path}`, body);
      expect([res.status, res.json.message, res.json.details], `${method} ${path}`).toEqual([
        409,
        method === 'POST' && path === 'domain' ? NO_N8N_DOMAINS : NO_N8N_BACKUPS,
        expect.objectContaining({ code: 'conflict' }),
      ]);
    }
    // Usage is offered: the report answers (this driver measures nothing, and says so).
    const usage = await api('GET', `/api/instances/${n8n.id}/usage?range=1h`);
    expect([usage.status, usage.json.measured]).toEqual([200, false]);

    const withDomain = await api('POST', '/api/instances/deploy', {
      name: 'Flows 2',
      type: 'n8n',
      email: 'owner@example.com',
      password: 'Harbour2026',
      domainType: 'Custom Domain',
      customDomain: 'flows.example.com',
    });
    expect([withDomain.status, withDomain.json.message]).toEqual([409, NO_N8N_DOMAINS]);
  });

  it('MySQL without password changes and storage figures: 409 with the reasons; another user still gets 404; PostgreSQL offers both', async () => {
    const mysql = await deployed({ name: 'Orders', type: 'MySQL' });
    expect(mysql.features).toEqual({
      password: declined(NO_PASSWORD),
      storage: declined(NO_STORAGE),
      usage: offered,
      backups: offered,
      databaseAdmin: offered,
    });
    await expectRefused(mysql.id, NO_PASSWORD, 'password', [
      ['POST', 'password', { type: 'MySQL', password: 'another-password-1' }],
    ]);
    await expectRefused(mysql.id, NO_STORAGE, 'storage', [['GET', 'storage']]);
    const publicPassword = await v1('POST', `/instances/${mysql.id}/password`, {
      type: 'MySQL',
      password: 'another-password-1',
    });
    expect([publicPassword.status, publicPassword.json.message]).toEqual([409, NO_PASSWORD]);
    // The password rule and the type still come first: a bad request is a 400 whatever the server offers.
    const short = await api('POST', `/api/instances/${mysql.id}/password`, { type: 'MySQL', password: 'x' });
    expect(short.status).toBe(400);
    // Ownership before anything: a stranger learns nothing of what the instance offers.
    const stranger = await register(app);
    for (const route of ['storage', 'backups', 'usage']) {
      const res = await call(app, 'GET', `/api/instances/${mysql.id}/${route}`, { token: stranger.token });
      expect([res.status, res.json.message], route).toEqual([404, 'Instance not found']);
    }

    const postgres = await deployed({ name: 'Ledger', type: 'PostgreSQL' });
    expect(Object.values(postgres.features).every((f) => f?.available)).toBe(true);
    const changed = await api('POST', `/api/instances/${postgres.id}/password`, {
      type: 'PostgreSQL',
      password: 'another-password-1',
    });
    expect([changed.status, changed.json.message]).toEqual([200, 'PostgreSQL password updated']);
    expect(driver.instances.get(postgres.id)?.password).toBe('another-password-1');
    expect((await api('GET', `/api/instances/${postgres.id}/storage`)).status).toBe(200);
  });

  it('a type without a feature by nature still answers 400 with its rule (a database has no domains)', async () => {
    const postgres = await deployed({ name: 'Plain', type: 'PostgreSQL' });
    expect(postgres.features).not.toHaveProperty('domains');
    const res = await api('POST', `/api/instances/${postgres.id}/domain`, { domain: 'db.example.com' });
    expect([res.status, res.json.message]).toEqual([
      400,
      'Custom domains are only available for WordPress instances',
    ]);
  });
});
