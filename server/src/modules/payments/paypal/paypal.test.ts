import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type BodyOf,
  call,
  createTestApp,
  present,
  register,
  type TestApp,
  type Without,
} from '../../../../test/create-test-app.ts';
import { FAKE_PAYPAL, type FakePayPal, startFakePayPal } from '../../../../test/fake-paypal.ts';
import { insertInstanceRows } from '../../../../test/instance-rows.ts';
import { createTestDatabase, truncateAll } from '../../../../test/test-db.ts';
import type { Db } from '../../../db/database.ts';
import { ConflictError } from '../../../lib/errors.ts';
import { PAYPAL_CANNOT_RESUME } from './paypal.service.ts';
import { createPayPal } from './paypal.ts';
import { createPayPalClient } from './paypal-client.ts';

const PUBLIC_URL = 'http://berth.test';
const DAY = 86_400_000;

let db: Db;
let fake: FakePayPal;
let app: TestApp;

const newApp = () =>
  createTestApp(db, { payments: { paypal: { ...FAKE_PAYPAL, apiBase: fake.url } }, publicUrl: PUBLIC_URL });

beforeAll(async () => {
  ({ db } = await createTestDatabase());
  fake = await startFakePayPal();
});
afterAll(() => fake.close());
beforeEach(async () => {
  await truncateAll(db);
  fake.state.verification = 'SUCCESS';
  fake.requests.length = 0;
  app = newApp();
});

type Body = Record<string, unknown>;
type Checkout = BodyOf<'POST', '/api/payments/create-paypal-payment'>;
/** What is bought: a plan, or an additional instance. */
type Order = Without<Checkout, 'provider'>;

async function pay(token: string, body: Checkout) {
  const res = await call(app, 'POST', '/api/payments/create-paypal-payment', { token, body });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as { redirectUrl: string; paypalUrl: string };
}

/** Starts a one-off payment; answers PayPal's order id and ours. */
async function standardOrder(token: string, body: Order = { plan: 'starter', billingCycle: 'monthly' }) {
  const { redirectUrl } = await pay(token, { ...body, provider: 'paypal_standard' });
  const paypalId = new URL(redirectUrl).searchParams.get('token') ?? '';
  const orderId: string = fake.orders.get(paypalId)?.purchase_units[0].custom_id;
  return { paypalId, orderId, redirectUrl };
}

/** Starts a PayPal subscription; answers its id and our order id. */
async function businessOrder(token: string, body: Order = { plan: 'starter', billingCycle: 'monthly' }) {
  const { redirectUrl } = await pay(token, { ...body, provider: 'paypal_business' });
  const sub = [...fake.subscriptions.values()].find((s) =>
    s.links.some((l: { href: string }) => l.href === redirectUrl),
  );
  return { subId: sub?.id as string, orderId: sub?.custom_id as string, redirectUrl };
}

async function get(path: string) {
  const res = await app.request(path);
  return { status: res.status, location: res.headers.get('location') };
}

const back = (orderId: string, query: string) => get(`/api/payments/paypal/return?order=${orderId}&${query}`);

let eventSeq = 0;
/** Delivers a webhook event with PayPal's five signature headers (null: none). */
function webhook(event: Body, headers: Record<string, string> | null = {}) {
  const signed = {
    'paypal-auth-algo': 'SHA256withRSA',
    'paypal-cert-url': 'https://api.paypal.com/v1/notifications/certs/CERT-360caa42',
    'paypal-transmission-id': randomUUID(),
    'paypal-transmission-sig': 'c2lnbmF0dXJl',
    'paypal-transmission-time': new Date().toISOString(),
  };
  const body = JSON.stringify({ id: `WH-${++eventSeq}`, create_time: new Date().toISOString(), ...event });
  return sendRaw(body, {
    'content-type': 'application/json',
    ...(headers === null ? {} : { ...signed, ...headers }),
  });
}

async function sendRaw(rawBody: string, headers: Record<string, string>) {
  const res = await app.request('/api/payments/webhooks/paypal', { method: 'POST', headers, body: rawBody });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const status = async (token: string) =>
  (await call(app, 'GET', '/api/subscriptions/status', { token })).json.subscription;
const history = async (token: string) =>
  (await call(app, 'GET', '/api/payments/billing-history', { token })).json.invoices;
const orderRow = (id: string) =>
  db.selectFrom('payment_orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const requestsTo = (method: string, pattern: RegExp) =>
  fake.requests.filter((r) => r.method === method && pattern.test(r.path));

describe('PayPal (standard): one-off Orders v2 payment', () => {
  it('redirects to PayPal, captures on return, activates Starter and lists an invoice that opens', async () => {
    const { token } = await register(app);
    const { paypalId, orderId, redirectUrl } = await standardOrder(token);
    expect(redirectUrl).toBe(`${fake.url}/checkoutnow?token=${paypalId}`);
    const created = requestsTo('POST', /^\/v2\/checkout\/orders$/).at(-1);
    expect(created?.headers['paypal-request-id']).toBe(`order-${orderId}`);
    expect(created?.headers.authorization).toMatch(/^Bearer A21-/);
    expect(created?.body.purchase_units[0]).toMatchObject({
      custom_id: orderId,
      amount: { currency_code: 'USD', value: '3.99' },
    });
    expect(created?.body.payment_source.paypal.experience_context).toMatchObject({
      return_url: `${PUBLIC_URL}/api/payments/paypal/return?order=${orderId}`,
      cancel_url: `${PUBLIC_URL}/api/payments/paypal/cancel?order=${orderId}`,
    });
    expect((await orderRow(orderId)).provider_ref).toBe(paypalId);

    fake.approveOrder(paypalId);
    const res = await back(orderId, `token=${paypalId}&PayerID=BUYER1`);
    expect(res.status).toBe(302);
    const captureId = fake.orders.get(paypalId)?.purchase_units[0].payments.captures[0].id;
    expect(res.location).toBe(`${PUBLIC_URL}/payment-success?tx=${captureId}`);
    const capture = requestsTo('POST', /\/capture$/);
    expect(capture).toHaveLength(1);
    expect(capture[0]?.headers['paypal-request-id']).toBe(`capture-${orderId}`);

    const sub = await status(token);
    expect(sub).toMatchObject({ plan: 'starter', standing: 'active', billingCycle: 'monthly' });
    expect(Date.parse(present(sub.nextBillingDate, 'a next billing date')) - Date.now()).toBeGreaterThan(
      27 * DAY,
    );
    expect((await orderRow(orderId)).status).toBe('completed');
    const invoices = await history(token);
    expect(invoices).toEqual([
      expect.objectContaining({
        amount: 3.99,
        currency: 'USD',
        description: 'Starter (monthly)',
        status: 'paid',
        provider: 'paypal_standard',
      }),
    ]);
    const link = new URL(present(invoices[0]?.downloadUrl, 'a download link'));
    const page = await app.request(`${link.pathname}${link.search}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(captureId);
    const notes = (await call(app, 'GET', '/api/notifications', { token })).json;
    expect(JSON.stringify(notes)).toContain('Payment received');

    // Back once more (reload, back button): the same result, nothing charged or recorded twice.
    expect(await back(orderId, `token=${paypalId}&PayerID=BUYER1`)).toEqual(res);
    expect(requestsTo('POST', /\/capture$/)).toHaveLength(1);
    expect(await history(token)).toHaveLength(1);
  });

  it('cancels the order on cancel, and sends unknown, foreign or unapproved returns to the error page', async () => {
    const { token } = await register(app);
    const { paypalId, orderId } = await standardOrder(token);
    expect(await back(orderId, `token=${paypalId}`)).toEqual({
      status: 302,
      location: `${PUBLIC_URL}/payment-error?reason=incomplete`,
    });
    expect((await orderRow(orderId)).status).toBe('pending');

    const cancel = await get(`/api/payments/paypal/cancel?order=${orderId}&token=${paypalId}`);
    expect(cancel).toEqual({ status: 302, location: `${PUBLIC_URL}/payment-cancelled?reason=cancelled` });
    expect((await orderRow(orderId)).status).toBe('cancelled');
    expect((await status(token)).standing).toBe('trial');

    const other = `${PUBLIC_URL}/payment-error?reason=other`;
    expect((await back(randomUUID(), 'token=X')).location).toBe(other);
    expect((await get('/api/payments/paypal/return?order=not-a-uuid')).location).toBe(other);
    expect((await get('/api/payments/paypal/return')).location).toBe(other);
    expect((await get(`/api/payments/paypal/cancel?order=${randomUUID()}`)).location).toBe(other);
    const second = await standardOrder(token);
    fake.approveOrder(second.paypalId);
    expect((await back(second.orderId, `token=${paypalId}`)).location).toBe(other);
    expect(requestsTo('POST', /\/capture$/)).toHaveLength(1);
  });

  it('completes the order from PAYMENT.CAPTURE.COMPLETED when the return never came; REFUNDED marks the invoice', async () => {
    const { token } = await register(app);
    const { paypalId, orderId } = await standardOrder(token, { plan: 'pro', billingCycle: 'yearly' });
    const capture = {
      id: 'CAPTURE-HOOK',
      status: 'COMPLETED',
      amount: { currency_code: 'USD', value: '167.92' },
      custom_id: orderId,
    };
    const done = await webhook({ event_type: 'PAYMENT.CAPTURE.COMPLETED', resource: capture });
    expect(done).toEqual({ status: 200, json: { received: true, duplicate: false } });
    expect(await status(token)).toMatchObject({ plan: 'pro', standing: 'active', billingCycle: 'yearly' });
    expect(await back(orderId, `token=${paypalId}`)).toEqual({
      status: 302,
      location: `${PUBLIC_URL}/payment-success?tx=CAPTURE-HOOK`,
    });
    expect(requestsTo('POST', /\/capture$/)).toHaveLength(0);

    // PayPal's v2 refund: this refund's amount, and its `up` link names the capture. A partial refund
    // first (the invoice shows what was refunded), then the rest.
    const refund = (id: string, value: string) => ({
      id,
      status: 'COMPLETED',
      amount: { currency_code: 'USD', value },
      links: [{ rel: 'up', href: `${fake.url}/v2/payments/captures/CAPTURE-HOOK`, method: 'GET' }],
    });
    const part = { event_type: 'PAYMENT.CAPTURE.REFUNDED', resource: refund('REFUND-1', '67.92') };
    expect((await webhook(part)).status).toBe(200);
    expect((await webhook(part)).status).toBe(200);
    expect(await history(token)).toEqual([
      expect.objectContaining({ amount: 167.92, refundedAmount: 67.92, status: 'paid' }),
    ]);
    const rest = { event_type: 'PAYMENT.CAPTURE.REFUNDED', resource: refund('REFUND-2', '100.00') };
    expect((await webhook(rest)).status).toBe(200);
    expect(await history(token)).toEqual([
      expect.objectContaining({
        amount: 167.92,
        description: 'Pro (yearly)',
        refundedAmount: 167.92,
        status: 'refunded',
      }),
    ]);
  });

  it('refuses PayPal with 409 on a server without PayPal keys', async () => {
    const bare = createTestApp(db);
    const { token } = await register(bare);
    const res = await call(bare, 'POST', '/api/payments/create-paypal-payment', {
      token,
      body: { plan: 'starter', billingCycle: 'monthly', provider: 'paypal_standard' },
    });
    expect(res.status).toBe(409);
    expect((await bare.request('/api/payments/paypal/return?order=x')).status).toBe(404);
  });
});

describe('PayPal Business: subscriptions and webhooks', () => {
  it('activates on ACTIVATED, stores each event once and refuses unverified deliveries', async () => {
    const { token } = await register(app);
    const { subId, orderId, redirectUrl } = await businessOrder(token);
    expect(redirectUrl).toBe(`${fake.url}/webapps/billing/subscriptions?ba_token=BA-${subId}`);
    const created = requestsTo('POST', /^\/v1\/billing\/subscriptions$/).at(-1);
    expect(created?.headers['paypal-request-id']).toBe(`subscription-${orderId}`);
    expect(created?.body.application_context).toMatchObject({
      user_action: 'SUBSCRIBE_NOW',
      return_url: `${PUBLIC_URL}/api/payments/paypal/return?order=${orderId}`,
    });
    const plan = requestsTo('POST', /^\/v1\/billing\/plans$/).at(-1)?.body;
    expect(plan).toMatchObject({
      product_id: 'BERTH-HOSTING',
      name: 'Berth Starter (monthly) 3.99 USD',
      billing_cycles: [
        {
          frequency: { interval_unit: 'MONTH', interval_count: 1 },
          pricing_scheme: { fixed_price: { value: '3.99', currency_code: 'USD' } },
        },
      ],
    });

    // Approved but not charged yet: pending, the webhook finishes.
    fake.approveSubscription(subId, 'APPROVED');
    expect(await back(orderId, `subscription_id=${subId}&ba_token=BA-${subId}&token=EC-1`)).toEqual({
      status: 302,
      location: `${PUBLIC_URL}/payment-success?tx=${subId}`,
    });
    expect((await orderRow(orderId)).status).toBe('pending');
    expect((await status(token)).standing).toBe('trial');

    const next = new Date(Date.now() + 31 * DAY);
    fake.approveSubscription(subId, 'ACTIVE', next);
    const event = { event_type: 'BILLING.SUBSCRIPTION.ACTIVATED', resource: { id: subId, status: 'ACTIVE' } };
    expect(await webhook({ ...event, id: 'WH-ACTIVATED' })).toEqual({
      status: 200,
      json: { received: true, duplicate: false },
    });
    expect(await status(token)).toMatchObject({
      plan: 'starter',
      standing: 'active',
      nextBillingDate: next.toISOString(),
    });
    const row = await db.selectFrom('subscriptions').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ provider: 'paypal_business', provider_subscription_id: subId });
    expect(await history(token)).toEqual([
      expect.objectContaining({
        amount: 3.99,
        provider: 'paypal_business',
        description: 'Starter (monthly)',
      }),
    ]);

    // The same event again: acknowledged as a duplicate, nothing more happens.
    const getsBefore = requestsTo('GET', /^\/v1\/billing\/subscriptions\//).length;
    const notesBefore = (await call(app, 'GET', '/api/notifications', { token })).json.items.length;
    expect(await webhook({ ...event, id: 'WH-ACTIVATED' })).toEqual({
      status: 200,
      json: { received: true, duplicate: true },
    });
    expect(requestsTo('GET', /^\/v1\/billing\/subscriptions\//)).toHaveLength(getsBefore);
    expect((await call(app, 'GET', '/api/notifications', { token })).json.items).toHaveLength(notesBefore);
    expect(await history(token)).toHaveLength(1);
    expect((await back(orderId, `subscription_id=${subId}`)).location).toBe(
      `${PUBLIC_URL}/payment-success?tx=${subId}`,
    );

    // PayPal says the signature is not theirs; or the headers are missing.
    fake.state.verification = 'FAILURE';
    const forged = await webhook({ event_type: 'BILLING.SUBSCRIPTION.EXPIRED', resource: { id: subId } });
    expect(forged.status).toBe(400);
    expect(forged.json.message).toBe('Invalid webhook signature');
    fake.state.verification = 'SUCCESS';
    const unsigned = await webhook(
      { event_type: 'BILLING.SUBSCRIPTION.EXPIRED', resource: { id: subId } },
      null,
    );
    expect(unsigned.status).toBe(400);
    expect((await status(token)).standing).toBe('active');
    const verify = requestsTo('POST', /verify-webhook-signature$/).at(-1);
    expect(verify?.body).toMatchObject({ webhook_id: FAKE_PAYPAL.webhookId, auth_algo: 'SHA256withRSA' });
    expect(verify?.body.webhook_event.event_type).toBe('BILLING.SUBSCRIPTION.EXPIRED');
  });

  it('renews on PAYMENT.SALE.COMPLETED, keeps the paid period on CANCELLED and suspends instances on EXPIRED', async () => {
    const { token, user } = await register(app);
    const userId = String(user.id);
    const { subId, orderId } = await businessOrder(token);
    fake.approveSubscription(subId, 'ACTIVE');
    expect((await back(orderId, `subscription_id=${subId}`)).location).toBe(
      `${PUBLIC_URL}/payment-success?tx=${subId}`,
    );
    expect((await status(token)).standing).toBe('active');
    await insertInstanceRows(db, userId, 1);

    // The first sale is the payment the return recorded; the second a renewal.
    const sale = (id: string) => ({
      event_type: 'PAYMENT.SALE.COMPLETED',
      resource: {
        id,
        state: 'completed',
        billing_agreement_id: subId,
        amount: { total: '3.99', currency: 'USD' },
      },
    });
    await webhook(sale('SALE-1'));
    expect(await history(token)).toHaveLength(1);
    const renewed = new Date(Date.now() + 61 * DAY);
    const paypalSub = fake.subscriptions.get(subId);
    if (!paypalSub) throw new Error('no subscription');
    paypalSub.billing_info.cycle_executions[0].cycles_completed = 2;
    paypalSub.billing_info.next_billing_time = renewed.toISOString();
    expect((await webhook(sale('SALE-2'))).status).toBe(200);
    expect(await history(token)).toHaveLength(2);
    expect((await status(token)).nextBillingDate).toBe(renewed.toISOString());

    // Cancel at period end: PayPal's subscription is cancelled; it cannot be resumed.
    const cancel = await call(app, 'PUT', '/api/subscriptions/cancel-at-period-end', {
      token,
      body: { cancelAtPeriodEnd: true },
    });
    expect(cancel.status).toBe(200);
    expect(cancel.json).toMatchObject({ cancelAtPeriodEnd: true, standing: 'active' });
    expect(paypalSub.status).toBe('CANCELLED');
    const resume = await call(app, 'PUT', '/api/subscriptions/cancel-at-period-end', {
      token,
      body: { cancelAtPeriodEnd: false },
    });
    // PayPal has no un-cancel: a clear 409, and the flag stays.
    expect(resume.status).toBe(409);
    expect(resume.json.error).toBe('conflict');
    expect((await status(token)).cancelAtPeriodEnd).toBe(true);
    await webhook({ event_type: 'BILLING.SUBSCRIPTION.CANCELLED', resource: { id: subId } });
    expect(await status(token)).toMatchObject({ standing: 'active', cancelAtPeriodEnd: true });

    paypalSub.status = 'EXPIRED';
    await webhook({ event_type: 'BILLING.SUBSCRIPTION.EXPIRED', resource: { id: subId } });
    expect(await status(token)).toMatchObject({ standing: 'inactive' });
    const instance = await db.selectFrom('instances').select('suspended').executeTakeFirstOrThrow();
    expect(instance.suspended).toBe(true);
  });

  it('sells an additional instance on an active Starter as its own subscription', async () => {
    const { token } = await register(app);
    const first = await standardOrder(token);
    fake.approveOrder(first.paypalId);
    await back(first.orderId, `token=${first.paypalId}`);
    expect(await status(token)).toMatchObject({ maxInstances: 1, standing: 'active' });

    const { subId, orderId } = await businessOrder(token, { purchaseType: 'addon_instance' });
    expect(requestsTo('POST', /^\/v1\/billing\/plans$/).at(-1)?.body.name).toBe(
      'Berth Additional instance (monthly) 3.99 USD',
    );
    fake.approveSubscription(subId, 'ACTIVE');
    expect((await back(orderId, `subscription_id=${subId}`)).location).toBe(
      `${PUBLIC_URL}/payment-success?tx=${subId}`,
    );
    expect(await status(token)).toMatchObject({
      plan: 'starter',
      standing: 'active',
      maxInstances: 2,
      planLabel: 'Starter + Additional Instance',
    });
    // The plan itself is still billed as before.
    const row = await db.selectFrom('subscriptions').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      provider: 'paypal_standard',
      provider_subscription_id: null,
      addon_instances: 1,
    });
    expect((await history(token)).map((i: { description: string }) => i.description)).toEqual(
      expect.arrayContaining(['Starter (monthly)', 'Additional instance (monthly)']),
    );

    // The buyer cancels the add-on's subscription at PayPal: one instance less, once.
    const paypalSub = fake.subscriptions.get(subId);
    if (paypalSub) paypalSub.status = 'CANCELLED';
    await webhook({ event_type: 'BILLING.SUBSCRIPTION.CANCELLED', resource: { id: subId } });
    await webhook({ event_type: 'BILLING.SUBSCRIPTION.EXPIRED', resource: { id: subId } });
    expect(await status(token)).toMatchObject({
      standing: 'active',
      maxInstances: 1,
      cancelAtPeriodEnd: false,
    });
  });

  it('fetches the access token once and reuses it; the catalog plan is created once', async () => {
    const tokensBefore = fake.state.tokensIssued;
    const a = await register(app);
    const b = await register(app);
    await businessOrder(a.token);
    await businessOrder(b.token);
    await standardOrder(a.token);
    expect(fake.state.tokensIssued - tokensBefore).toBe(1);
    const tokenCalls = fake.requests.filter((r) => r.path === '/v1/oauth2/token');
    expect(tokenCalls.at(-1)?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${FAKE_PAYPAL.clientId}:${FAKE_PAYPAL.clientSecret}`).toString('base64')}`,
    );
    const calls = fake.requests.filter((r) => r.path !== '/v1/oauth2/token');
    for (const r of calls) expect(r.headers.authorization).toMatch(/^Bearer A21-/);
    const posts = calls.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(3);
    for (const r of posts) expect(r.headers['paypal-request-id'], r.path).toBeTruthy();
    // A fresh server (restart) finds the plan on PayPal by name instead of creating another.
    const plansBefore = requestsTo('POST', /^\/v1\/billing\/plans$/).length;
    app = newApp();
    await businessOrder((await register(app)).token);
    expect(requestsTo('POST', /^\/v1\/billing\/plans$/)).toHaveLength(plansBefore);
  });

  it('cannot resume a cancelled PayPal subscription (PayPal has no un-cancel)', async () => {
    const paypal = createPayPal(
      { ...FAKE_PAYPAL, apiBase: fake.url },
      {
        db,
        now: () => new Date(),
        subscriptions: {} as never,
        notifications: {} as never,
        publicUrl: PUBLIC_URL,
      },
    );
    const row = { user_id: randomUUID(), provider: 'paypal_business', provider_subscription_id: 'I-1' };
    const resume = paypal.business.setCancelAtPeriodEnd(row as never, false);
    await expect(resume).rejects.toThrow(ConflictError);
    await expect(resume).rejects.toThrow(PAYPAL_CANNOT_RESUME);
    expect(fake.requests).toHaveLength(0);
  });

  it('replaces the PayPal subscription of the old plan when another plan is bought', async () => {
    const { token } = await register(app);
    const starter = await businessOrder(token);
    fake.approveSubscription(starter.subId, 'ACTIVE');
    await back(starter.orderId, `subscription_id=${starter.subId}`);
    const pro = await businessOrder(token, { plan: 'pro', billingCycle: 'yearly' });
    expect(requestsTo('POST', /^\/v1\/billing\/plans$/).at(-1)?.body).toMatchObject({
      name: 'Berth Pro (yearly) 167.92 USD',
      billing_cycles: [{ frequency: { interval_unit: 'YEAR' } }],
    });
    fake.approveSubscription(pro.subId, 'ACTIVE');
    const done = await webhook({ event_type: 'BILLING.SUBSCRIPTION.ACTIVATED', resource: { id: pro.subId } });
    expect(done.json).toEqual({ received: true, duplicate: false });
    expect(await status(token)).toMatchObject({ plan: 'pro', billingCycle: 'yearly', standing: 'active' });
    expect(fake.subscriptions.get(starter.subId)?.status).toBe('CANCELLED');
    expect(fake.subscriptions.get(pro.subId)?.status).toBe('ACTIVE');
    // The old subscription's CANCELLED event no longer concerns the plan.
    await webhook({ event_type: 'BILLING.SUBSCRIPTION.CANCELLED', resource: { id: starter.subId } });
    expect((await status(token)).cancelAtPeriodEnd).toBe(false);
    // An event about a subscription PayPal does not know changes nothing.
    const unknown = await webhook({
      event_type: 'BILLING.SUBSCRIPTION.EXPIRED',
      resource: { id: 'I-UNKNOWN' },
    });
    expect(unknown.status).toBe(200);
    expect((await status(token)).standing).toBe('active');
  });

  it('caches the token until shortly before it expires', async () => {
    let clock = Date.parse('2026-05-01T00:00:00Z');
    const client = createPayPalClient({ ...FAKE_PAYPAL, apiBase: fake.url }, () => new Date(clock));
    const first = await client.accessToken();
    clock += 8 * 3600_000; // PayPal's tokens last 9 hours (expires_in 32400)
    expect(await client.accessToken()).toBe(first);
    clock += 3600_000;
    expect(await client.accessToken()).not.toBe(first);
    expect(fake.requests.filter((r) => r.path === '/v1/oauth2/token')).toHaveLength(2);
    const wrong = createPayPalClient({ ...FAKE_PAYPAL, clientSecret: 'nope', apiBase: fake.url });
    await expect(wrong.accessToken()).rejects.toThrow(/invalid_client/);
  });
});
