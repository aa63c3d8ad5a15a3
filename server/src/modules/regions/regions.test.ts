import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REGIONS } from '@berth/openapi/rules';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, register, registerAdmin, type TestApp } from '../../../test/create-test-app.ts';
import { createTestDatabase } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import { createDriver } from '../../driver-config.ts';
import { readConfig } from '../../env.ts';

let db: Db;
let app: TestApp;
let adminToken: string;

beforeAll(async () => {
  ({ db } = await createTestDatabase());
  app = createTestApp(db);
  ({ token: adminToken } = await registerAdmin(app, db));
});

// The swarm driver's nodes are checked against a real swarm in instances/swarm-instances.test.ts.
describe('GET /api/admin/regions on a one-host install', () => {
  it('lists every region customers can pick: the one this host serves, the others with the reason customers read', async () => {
    const res = await call(app, 'GET', '/api/admin/regions', { token: adminToken });
    expect(res.status).toBe(200);
    expect(res.json.scheduler).toBe('this-host');
    expect(res.json.regions.map((region) => region.region)).toEqual(REGIONS.map((region) => region.id));
    const served = res.json.regions.filter((region) => region.available);
    expect(served.map((region) => [region.region, region.label, region.reason])).toEqual([
      ['us-east-1', 'US East (N. Virginia)', null],
    ]);
    const other = res.json.regions.find((region) => region.region === 'eu-west-1');
    expect(other?.reason).toBe('This server runs instances in US East (N. Virginia) only');
    expect(res.json.regions.every((region) => region.nodes.length === 0 && region.error === null)).toBe(true);
  });

  it('has no server to drain: drain and back-in-service answer 409 with why, and a bad id 400', async () => {
    for (const path of [
      '/api/admin/regions/nodes/abc123/drain',
      '/api/admin/regions/nodes/abc123/activate',
    ] as const) {
      const res = await call(app, 'POST', path, { token: adminToken });
      expect([res.status, res.json.message], path).toEqual([
        409,
        'Every instance runs on this one server here: there is no other server to move them to',
      ]);
    }
    const bad = await call(app, 'POST', '/api/admin/regions/nodes/..%2Fx/drain', { token: adminToken });
    expect(bad.status).toBe(400);
    const customer = await register(app);
    expect(
      (await call(app, 'POST', '/api/admin/regions/nodes/abc123/drain', { token: customer.token })).status,
    ).toBe(403);
  });

  it('answers 401 without a token and 403 to a customer', async () => {
    expect((await call(app, 'GET', '/api/admin/regions')).status).toBe(401);
    const customer = await register(app);
    expect((await call(app, 'GET', '/api/admin/regions', { token: customer.token })).status).toBe(403);
  });
});

describe('LOCAL_REGION', () => {
  let dataDir = '';
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('makes the local driver serve that region: customers and the admin see it, the others with the reason', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'berth-local-region-'));
    // The configuration as main.ts reads it, and the driver it builds (not started: regions need nothing).
    const config = readConfig({ BERTH_DATA_DIR: dataDir, LOCAL_REGION: 'eu-west-1' });
    const driver = createDriver(config.provisioning, () => {});
    const local = createTestApp(db, { provisioner: driver });
    const customer = await register(local);
    const offered = await call(local, 'GET', '/api/instances/capabilities', { token: customer.token });
    expect(offered.json.regions.filter((region) => region.available).map((region) => region.id)).toEqual([
      'eu-west-1',
    ]);
    const reasons = new Set(offered.json.regions.filter((r) => !r.available).map((r) => r.reason));
    expect([...reasons]).toEqual(['This server runs instances in EU West (Ireland) only']);
    expect(offered.json.regions.find((region) => region.id === 'us-east-1')).toMatchObject({
      available: false,
      reason: 'This server runs instances in EU West (Ireland) only',
    });

    const admin = await call(local, 'GET', '/api/admin/regions', { token: adminToken });
    expect(admin.json.scheduler).toBe('this-host');
    expect(admin.json.regions.filter((region) => region.available).map((region) => region.label)).toEqual([
      'EU West (Ireland)',
    ]);
    // A deploy to the default region is refused with that reason.
    const deploy = await call(local, 'POST', '/api/instances/deploy', {
      token: customer.token,
      body: { name: 'orders', type: 'MySQL', region: 'us-east-1' },
    });
    expect([deploy.status, deploy.json.message]).toEqual([
      400,
      'This server runs instances in EU West (Ireland) only',
    ]);
  });
});
