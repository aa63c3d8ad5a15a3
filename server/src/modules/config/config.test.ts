import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, registerAdmin, type TestApp } from '../../../test/create-test-app.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import { createUnconfiguredDriver } from '../../provisioning/unconfigured-driver.ts';
import { NOT_OFFERED } from './config.service.ts';

let db: Db;
let app: TestApp;
beforeAll(async () => {
  ({ db } = await createTestDatabase());
});
beforeEach(async () => {
  await truncateAll(db);
  app = createTestApp(db);
});

describe('GET /api/config', () => {
  it('gives visitors the prices an admin set in the Admin Panel, the same the checkout charges', async () => {
    const before = await call(app, 'GET', '/api/config');
    expect(before.status).toBe(200);
    expect(before.json.plans).toMatchObject({
      currency: 'USD',
      currencySymbol: '$',
      starter: { monthly: 3.99 },
      pro: { monthly: 19.99 },
      addonInstance: 3.99,
    });

    const admin = await registerAdmin(app, db);
    const saved = await call(app, 'PUT', '/api/admin/payment-settings', {
      token: admin.token,
      body: { currency: 'EUR', prices: { starter: 5.49, pro: 24, addonInstance: 2.5 } },
    });
    expect(saved.status).toBe(200);

    const after = await call(app, 'GET', '/api/config');
    expect(after.json.plans).toEqual({
      currency: 'EUR',
      currencySymbol: '€',
      starter: { monthly: 5.49, yearlyDiscount: 0.1, yearly: 59.29 },
      pro: { monthly: 24, yearlyDiscount: 0.3, yearly: 201.6 },
      addonInstance: 2.5,
    });
    // The signed-in billing page reads the same prices.
    const billing = await call(app, 'GET', '/api/payments/settings', { token: admin.token });
    expect(billing.json.prices).toEqual({ starter: 5.49, pro: 24, addonInstance: 2.5 });
  });

  it('says which instance types this install deploys, without the driver internals, and that the public API is offered', async () => {
    const capabilities = async () => ({
      mysql: { available: true as const },
      postgresql: { available: false as const, reason: 'The PostgreSQL server is not running: socket /x' },
      mongodb: { available: false as const, reason: 'MONGODB_ADMIN_URL is not set' },
      wordpress: { available: true as const },
      n8n: { available: false as const, reason: 'Coming soon' },
    });
    const withDriver = createTestApp(db, { provisioner: { ...createUnconfiguredDriver(), capabilities } });
    const { json } = await call(withDriver, 'GET', '/api/config');
    expect(json.offer.instanceTypes).toEqual([
      { type: 'mysql', name: 'MySQL', category: 'database', available: true, reason: null },
      { type: 'postgresql', name: 'PostgreSQL', category: 'database', available: false, reason: NOT_OFFERED },
      { type: 'mongodb', name: 'MongoDB', category: 'database', available: false, reason: NOT_OFFERED },
      { type: 'wordpress', name: 'WordPress', category: 'application', available: true, reason: null },
      { type: 'n8n', name: 'n8n', category: 'application', available: false, reason: 'Coming soon' },
    ]);
    // The /api/v1 routes exist (Pro subscribers use them with a key).
    expect(json.offer.publicApi).toEqual({ available: true, reason: null });
  });
});
