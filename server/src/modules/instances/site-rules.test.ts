import { N8N_PASSWORD } from '@berth/openapi/rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  callAs,
  createTestApp,
  type DeployBody,
  register,
  type TestApp,
} from '../../../test/create-test-app.ts';
import { startTestRunner, waitForStatus } from '../../../test/instances-harness.ts';
import { createMemoryDriver } from '../../../test/provisioning/memory-driver.ts';
import { testArchives } from '../../../test/provisioning/test-archives.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../lib/crypto.ts';

/**
 * The routes of WordPress sites and n8n instances as rules: what another user gets (404 on every
 * route), what a database instance gets on a site's routes, and the n8n owner fields refused before
 * anything is created. The driver keeps its instances in memory, so these run where no site runtime or
 * n8n is installed; the sites and n8n instances themselves are tested on the local driver
 * (wordpress-instances.test.ts, n8n-instances.test.ts).
 */

let db: Db;
let runner: JobRunner;
let app: TestApp;
let owner: { token: string; userId: string };

const site = {
  name: 'My Blog',
  type: 'WordPress',
  region: 'us-east-1',
  title: 'Harbour news',
  username: 'captain',
  email: 'captain@example.com',
  password: 'a "strong" pass',
  phpversion: '8.2',
} satisfies DeployBody;

const flows = {
  name: 'Automations',
  type: 'n8n',
  region: 'us-east-1',
  email: 'owner@example.com',
  password: 'Harbour2026',
} satisfies DeployBody;

const api = callAs(
  () => app,
  () => owner.token,
);

beforeAll(async () => {
  const testDb = await createTestDatabase();
  db = testDb.db;
  const driver = createMemoryDriver();
  const cipher = createEphemeralCipher();
  const { vault } = await testArchives();
  app = createTestApp(db, { provisioner: driver, cipher, backupVault: vault });
  runner = await startTestRunner({ ...testDb, driver, cipher, vault });
  const { token, user } = await register(app);
  owner = { token, userId: String(user.id) };
  // Pro: a site and an n8n instance side by side.
  await db
    .updateTable('subscriptions')
    .set({ plan: 'pro', status: 'active', current_period_end: null })
    .where('user_id', '=', owner.userId)
    .execute();
}, 60_000);

afterAll(async () => {
  await runner?.stop();
});

async function running(body: DeployBody, token = owner.token) {
  const res = await api('POST', '/api/instances/deploy', body, token);
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return (await waitForStatus(app, token, res.json.instance.id, 'running')).id;
}

describe('WordPress routes', { timeout: 30_000 }, () => {
  it('answers 404 to another user on every new route', async () => {
    const id = await running(site);
    const stranger = await register(app);
    for (const [method, route, body] of [
      ['POST', `/api/instances/${id}/domain`, { domain: 'x.example.com' }],
      ['DELETE', `/api/instances/${id}/domain`, undefined],
      ['GET', `/api/instances/${id}/ssl`, undefined],
      ['POST', `/api/instances/${id}/ssl`, undefined],
      ['GET', `/api/instances/${id}/backups`, undefined],
      ['POST', `/api/instances/${id}/backups/new`, { name: 'x' }],
      ['POST', `/api/instances/${id}/backups/b-x/restore`, undefined],
      ['DELETE', `/api/instances/${id}/backups/b-x`, undefined],
      ['GET', `/api/instances/${id}/access`, undefined],
      ['GET', `/api/instances/${id}/storage`, undefined],
    ] as const) {
      const res = await api(method, route, body, stranger.token);
      expect([res.status, res.json.message], `${method} ${route}`).toEqual([404, 'Instance not found']);
    }
  });

  it('refuses domains and SSL for a database instance (backups it has)', async () => {
    const other = await register(app);
    const res = await api('POST', '/api/instances/deploy', { name: 'db', type: 'MySQL' }, other.token);
    expect(res.status).toBe(202);
    const dbId = res.json.instance.id;
    const domainRes = await api(
      'POST',
      `/api/instances/${dbId}/domain`,
      { domain: 'db.example.com' },
      other.token,
    );
    expect([domainRes.status, domainRes.json.message]).toEqual([
      400,
      'Custom domains are only available for WordPress instances',
    ]);
    const ssl = await api('GET', `/api/instances/${dbId}/ssl`, undefined, other.token);
    expect([ssl.status, ssl.json.message]).toEqual([400, 'SSL is only available for custom domains']);
    // A database has backups too (none yet).
    const backups = await api('GET', `/api/instances/${dbId}/backups`, undefined, other.token);
    expect([backups.status, backups.json]).toEqual([200, []]);
  });
});

describe('n8n routes', { timeout: 30_000 }, () => {
  it('refuses owner fields n8n would refuse, before creating anything', async () => {
    const someone = await register(app);
    for (const [patch, message] of [
      [{ email: undefined }, 'Owner email is required'],
      [{ email: 'nope' }, 'Invalid email'],
      [{ password: undefined }, 'Owner password is required'],
      [{ password: 'alllowercase1' }, N8N_PASSWORD.message],
      [{ password: 'NoDigitsHere' }, N8N_PASSWORD.message],
      [{ password: 'Sh0rt' }, N8N_PASSWORD.message],
    ] as const) {
      const badBody = { ...flows, ...patch };
      const res = await call(app, 'POST', '/api/instances/deploy', { token: someone.token, badBody });
      expect([res.status, res.json.message], JSON.stringify(patch)).toEqual([400, message]);
    }
    expect((await api('GET', '/api/instances', undefined, someone.token)).json.total).toBe(0);
  });

  it("answers 404 for another user's n8n instance", async () => {
    const id = await running(flows);
    const other = await register(app);
    for (const [method, route] of [
      ['GET', ''],
      ['GET', '/backups'],
      ['POST', '/backups/new'],
      ['DELETE', ''],
    ] as const) {
      const body = method === 'POST' ? { name: 'x' } : undefined;
      const res = await api(method, `/api/instances/${id}${route}`, body, other.token);
      expect([res.status, res.json.message], `${method} ${route}`).toEqual([404, 'Instance not found']);
    }
  });
});
