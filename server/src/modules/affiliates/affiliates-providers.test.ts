import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { referredCustomer } from '../../../test/affiliate-fixtures.ts';
import {
  type BodyOf,
  call,
  createTestApp,
  registerAdmin,
  type TestApp,
} from '../../../test/create-test-app.ts';
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
  paypal.state.feeOf = () => 0;
  app = createTestApp(db, {
    publicUrl: 'http://app.test',
    payments: { paypal: { ...FAKE_PAYPAL, apiBase: paypal.url } },
  });
});

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
    const { affiliate, customer } = await referredCustomer(app);
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
      resource_type: 'refund',
      resource: {
        id: 'REFUND-1',
        status: 'COMPLETED',
        amount: { currency_code: 'USD', value: '167.92' },
        seller_payable_breakdown: {
          gross_amount: { currency_code: 'USD', value: '167.92' },
          total_refunded_amount: { currency_code: 'USD', value: '167.92' },
        },
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

/** The customer subscribes with PayPal Business and comes back: ACTIVE, the order completes. */
async function paypalSubscription(
  token: string,
  plan: 'starter' | 'pro',
  billingCycle: 'monthly' | 'yearly',
) {
  const res = await call(app, 'POST', '/api/payments/create-paypal-payment', {
    token,
    body: { provider: 'paypal_business', plan, billingCycle },
  });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const sub = [...paypal.subscriptions.values()].find((s) =>
    s.links.some((l: { href: string }) => l.href === res.json.redirectUrl),
  );
  paypal.approveSubscription(sub?.id);
  const back = await app.request(
    `/api/payments/paypal/return?order=${sub?.custom_id}&subscription_id=${sub?.id}`,
  );
  expect(back.headers.get('location')).toContain('/payment-success');
  return String(sub?.id);
}

const history = async (token: string) =>
  (await call(app, 'GET', '/api/payments/billing-history', { token })).json.invoices;

describe('PayPal refunds and fees', () => {
  it('a PayPal Business sale refunded (PAYMENT.SALE.REFUNDED) claws the commission back; the invoice shows it', async () => {
    const { affiliate, customer } = await referredCustomer(app);
    // PayPal keeps 3.49 % + 0.49 of 19.99 = 1.19 of the first cycle's sale.
    paypal.state.feeOf = (value) => Math.round((Number(value) * 0.0349 + 0.49) * 100) / 100;
    const subId = await paypalSubscription(customer, 'pro', 'monthly');
    // The return read the first sale (and its fee) from the subscription's transactions:
    // (19.99 − 1.19) × 20 % = 3.76.
    expect(await ledger()).toEqual([
      { kind: 'commission', amount_minor: 376, source_provider: 'paypal_business' },
    ]);
    const [saleId] = paypal.salesOf(subId);

    // Half refunded inside the hold (no PAYMENT.SALE.COMPLETED came): half the commission is clawed
    // back, once even when the event is delivered again. 376 × 9.99 / 19.99 = 187.9 → 1.88.
    const half = paypal.saleRefunded(String(saleId), 9.99);
    expect((await paypalWebhook(half)).status).toBe(200);
    expect((await paypalWebhook(half)).status).toBe(200);
    expect((await ledger()).map((e) => [e.kind, e.amount_minor])).toEqual([
      ['commission', 376],
      ['clawback', -188],
    ]);
    expect(await history(customer)).toEqual([
      expect.objectContaining({ amount: 19.99, refundedAmount: 9.99, status: 'paid' }),
    ]);
    // The sale's completion arrives late: nothing more is earned.
    expect((await paypalWebhook(paypal.saleCompleted(subId))).status).toBe(200);
    // The rest refunded: the commission is gone and the invoice refunded.
    expect((await paypalWebhook(paypal.saleRefunded(String(saleId)))).status).toBe(200);
    expect((await ledger()).map((e) => [e.kind, e.amount_minor])).toEqual([
      ['commission', 376],
      ['clawback', -188],
      ['clawback', -188],
    ]);
    expect(await history(customer)).toEqual([
      expect.objectContaining({ amount: 19.99, refundedAmount: 19.99, status: 'refunded' }),
    ]);
    expect(await dashboard(affiliate)).toMatchObject({ pendingEarnings: 0, totalEarnings: 0 });
  });

  it("a first subscription payment completed by its sale earns 20 % of it less PayPal's transaction fee", async () => {
    const { affiliate, customer } = await referredCustomer(app);
    const res = await call(app, 'POST', '/api/payments/create-paypal-payment', {
      token: customer,
      body: { provider: 'paypal_business', plan: 'pro', billingCycle: 'monthly' },
    });
    expect(res.status).toBe(200);
    const sub = [...paypal.subscriptions.values()].find((s) =>
      s.links.some((l: { href: string }) => l.href === res.json.redirectUrl),
    );
    // PayPal keeps 3.49 % + 0.49 of 19.99 = 1.19; the webhook completes the order (no return).
    paypal.state.feeOf = (value) => Math.round((Number(value) * 0.0349 + 0.49) * 100) / 100;
    paypal.approveSubscription(sub?.id);
    expect((await paypalWebhook(paypal.saleCompleted(String(sub?.id)))).status).toBe(200);
    // (19.99 − 1.19) × 20 % = 3.76.
    expect(await ledger()).toEqual([
      { kind: 'commission', amount_minor: 376, source_provider: 'paypal_business' },
    ]);
    expect(await dashboard(affiliate)).toMatchObject({ pendingEarnings: 3.76 });
  });

  it("BILLING.SUBSCRIPTION.ACTIVATED completing the order earns 20 % less the first sale's fee", async () => {
    const { customer } = await referredCustomer(app);
    const res = await call(app, 'POST', '/api/payments/create-paypal-payment', {
      token: customer,
      body: { provider: 'paypal_business', plan: 'pro', billingCycle: 'monthly' },
    });
    expect(res.status).toBe(200);
    const sub = [...paypal.subscriptions.values()].find((s) =>
      s.links.some((l: { href: string }) => l.href === res.json.redirectUrl),
    );
    paypal.state.feeOf = (value) => Math.round((Number(value) * 0.0349 + 0.49) * 100) / 100;
    paypal.approveSubscription(sub?.id);
    const activated = {
      event_type: 'BILLING.SUBSCRIPTION.ACTIVATED',
      resource: { id: sub?.id, status: 'ACTIVE' },
    };
    expect((await paypalWebhook(activated)).status).toBe(200);
    expect(await ledger()).toEqual([
      { kind: 'commission', amount_minor: 376, source_provider: 'paypal_business' },
    ]);
  });

  it("a one-off capture earns 20 % less PayPal's fee; a partial capture refund claws back its share", async () => {
    const { affiliate, customer } = await referredCustomer(app);
    const orderId = await paypalOrder(customer, 'pro', 'yearly');
    const paypalId = [...paypal.orders.values()].find((o) => o.purchase_units[0].custom_id === orderId)?.id;
    paypal.approveOrder(paypalId);
    paypal.state.feeOf = (value) => Math.round((Number(value) * 0.0349 + 0.49) * 100) / 100;
    const back = await app.request(`/api/payments/paypal/return?order=${orderId}&token=${paypalId}`);
    expect(back.headers.get('location')).toContain('/payment-success');
    // 167.92 less a 6.35 fee = 161.57; × 20 % = 32.31.
    expect(await ledger()).toEqual([
      { kind: 'commission', amount_minor: 3231, source_provider: 'paypal_standard' },
    ]);
    const captureId = String(paypal.orders.get(paypalId)?.purchase_units[0].payments.captures[0].id);
    // A quarter refunded: a quarter of the commission (8.08) comes back, even when the event is resent.
    const quarter = paypal.captureRefunded(captureId, 41.98);
    expect((await paypalWebhook(quarter)).status).toBe(200);
    expect((await paypalWebhook(quarter)).status).toBe(200);
    expect((await ledger()).map((e) => [e.kind, e.amount_minor])).toEqual([
      ['commission', 3231],
      ['clawback', -808],
    ]);
    expect(await dashboard(affiliate)).toMatchObject({ pendingEarnings: 24.23 });
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
    const { affiliate, customer } = await referredCustomer(app);
    let hash = 0;
    async function payAndApprove(body: BodyOf<'POST', '/api/payments/metamask/orders'>) {
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
