import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createTestApp,
  present,
  register,
  registerAdmin,
  type TestApp,
  variant,
} from '../../../test/create-test-app.ts';
import { startTestRunner, waitForGone, waitForStatus } from '../../../test/instances-harness.ts';
import { tenantCli } from '../../../test/provisioning/db-clients.ts';
import { type SwarmHarness, startSwarmHarness } from '../../../test/provisioning/swarm-harness.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/test-db.ts';
import type { JobRunner } from '../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../lib/crypto.ts';
import type { DatabaseCredentials } from '../../provisioning/engine.ts';
import { instanceNames } from '../../provisioning/swarm/services.ts';

/**
 * The same instances service and jobs as on the local driver, with the swarm driver behind them: a
 * customer deploys a MySQL instance into a region through the API, connects with the credentials the
 * API gives, changes its password, backs it up and restores it, and deletes it; a region without a
 * swarm is refused with its reason. Nothing here knows which driver runs (issue 24).
 */

let database: TestDatabase;
let h: SwarmHarness;
let app: TestApp;
let runner: JobRunner;

beforeAll(async () => {
  database = await createTestDatabase();
  h = await startSwarmHarness();
  const cipher = createEphemeralCipher();
  app = createTestApp(database.db, { provisioner: h.driver, cipher });
  runner = await startTestRunner({ ...database, driver: h.driver, cipher });
}, 600_000);

afterAll(async () => {
  await runner?.stop();
  await h?.stop();
}, 120_000);

async function proUser() {
  const account = await register(app);
  await database.db
    .updateTable('subscriptions')
    .set({ plan: 'pro', status: 'active' })
    .where('user_id', '=', String(account.user.id))
    .execute();
  return account;
}

async function credentialsOf(token: string, id: string): Promise<DatabaseCredentials> {
  const access = await call(app, 'GET', `/api/instances/${id}/access`, { token });
  expect(access.status, JSON.stringify(access.json)).toBe(200);
  const { host, port, name, user, password } = variant(access.json, 'database').database;
  return { host, port, database: name, user, password };
}

describe('instances through the API on the swarm driver', { timeout: 180_000 }, () => {
  it('offers the regions that have a swarm, and refuses another with its reason', async () => {
    const { token } = await proUser();
    const capabilities = await call(app, 'GET', '/api/instances/capabilities', { token });
    const offered = capabilities.json.regions.filter((region) => region.available).map((region) => region.id);
    expect(offered.sort()).toEqual(['eu-west-1', 'us-east-1']);
    const refused = await call(app, 'POST', '/api/instances/deploy', {
      token,
      body: { name: 'Far', type: 'MySQL', region: 'ap-south-1' },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toBe('No servers in this region yet');
  });

  it('deploys MySQL into eu-west-1, changes its password, backs it up and restores it, then deletes it', async () => {
    const { token } = await proUser();
    const deployed = await call(app, 'POST', '/api/instances/deploy', {
      token,
      body: { name: 'Orders', type: 'MySQL', region: 'eu-west-1', memory: '1GB', cpu: '1' },
    });
    expect(deployed.status, JSON.stringify(deployed.json)).toBe(202);
    const id = deployed.json.instance.id;
    const running = await waitForStatus(app, token, id, 'running', 120_000);
    expect(running.region).toBe('eu-west-1');
    // The service runs on a node of that region, with the memory and CPU it was sold.
    const service = JSON.parse(
      await h.docker('euw1-m', 'service', 'inspect', '--format', '{{json .Spec}}', instanceNames(id).service),
    ) as { TaskTemplate: { Resources: { Limits: { MemoryBytes: number; NanoCPUs: number } } } };
    expect(service.TaskTemplate.Resources.Limits).toMatchObject({ MemoryBytes: 1024 ** 3, NanoCPUs: 1e9 });

    // The admin sees where it runs: eu-west-1's nodes as the swarm reports them, the instance counted
    // on the node that holds it and its memory reserved there; a region without a swarm has no nodes.
    const admin = await registerAdmin(app, database.db);
    const regions = await call(app, 'GET', '/api/admin/regions', { token: admin.token });
    expect(regions.status).toBe(200);
    expect(regions.json.scheduler).toBe('swarm');
    const eu = present(regions.json.regions.find((region) => region.region === 'eu-west-1'));
    expect(eu.available).toBe(true);
    expect(eu.nodes.length).toBeGreaterThan(0);
    for (const node of eu.nodes) expect(node.labels.region).toBe('eu-west-1');
    const holder = present(
      eu.nodes.find((node) => node.instances > 0),
      'the node running the instance',
    );
    expect(holder.memoryReservedBytes).toBeGreaterThanOrEqual(1024 ** 3);
    expect(holder.memoryReservedBytes).toBeLessThanOrEqual(holder.memoryBytes);
    const far = present(regions.json.regions.find((region) => region.region === 'ap-south-1'));
    expect([far.available, far.nodes]).toEqual([false, []]);
    expect((await call(app, 'GET', '/api/admin/regions', { token })).status).toBe(403);

    const first = await credentialsOf(token, id);
    expect((await tenantCli('mysql', first, 'CREATE TABLE t (n INT); INSERT INTO t VALUES (1)')).ok).toBe(
      true,
    );

    const changed = await call(app, 'POST', `/api/instances/${id}/password`, {
      token,
      body: { type: 'MySQL', password: 'Swarm-new-pass-2026' },
    });
    expect(changed.status, JSON.stringify(changed.json)).toBe(200);
    expect((await tenantCli('mysql', first, 'SELECT 1')).ok).toBe(false);
    const second = await credentialsOf(token, id);
    expect(second.password).toBe('Swarm-new-pass-2026');

    // Backups are the engine's capability: a database on swarm has them through the same routes.
    const backup = await call(app, 'POST', `/api/instances/${id}/backups/new`, {
      token,
      body: { name: 'before cleanup' },
    });
    expect(backup.status, JSON.stringify(backup.json)).toBe(201);
    expect((await tenantCli('mysql', second, 'DELETE FROM t')).ok).toBe(true);
    const restored = await call(app, 'POST', `/api/instances/${id}/backups/${backup.json.backupId}/restore`, {
      token,
    });
    expect(restored.status, JSON.stringify(restored.json)).toBe(200);
    expect((await tenantCli('mysql', second, 'SELECT COUNT(*) FROM t')).stdout).toBe('1');

    expect((await call(app, 'DELETE', `/api/instances/${id}`, { token })).status).toBe(202);
    await waitForGone(app, token, id, 120_000);
    const left = await h.docker(
      'euw1-m',
      'service',
      'ls',
      '--filter',
      `name=${instanceNames(id).service}`,
      '-q',
    );
    expect(left).toBe('');
  });
});
