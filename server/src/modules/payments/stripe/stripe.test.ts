import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type BodyOf,
  call,
  createTestApp,
  present,
  register,
  type TestApp,
  type Without,
} from '../../../../test/create-test-app.ts';
import { insertInstanceRows } from '../../../../test/instance-rows.ts';
import { fakeStripeForFile } from '../../../../test/stripe-fixture.ts';
import { createTestDatabase, truncateAll } from '../../../../test/test-db.ts';
import type { Db } from '../../../db/database.ts';
import { DOWNGRADE_BLOCKED_MESSAGE } from '../../subscriptions/billing-rules.ts';
import { ADDON_NEEDS_STRIPE_PLAN, NO_STRIPE_CUSTOMER } from './stripe.service.ts';

/**
 * The real `stripe` SDK against a local server that speaks Stripe's API; webhooks are signed with the
 * SDK's test-header helper and go through the app's route.
 */

const WEBHOOK_SECRET = 'whsec_test_berth';
let db: Db;
let app: TestApp;

const stripe = fakeStripeForFile(WEBHOOK_SECRET);

beforeAll(async () => {
  ({ db } = await createTestDatabase());
});
beforeEach(async () => {
  await truncateAll(db);
  app = createTestApp(db, {
    publicUrl: 'http://app.test',
    payments: stripe.payments(),
  });
  stripe.connect(app);
  stripe.fake.requests.length = 0;
});

/** The Checkout Session id at the end of its URL. */
const sessionIdOf = (url: unknown) => String(url).split('/').pop() ?? '';

const status = async (token: string) =>
  (await call(app, 'GET', '/api/subscriptions/status', { token })).json.subscription;

type CheckoutBody = BodyOf<'POST', '/api/payments/create-paypal-payment'>;

async function checkout(token: string, body: Without<CheckoutBody, 'provider'>) {
  const res = await call(app, 'POST', '/api/payments/create-paypal-payment', {
    token,
    body: { provider: 'stripe', ...body },
  });
  return res;
}

/** Subscribes through Checkout and delivers Stripe's events; answers the Stripe subscription id. */
const subscribe = async (token: string, plan: 'starter' | 'pro', billingCycle: 'monthly' | 'yearly') =>
  (await stripe.subscribe(app, token, plan, billingCycle)).subId;

describe('Stripe Checkout and webhooks', () => {
  it('trial → checkout URL → webhook → active Pro with unlimited instances and an invoice', async () => {
    const { token } = await register(app);
    expect(await status(token)).toMatchObject({ standing: 'trial', maxInstances: 1 });

    const res = await checkout(token, { plan: 'pro', billingCycle: 'monthly' });
    expect(res.status).toBe(200);
    expect(res.json.redirectUrl).toMatch(new RegExp(`^${stripe.fake.url}/checkout/cs_test_`));
    const created = stripe.fake.requests.find((r) => r.path === '/v1/checkout/sessions');
    expect(created?.body).toMatchObject({
      mode: 'subscription',
      success_url: 'http://app.test/payment-success?tx={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://app.test/payment-cancelled?reason=cancelled',
      line_items: [{ quantity: '1' }],
    });
    expect(created?.idempotencyKey).toMatch(/^checkout:[0-9a-f-]{36}$/);
    expect(created?.stripeVersion).toBe('2026-10-28.endive');
    // One customer, one Pro price at 19.99 a month.
    const price = stripe.fake.prices.get(
      String((created?.body.line_items as { price: string }[] | undefined)?.[0]?.price),
    );
    expect(price).toMatchObject({ unit_amount: 1999, currency: 'usd', recurring: { interval: 'month' } });
    expect(stripe.fake.customers.size).toBe(1);
    // The redirect alone grants nothing.
    expect(await status(token)).toMatchObject({ standing: 'trial' });

    const sessionId = sessionIdOf(res.json.redirectUrl);
    const { events } = stripe.fake.completeCheckout(sessionId);
    for (const event of events) expect(await stripe.fake.deliver(event)).toBe(200);

    const sub = await status(token);
    expect(sub).toMatchObject({ plan: 'pro', standing: 'active', maxInstances: -1, billingCycle: 'monthly' });
    const days = (Date.parse(present(sub.nextBillingDate, 'a next billing date')) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(27);
    expect(days).toBeLessThan(32);

    const history = await call(app, 'GET', '/api/payments/billing-history', { token });
    expect(history.json.invoices).toEqual([
      expect.objectContaining({
        amount: 19.99,
        currency: 'USD',
        description: 'Pro (monthly)',
        status: 'paid',
        provider: 'stripe',
        downloadUrl: expect.stringMatching(new RegExp(`^${stripe.fake.url}/invoices/in_test_`)),
      }),
    ]);
    const notes = await call(app, 'GET', '/api/notifications', { token });
    expect(JSON.stringify(notes.json)).toContain('Payment received');
  });

  it('yearly Starter is priced 43.09 a year', async () => {
    const { token } = await register(app);
    await subscribe(token, 'starter', 'yearly');
    expect(await status(token)).toMatchObject({
      plan: 'starter',
      billingCycle: 'yearly',
      standing: 'active',
    });
    const yearly = [...stripe.fake.prices.values()].find(
      (p) => (p.recurring as { interval: string }).interval === 'year',
    );
    expect(yearly?.unit_amount).toBe(4309);
  });

  it('refuses a tampered or unsigned webhook and changes nothing', async () => {
    const { token } = await register(app);
    const res = await checkout(token, { plan: 'pro', billingCycle: 'monthly' });
    const { events } = stripe.fake.completeCheckout(sessionIdOf(res.json.redirectUrl));
    const event = events[1] ?? {};
    const payload = JSON.stringify(event);
    expect(await stripe.fake.deliver(event, { tamper: (p) => p.replace('"active"', '"activf"') })).toBe(400);
    expect(await stripe.fake.deliver(event, { secret: 'whsec_wrong' })).toBe(400);
    const unsigned = await call(app, 'POST', '/api/payments/webhooks/stripe', { rawBody: payload });
    expect(unsigned.status).toBe(400);
    expect(unsigned.json).toMatchObject({
      error: 'validation_error',
      message: 'Missing Stripe-Signature header',
    });
    const { n } = await db
      .selectFrom('payment_events')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(0);
    expect(await status(token)).toMatchObject({ standing: 'trial' });
  });

  it('the same event twice changes nothing', async () => {
    const { token } = await register(app);
    const res = await checkout(token, { plan: 'starter', billingCycle: 'monthly' });
    const { events } = stripe.fake.completeCheckout(sessionIdOf(res.json.redirectUrl));
    for (const event of events) expect(await stripe.fake.deliver(event)).toBe(200);
    const paid = events[2] ?? {};
    const again = await app.request('/api/payments/webhooks/stripe', {
      method: 'POST',
      headers: {
        'stripe-signature': (await import('stripe')).default.webhooks.generateTestHeaderString({
          payload: JSON.stringify(paid),
          secret: WEBHOOK_SECRET,
        }),
      },
      body: JSON.stringify(paid),
    });
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    const history = await call(app, 'GET', '/api/payments/billing-history', { token });
    expect(history.json.invoices).toHaveLength(1);
    const notes = await call(app, 'GET', '/api/notifications', { token });
    expect(JSON.stringify(notes.json).match(/Payment received/g)).toHaveLength(1);
  });

  it('marks the invoice refunded when its payment is refunded', async () => {
    const { token } = await register(app);
    const res = await checkout(token, { plan: 'starter', billingCycle: 'monthly' });
    const { invoice, events } = stripe.fake.completeCheckout(sessionIdOf(res.json.redirectUrl));
    for (const event of events) expect(await stripe.fake.deliver(event)).toBe(200);
    for (const event of stripe.fake.refund(String(invoice.id)))
      expect(await stripe.fake.deliver(event)).toBe(200);
    const history = await call(app, 'GET', '/api/payments/billing-history', { token });
    expect(history.json.invoices).toEqual([expect.objectContaining({ status: 'refunded', amount: 3.99 })]);
  });

  it('re-fetches the subscription: a stale event cannot revive a canceled one', async () => {
    const { token } = await register(app);
    const subId = await subscribe(token, 'pro', 'monthly');
    const stale = stripe.fake.event(
      'customer.subscription.updated',
      stripe.fake.subscriptions.get(subId) ?? {},
    );
    for (const event of stripe.fake.cancel(subId)) expect(await stripe.fake.deliver(event)).toBe(200);
    expect(await status(token)).toMatchObject({ standing: 'inactive', status: 'canceled' });
    // Delivered late, the old snapshot says "active"; Stripe now says canceled.
    expect(await stripe.fake.deliver(stale)).toBe(200);
    expect(await status(token)).toMatchObject({ standing: 'inactive' });
  });

  it('renewals extend the period and add an invoice; a failed renewal notifies the user', async () => {
    const { token } = await register(app);
    const subId = await subscribe(token, 'starter', 'monthly');
    const first = Date.parse(present((await status(token)).nextBillingDate, 'a next billing date'));
    for (const event of stripe.fake.renew(subId)) expect(await stripe.fake.deliver(event)).toBe(200);
    const second = Date.parse(present((await status(token)).nextBillingDate, 'a next billing date'));
    expect((second - first) / 86_400_000).toBeGreaterThan(27);
    expect((await call(app, 'GET', '/api/payments/billing-history', { token })).json.invoices).toHaveLength(
      2,
    );
    for (const event of stripe.fake.failRenewal(subId)) expect(await stripe.fake.deliver(event)).toBe(200);
    expect(JSON.stringify((await call(app, 'GET', '/api/notifications', { token })).json)).toContain(
      'Payment failed',
    );
  });
});

describe('plan rules with Stripe', () => {
  it('refuses Pro → Starter with two instances, before anything reaches Stripe', async () => {
    const { token, user } = await register(app);
    await subscribe(token, 'pro', 'monthly');
    await insertInstanceRows(db, String(user.id), 2);
    stripe.fake.requests.length = 0;
    const res = await checkout(token, { plan: 'starter', billingCycle: 'monthly' });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ error: 'conflict', message: DOWNGRADE_BLOCKED_MESSAGE });
    expect(stripe.fake.requests).toHaveLength(0);
    expect(await status(token)).toMatchObject({ plan: 'pro', standing: 'active' });
  });

  it('adds an instance to a running Starter subscription and moves it to Pro without a second checkout', async () => {
    const { token } = await register(app);
    const subId = await subscribe(token, 'starter', 'monthly');
    const addon = await checkout(token, { purchaseType: 'addon_instance' });
    expect(addon.status).toBe(200);
    expect(addon.json.redirectUrl).toBe(`http://app.test/payment-success?tx=${subId}`);
    expect(await status(token)).toMatchObject({
      plan: 'starter',
      maxInstances: 2,
      planLabel: 'Starter + Additional Instance',
      amount: 7.98,
    });
    const update = stripe.fake.requests.find(
      (r) => r.method === 'POST' && r.path === `/v1/subscriptions/${subId}`,
    );
    expect(update?.body).toMatchObject({ proration_behavior: 'create_prorations' });
    expect(update?.idempotencyKey).toMatch(/^order:/);

    const pro = await checkout(token, { plan: 'pro', billingCycle: 'monthly' });
    expect(pro.json.redirectUrl).toBe(`http://app.test/payment-success?tx=${subId}`);
    expect(await status(token)).toMatchObject({ plan: 'pro', maxInstances: -1 });
    expect(stripe.fake.subscriptions.get(subId)?.items).toMatchObject({ data: [expect.anything()] });
    expect(stripe.fake.requests.filter((r) => r.path === '/v1/checkout/sessions')).toHaveLength(1);
  });

  it('removes the add-on (back to plain Starter) only while at most one instance is used', async () => {
    const { token, user } = await register(app);
    const subId = await subscribe(token, 'starter', 'monthly');
    expect((await checkout(token, { purchaseType: 'addon_instance' })).status).toBe(200);
    await insertInstanceRows(db, String(user.id), 2);
    const blocked = await call(app, 'DELETE', '/api/payments/addon-instance', { token });
    expect(blocked.status).toBe(409);
    expect(blocked.json.message).toBe(DOWNGRADE_BLOCKED_MESSAGE);
    await db.deleteFrom('instances').where('name', '=', 'db 1').execute();
    const removed = await call(app, 'DELETE', '/api/payments/addon-instance', { token });
    expect(removed.status).toBe(200);
    expect(removed.json).toMatchObject({ planLabel: 'Starter', maxInstances: 1, addonInstances: 0 });
    expect(stripe.fake.subscriptions.get(subId)?.items).toMatchObject({ data: [expect.anything()] });
    expect((await call(app, 'DELETE', '/api/payments/addon-instance', { token })).status).toBe(409);
  });

  it('offers the add-on only on an active Starter billed by Stripe', async () => {
    const { token } = await register(app);
    const trial = await checkout(token, { purchaseType: 'addon_instance' });
    expect(trial.status).toBe(409);
    expect(trial.json.message).toBe('An additional instance can only be added to an active Starter plan.');
    const boss = await register(app);
    await db.updateTable('users').set({ role: 'admin' }).where('id', '=', String(boss.user.id)).execute();
    const other = await register(app);
    await call(app, 'POST', `/api/admin/users/${other.user.id}/plan`, {
      token: boss.token,
      body: { plan: 'starter', billingCycle: 'monthly' },
    });
    const manual = await checkout(other.token, { purchaseType: 'addon_instance' });
    expect(manual.status).toBe(409);
    expect(manual.json.message).toBe(ADDON_NEEDS_STRIPE_PLAN);
  });
});

describe('cancellation and the portal', () => {
  it('cancels at period end: still active until Stripe ends it, then suspended', async () => {
    const { token } = await register(app);
    const subId = await subscribe(token, 'pro', 'yearly');
    const res = await call(app, 'PUT', '/api/subscriptions/cancel-at-period-end', {
      token,
      body: { cancelAtPeriodEnd: true },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ cancelAtPeriodEnd: true, standing: 'active' });
    expect(stripe.fake.subscriptions.get(subId)?.cancel_at_period_end).toBe(true);
    const undo = await call(app, 'PUT', '/api/subscriptions/cancel-at-period-end', {
      token,
      body: { cancelAtPeriodEnd: false },
    });
    expect(undo.json.cancelAtPeriodEnd).toBe(false);
    expect(stripe.fake.subscriptions.get(subId)?.cancel_at_period_end).toBe(false);
    for (const event of stripe.fake.cancel(subId)) expect(await stripe.fake.deliver(event)).toBe(200);
    expect(await status(token)).toMatchObject({ standing: 'inactive', isInactive: true });
  });

  it("an admin's revocation cancels the Stripe subscription at once", async () => {
    const boss = await register(app);
    await db.updateTable('users').set({ role: 'admin' }).where('id', '=', String(boss.user.id)).execute();
    const { token, user } = await register(app);
    const subId = await subscribe(token, 'pro', 'monthly');
    const revoked = await call(app, 'DELETE', `/api/admin/users/${user.id}/plan`, { token: boss.token });
    expect(revoked.status).toBe(200);
    expect(revoked.json).toMatchObject({ standing: 'inactive' });
    expect(stripe.fake.subscriptions.get(subId)?.status).toBe('canceled');
    // Stripe's own event about it changes nothing more.
    for (const event of stripe.fake.cancel(subId)) expect(await stripe.fake.deliver(event)).toBe(200);
    expect(await status(token)).toMatchObject({ standing: 'inactive', status: 'canceled' });
  });

  it('refuses to cancel without an active subscription', async () => {
    const { token } = await register(app);
    const res = await call(app, 'PUT', '/api/subscriptions/cancel-at-period-end', {
      token,
      body: { cancelAtPeriodEnd: true },
    });
    expect(res.status).toBe(409);
  });

  it("opens the customer portal for the user's own customer", async () => {
    const { token } = await register(app);
    const none = await call(app, 'POST', '/api/payments/stripe/portal', { token });
    expect(none.status).toBe(409);
    expect(none.json.message).toBe(NO_STRIPE_CUSTOMER);
    await subscribe(token, 'starter', 'monthly');
    const portal = await call(app, 'POST', '/api/payments/stripe/portal', { token });
    expect(portal.status).toBe(200);
    expect(portal.json.url).toMatch(new RegExp(`^${stripe.fake.url}/portal/`));
    const request = stripe.fake.requests.find((r) => r.path === '/v1/billing_portal/sessions');
    expect(request?.body).toMatchObject({ return_url: 'http://app.test/billing' });
  });
});

describe('when Stripe is unreachable', () => {
  it('answers 502 with the spec message for checkout and 502 for the portal, and stores no event', async () => {
    const errors: string[] = [];
    const down = createTestApp(db, {
      payments: {
        stripe: { secretKey: 'sk_test_x', webhookSecret: WEBHOOK_SECRET, apiBase: 'http://127.0.0.1:1' },
      },
      errorLog: (line) => errors.push(line),
    });
    const { token } = await register(down);
    const res = await call(down, 'POST', '/api/payments/create-paypal-payment', {
      token,
      body: { plan: 'pro', billingCycle: 'monthly', provider: 'stripe' },
    });
    expect(res.status).toBe(502);
    // Stripe's own error (the address it could not reach) is logged under the request id, not shown.
    const requestId = res.headers.get('x-request-id');
    expect(res.json).toEqual({
      error: 'payment_provider_error',
      message: 'Failed to create payment URL',
      details: { requestId },
    });
    const logged = errors.filter((line) => line.includes(`[${requestId}]`));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('answered 502 payment_provider_error: Failed to create payment URL');
    expect(logged[0]).toContain('caused by: Error: An error occurred with our connection to Stripe');
    const orders = await db.selectFrom('payment_orders').select('status').execute();
    expect(orders).toEqual([{ status: 'failed' }]);
  });
});

describe('without Stripe keys', () => {
  it('the method is off and checkout is refused', async () => {
    const plain = createTestApp(db);
    const { token } = await register(plain);
    const settings = await call(plain, 'GET', '/api/payments/settings', { token });
    expect(settings.json.methods.stripe.enabled).toBe(false);
    const res = await call(plain, 'POST', '/api/payments/create-paypal-payment', {
      token,
      body: { plan: 'pro', billingCycle: 'monthly', provider: 'stripe' },
    });
    expect(res.status).toBe(409);
    expect((await call(plain, 'POST', '/api/payments/webhooks/stripe', { rawBody: '{}' })).status).toBe(404);
  });
});
