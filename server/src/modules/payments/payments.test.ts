import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, register, type TestApp } from '../../../test/create-test-app.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import { NO_PAYMENT_METHODS_MESSAGE } from '../subscriptions/billing-rules.ts';

let db: Db;
let app: TestApp;

beforeAll(async () => {
  ({ db } = await createTestDatabase());
});
beforeEach(async () => {
  await truncateAll(db);
  app = createTestApp(db);
});

describe('GET /api/payments/settings', () => {
  it('needs a signed-in user', async () => {
    expect((await call(app, 'GET', '/api/payments/settings')).status).toBe(401);
    expect((await call(app, 'GET', '/api/payments/billing-history')).status).toBe(401);
  });

  it('answers prices, discounts and every method off with the empty-state text', async () => {
    const { token } = await register(app);
    const res = await call(app, 'GET', '/api/payments/settings', { token });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      currency: 'USD',
      currencySymbol: '$',
      prices: { starter: 3.99, pro: 19.99, addonInstance: 3.99 },
      yearlyDiscounts: { starter: 0.1, pro: 0.3 },
      methods: {
        stripe: { enabled: false },
        paypalBusiness: { enabled: false },
        paypalStandard: { enabled: false },
        metamask: { enabled: false, receiverAddress: null, chainId: null },
      },
      emptyMessage: NO_PAYMENT_METHODS_MESSAGE,
    });
    // The subscription status carries the same settings.
    const status = (await call(app, 'GET', '/api/subscriptions/status', { token })).json;
    expect({ currency: status.currency, prices: status.prices, methods: status.methods }).toEqual({
      currency: res.json.currency,
      prices: res.json.prices,
      methods: res.json.methods,
    });
    expect(status.subscription.currencySymbol).toBe('$');
  });
});

describe('GET /api/payments/billing-history', () => {
  it('is empty for a new account and lists only the user’s own invoices, newest first', async () => {
    const me = await register(app);
    const other = await register(app);
    expect((await call(app, 'GET', '/api/payments/billing-history', { token: me.token })).json).toEqual({
      invoices: [],
    });
    await db
      .insertInto('invoices')
      .values([
        {
          user_id: String(me.user.id),
          amount: '3.99',
          currency: 'USD',
          description: 'Starter (monthly)',
          date: new Date('2026-01-01T00:00:00Z'),
          status: 'paid',
          provider: 'stripe',
          download_url: 'https://invoices.example/1',
        },
        {
          user_id: String(me.user.id),
          amount: 167.92,
          currency: 'USD',
          description: 'Pro (yearly)',
          date: new Date('2026-02-01T00:00:00Z'),
          status: 'paid',
          provider: 'paypal_business',
          download_url: null,
        },
        {
          user_id: String(other.user.id),
          amount: 1,
          currency: 'USD',
          description: 'not mine',
          status: 'paid',
          provider: 'metamask',
          download_url: null,
        },
      ])
      .execute();
    const res = await call(app, 'GET', '/api/payments/billing-history', { token: me.token });
    expect(res.status).toBe(200);
    expect(res.json.invoices).toEqual([
      {
        id: expect.any(String),
        amount: 167.92,
        currency: 'USD',
        description: 'Pro (yearly)',
        date: '2026-02-01T00:00:00.000Z',
        status: 'paid',
        provider: 'paypal_business',
        downloadUrl: null,
      },
      {
        id: expect.any(String),
        amount: 3.99,
        currency: 'USD',
        description: 'Starter (monthly)',
        date: '2026-01-01T00:00:00.000Z',
        status: 'paid',
        provider: 'stripe',
        downloadUrl: 'https://invoices.example/1',
      },
    ]);
  });
});
