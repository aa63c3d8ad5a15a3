import { REGIONS } from '@berth/openapi/rules';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, register, registerAdmin, type TestApp } from '../../../test/create-test-app.ts';
import { createTestDatabase } from '../../../test/test-db.ts';

let app: TestApp;
let adminToken: string;

beforeAll(async () => {
  const { db } = await createTestDatabase();
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

  it('answers 401 without a token and 403 to a customer', async () => {
    expect((await call(app, 'GET', '/api/admin/regions')).status).toBe(401);
    const customer = await register(app);
    expect((await call(app, 'GET', '/api/admin/regions', { token: customer.token })).status).toBe(403);
  });
});
