import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, createTestApp, register, registerAdmin, type TestApp } from '../../../test/create-test-app.ts';
import { FAKE_PAYPAL, type FakePayPal, startFakePayPal } from '../../../test/fake-paypal.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';

/**
 * Commissions from PayPal and MetaMask payments: the same rule as Stripe's (20 % of the referred
 * customer's first plan payment, once), through the payments module's listener.
 */

let db: Db;
let app: TestApp;
let paypal: FakePayPal;

beforeAll(async () => {
  ({ db } = await createTestDatabase());
  paypal = await startFakePayPal();
});
afterAll(() => paypal?.close());
beforeEach(async () => {
  await truncateAll(db);
  paypal.state.verification = 'SUCCESS';
  app = createTestApp(db, {
    publicUrl: 'http://app.test',
    payments: { paypal: { ...FAKE_PAYPAL, apiBase: paypal.url } },
  });
});

/** An affiliate and a customer they referred (by the ref parameter). */
async function referredCustomer() {
  const a = await register(app);
  const joined = await call(app, 'POST', '/api/affiliates/register', {
    token: a.token,
    body: { paymentMethod: 'paypal' },
  });
  expect(joined.status).toBe(201);
  const customer = await register(app, { ref: joined.json.affiliate.referralCode });
  return { affiliate: a.token, customer: customer.token };
}

const ledger = () =>
  db
    .selectFrom('affiliate_ledger')
    .select(['kind', 'amount_minor', 'source_provider'])
    .orderBy('created_at')
    .execute();
const dashboard = async (token: string) =>
  (await call(app, 'GET', '/api/affiliates/dashboard', { token })).json;

function paypalWebhook(event: Record<string, unknown>) {
  const headers = {
    'content-type': 'application/json',
    'paypal-auth-algo': 'SHA256withRSA',
    'paypal-cert-url': 'https://api.paypal.com/v1/notifications/certs/CERT-360caa42',
    'paypal-transmission-id': randomUUID(),
    'paypal-transmission-sig': 'c2lnbmF0dXJl',
    'paypal-transmission-time': new Date().toISOString(),
  };
  const body = JSON.stringify({ id: `WH-${randomUUID()}`, create_time: new Date().toISOString(), ...event });
  return app.request('/api/payments/webhooks/paypal', { method: 'POST', headers, body });
}

async function paypalOrder(token: string, plan: 'starter' | 'pro', billingCycle: 'monthly' | 'yearly') {
  const res = await call(app, 'POST', '/api/payments/create-paypal-payment', {
    token,
    body: { provider: 'paypal_standard', plan, billingCycle },
  });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const paypalId = new URL(res.json.redirectUrl).searchParams.get('token') ?? '';
  return String(paypal.orders.get(paypalId)?.purchase_units[0].custom_id);
}

describe('PayPal', () => {
  it('the first capture earns 20 % once; a second payment nothing; a refund in the hold claws it back', async () => {
    const { affiliate, customer } = await referredCustomer();
    const orderId = await paypalOrder(customer, 'pro', 'yearly');
    const capture = {
      event_type: 'PAYMENT.CAPTURE.COMPLETED',
      resource: {
        id: 'CAPTURE-1',
        status: 'COMPLETED',
        amount: { currency_code: 'USD', value: '167.92' },
        custom_id: orderId,
      },
    };
    expect((await paypalWebhook(capture)).status).toBe(200);
    // Resent under a new event id: the order is completed already, nothing more is earned.
    expect((await paypalWebhook(capture)).status).toBe(200);
    const second = await paypalOrder(customer, 'starter', 'monthly');
    const again = {
      event_type: 'PAYMENT.CAPTURE.COMPLETED',
      resource: {
        id: 'CAPTURE-2',
        status: 'COMPLETED',
        amount: { currency_code: 'USD', value: '3.99' },
        custom_id: second,
      },
    };
    expect((await paypalWebhook(again)).status).toBe(200);
    // 167.92 × 20 % = 33.584 → 33.58.
    expect(await ledger()).toEqual([
      { kind: 'commission', amount_minor: 3358, source_provider: 'paypal_standard' },
    ]);
    expect(await dashboard(affiliate)).toMatchObject({ pendingEarnings: 33.58, activeReferrals: 1 });

    const refund = {
      event_type: 'PAYMENT.CAPTURE.REFUNDED',
      resource: {
        id: 'REFUND-1',
        status: 'COMPLETED',
        links: [{ rel: 'up', href: `${paypal.url}/v2/payments/captures/CAPTURE-1`, method: 'GET' }],
      },
    };
    expect((await paypalWebhook(refund)).status).toBe(200);
    expect((await ledger()).map((e) => [e.kind, e.amount_minor])).toEqual([
      ['commission', 3358],
      ['clawback', -3358],
    ]);
    expect(await dashboard(affiliate)).toMatchObject({ pendingEarnings: 0, totalEarnings: 0 });
  });
});

describe('MetaMask', () => {
  it("the admin's approval of the first plan order earns 20 %; an add-on order earns nothing", async () => {
    const admin = await registerAdmin(app, db);
    const settings = await call(app, 'PUT', '/api/admin/payment-settings', {
      token: admin.token,
      body: {
        methods: {
          metamask: { enabled: true, receiverAddress: `0x${'Ab'.repeat(20)}`, chainId: '0xaa36a7' },
        },
      },
    });
    expect(settings.status).toBe(200);
    const { affiliate, customer } = await referredCustomer();
    let hash = 0;
    async function payAndApprove(body: Record<string, unknown>) {
      const order = await call(app, 'POST', '/api/payments/metamask/orders', { token: customer, body });
      expect(order.status, JSON.stringify(order.json)).toBe(201);
      const txHash = `0x${(++hash).toString(16).padStart(64, 'b')}`;
      const submitted = await call(
        app,
        'POST',
        `/api/payments/metamask/orders/${order.json.id}/transaction`,
        {
          token: customer,
          body: { chainId: '0xaa36a7', from: `0x${'12'.repeat(20)}`, txHash },
        },
      );
      expect(submitted.status, JSON.stringify(submitted.json)).toBe(201);
      const approved = await call(app, 'POST', `/api/admin/payments/metamask/${order.json.id}/approve`, {
        token: admin.token,
      });
      expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    }
    await payAndApprove({ plan: 'starter', billingCycle: 'monthly' });
    await payAndApprove({ purchaseType: 'addon_instance' });
    expect(
      await db.selectFrom('payment_orders').select('kind').where('kind', '=', 'addon_instance').execute(),
    ).toHaveLength(1);
    // 3.99 × 20 % = 0.798 → 0.80.
    expect(await ledger()).toEqual([{ kind: 'commission', amount_minor: 80, source_provider: 'metamask' }]);
    expect(await dashboard(affiliate)).toMatchObject({
      pendingEarnings: 0.8,
      activeReferrals: 1,
      totalReferrals: 1,
    });
  });
});
