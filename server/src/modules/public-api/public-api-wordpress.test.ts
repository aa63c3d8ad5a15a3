import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type Method, type TestApp, variant } from '../../../test/create-test-app.ts';
import { type FakeDns, startFakeDns } from '../../../test/fake-dns.ts';
import {
  startTestProvisioning,
  startTestRunner,
  type TestProvisioning,
  waitFor,
} from '../../../test/instances-harness.ts';
import { testArchives } from '../../../test/provisioning/test-archives.ts';
import { proWithKey, v1Request } from '../../../test/public-api-client.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../lib/crypto.ts';

/**
 * The WordPress routes of /api/v1 (domain, SSL, backups) against a real site: the local driver with its
 * site runtime (Caddy, php-fpm, WordPress, MariaDB), the job runner, and only an API key.
 */

let db: Db;
let prov: TestProvisioning;
let runner: JobRunner;
let app: TestApp;
let dns: FakeDns;
let apiKey = '';
let id = '';

const suffix = randomBytes(3).toString('hex');

beforeAll(async () => {
  const database = await createTestDatabase();
  db = database.db;
  prov = await startTestProvisioning({ sites: true });
  const cipher = createEphemeralCipher();
  dns = await startFakeDns();
  // The platform's backup storage (a folder), shared by the app and the jobs as in main.ts.
  const { vault } = await testArchives();
  app = createTestApp(db, { provisioner: prov.driver, cipher, dnsServers: [dns.server], backupVault: vault });
  runner = await startTestRunner({ ...database, driver: prov.driver, cipher, vault });
  apiKey = (await proWithKey(app, db)).apiKey;
}, 300_000);

afterAll(async () => {
  await runner?.stop();
  await prov?.stop();
  await dns?.stop();
}, 60_000);

/** One /api/v1 call with the developer's key as a bearer token. */
const v1 = <M extends Method, const P extends string>(
  method: M,
  path: P,
  body?: unknown,
  headers: Record<string, string> = {},
) => v1Request(app, apiKey, method, path, { body, headers, bearer: true });

describe('/api/v1 with a real WordPress site', { timeout: 120_000 }, () => {
  it('deploys WordPress with the v1 fields and waits for it to run', async () => {
    const created = await v1('POST', '/instances', {
      name: 'blog',
      type: 'WordPress',
      domain: { type: 'temporary' },
      wordpress: {
        siteTitle: `Harbour ${suffix}`,
        adminUsername: 'captain',
        adminEmail: 'captain@example.com',
        adminPassword: `strong pass ${suffix}`,
      },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    id = created.json.data.instance.id;
    // Polled once a second: the key's 150 requests a minute must last a slow deploy and the tests after.
    await waitFor(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        return (await v1('GET', `/instances/${id}`)).json.data.instance.status === 'running'
          ? true
          : undefined;
      },
      { timeoutMs: 90_000, what: 'the site to run' },
    );
    const access = await v1('GET', `/instances/${id}/access`);
    expect(access.status).toBe(200);
    expect(variant(access.json.data, 'sftp').sftp).toMatchObject({
      user: expect.any(String),
      password: expect.any(String),
    });
  });

  it('backs up idempotently, lists, restores and deletes backups', async () => {
    const body = { name: 'before-upgrade', note: 'nightly' };
    const first = await v1('POST', `/instances/${id}/backups/new`, body, {
      'idempotency-key': `bk-${suffix}`,
    });
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    expect(first.json).toMatchObject({
      success: true,
      message: 'Backup creation started',
      data: { instanceId: id },
    });
    const again = await v1('POST', `/instances/${id}/backups/new`, body, {
      'idempotency-key': `bk-${suffix}`,
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(first.json);
    // A backup is a job: listed running, then complete.
    const listed = await waitFor(
      async () => {
        const res = await v1('GET', `/instances/${id}/backups`);
        return res.json.data?.backups?.[0]?.status === 'complete' ? res : undefined;
      },
      { timeoutMs: 60_000, what: 'the backup to complete' },
    );
    expect(listed.json.data.backups).toHaveLength(1);
    expect(listed.json.data.backups[0]).toMatchObject({
      id: first.json.data.backupId,
      name: 'before-upgrade',
      note: 'nightly',
      kind: 'manual',
    });
    const backupId = first.json.data.backupId;
    const restored = await v1('POST', `/instances/${id}/backups/${backupId}/restore`);
    expect(restored.status, JSON.stringify(restored.json)).toBe(202);
    expect(restored.json).toEqual({
      success: true,
      message: 'Restore initiated',
      data: { instanceId: id, backupId },
    });
    await waitFor(
      async () =>
        (await v1('GET', `/instances/${id}`)).json.data?.instance?.status === 'running' ? true : undefined,
      { timeoutMs: 60_000, what: 'the restore to end' },
    );
    const deleted = await v1('DELETE', `/instances/${id}/backups/${backupId}`);
    expect(deleted.json).toEqual({
      success: true,
      message: 'Backup deleted',
      data: { instanceId: id, backupId },
    });
    expect((await v1('GET', `/instances/${id}/backups`)).json.data.backups).toEqual([]);
    const missing = await v1('DELETE', `/instances/${id}/backups/${backupId}`);
    expect(missing.status).toBe(404);
  });

  it('adds a custom domain (pending its TXT record), reports SSL, refuses SSL before verification, removes it', async () => {
    const domain = `shop-${suffix}.example.com`;
    expect((await v1('GET', `/instances/${id}/ssl/status`)).json.data).toMatchObject({
      status: 'none',
      ssl: null,
    });
    const added = await v1('POST', `/instances/${id}/domain`, { domain });
    expect(added.status, JSON.stringify(added.json)).toBe(200);
    expect(added.json.message).toBe('Custom domain added successfully');
    expect(added.json.data.instance.customDomain).toMatchObject({
      domain,
      verification: { status: 'pending', record: { type: 'TXT', name: `_berth-verify.${domain}` } },
      // Not the site's address until it is attached.
      ssl: { status: 'Pending', isPrimary: false },
    });
    const ssl = await v1('GET', `/instances/${id}/ssl/status`);
    expect(ssl.status).toBe(200);
    expect(ssl.json.data.status).toBe('Pending');
    const enable = await v1('POST', `/instances/${id}/ssl/enable`);
    expect(enable.status).toBe(409);
    const removed = await v1('DELETE', `/instances/${id}/domain`);
    expect(removed.status, JSON.stringify(removed.json)).toBe(200);
    expect(removed.json.data.instance.customDomain).toBeNull();
    expect((await v1('DELETE', `/instances/${id}`)).status).toBe(200);
  });
});
