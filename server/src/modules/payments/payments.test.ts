import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, present, register, type TestApp } from '../../../test/create-test-app.ts';
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
        refundedAmount: 0,
        provider: 'paypal_business',
        downloadUrl: expect.stringMatching(
          /^http:\/\/localhost:8080\/api\/payments\/invoices\/[0-9a-f-]{36}\/download\?token=/,
        ),
      },
      {
        id: expect.any(String),
        amount: 3.99,
        currency: 'USD',
        description: 'Starter (monthly)',
        date: '2026-01-01T00:00:00.000Z',
        status: 'paid',
        refundedAmount: 0,
        provider: 'stripe',
        downloadUrl: 'https://invoices.example/1',
      },
    ]);
  });

  it('opens the generated invoice through the signed link, and only that invoice', async () => {
    const me = await register(app, { firstName: 'Grace', lastName: 'Hopper' });
    const [mine, theirs] = await db
      .insertInto('invoices')
      .values([
        {
          user_id: String(me.user.id),
          amount: 167.92,
          currency: 'USD',
          description: 'Pro (yearly)',
          status: 'paid',
          provider: 'paypal_business',
          download_url: null,
          provider_ref: 'CAPTURE-1',
        },
        {
          user_id: String(me.user.id),
          amount: 3.99,
          currency: 'USD',
          description: 'Starter (monthly)',
          status: 'paid',
          provider: 'metamask',
          download_url: null,
        },
      ])
      .returning('id')
      .execute();
    const history = await call(app, 'GET', '/api/payments/billing-history', { token: me.token });
    const invoice = history.json.invoices.find((i) => i.id === mine?.id);
    const link = new URL(present(invoice?.downloadUrl, 'a download link'));
    const page = await app.request(`${link.pathname}${link.search}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('Pro (yearly)');
    expect(html).toContain('$167.92 USD');
    expect(html).toContain('Grace Hopper');
    expect(html).toContain('CAPTURE-1');
    // The token opens its own invoice only, and a forged token nothing.
    const token = link.searchParams.get('token');
    expect((await app.request(`/api/payments/invoices/${theirs?.id}/download?token=${token}`)).status).toBe(
      404,
    );
    expect((await app.request(`${link.pathname}?token=${token}x`)).status).toBe(401);
    expect((await app.request(link.pathname)).status).toBe(400);
  });
});
