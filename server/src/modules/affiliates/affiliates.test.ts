import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER, newAffiliate } from '../../../test/affiliate-fixtures.ts';
import {
  call,
  createTestApp,
  newAccount,
  register,
  registerAdmin,
  type TestApp,
} from '../../../test/create-test-app.ts';
import { fakeStripeForFile } from '../../../test/stripe-fixture.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import type { Db } from '../../db/database.ts';
import {
  BANK_REQUIRED,
  CODE_TAKEN,
  INVALID_PAYOUT_AMOUNT,
  NOT_AN_AFFILIATE,
  PAYOUT_EXCEEDS_BALANCE,
  PAYPAL_EMAIL_REQUIRED,
} from './affiliate-program.ts';
import { REFERRAL_COOKIE } from './referral-cookie.ts';

/**
 * The affiliate programme over HTTP on the real test database: clicks and the referral cookie,
 * attribution at registration, commissions from real (local fake) Stripe payments, the hold, refunds,
 * payouts and the admin's side.
 */

const WEBHOOK_SECRET = 'whsec_test_affiliates';
const DAY = 86_400_000;
let db: Db;
let app: TestApp;
/** The app's clock (the 30-day hold and cookie window are checked against it). */
let clock: Date;

const stripe = fakeStripeForFile(WEBHOOK_SECRET);

beforeAll(async () => {
  ({ db } = await createTestDatabase());
});
beforeEach(async () => {
  await truncateAll(db);
  clock = new Date();
  app = createTestApp(db, {
    now: () => clock,
    publicUrl: 'http://app.test',
    payments: stripe.payments(),
  });
  stripe.connect(app);
});

/** A request with the browser's headers: user agent, cookie, token. */
async function send(
  method: string,
  path: string,
  opts: { token?: string; cookie?: string; agent?: string; body?: unknown } = {},
) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': opts.agent ?? BROWSER,
  };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.cookie) headers.cookie = opts.cookie;
  const res = await app.request(path, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

/** `berth_ref=<id>` from a Set-Cookie header, with its Max-Age. */
function cookieOf(headers: Headers) {
  const set = headers.get('set-cookie') ?? '';
  const value = new RegExp(`${REFERRAL_COOKIE}=([^;]+)`).exec(set)?.[1];
  const maxAge = Number(/Max-Age=(\d+)/i.exec(set)?.[1]);
  return { cookie: value ? `${REFERRAL_COOKIE}=${value}` : undefined, maxAge, set };
}

/** A new user who joins as an affiliate (PayPal); answers the token, user id and referral code. */
const affiliate = () =>
  newAffiliate(app, {
    paymentMethod: 'paypal',
    paypalEmail: 'payouts@example.com',
    website: 'https://blog.example.com',
  });

const dashboard = async (token: string) =>
  (await call(app, 'GET', '/api/affiliates/dashboard', { token })).json;
const click = (code: string, opts: { agent?: string; token?: string } = {}) =>
  send('POST', `/api/affiliates/track-click/${code}`, opts);

/** Registers a visitor with the referral cookie and/or a ref parameter; answers the token. */
async function registerWith(opts: { cookie?: string; ref?: string }) {
  const res = await send('POST', '/api/auth/register', {
    cookie: opts.cookie,
    body: newAccount(opts.ref ? { ref: opts.ref } : {}),
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return { token: String(res.json.token), userId: String(res.json.user.id) };
}

const referralOf = (userId: string) =>
  db.selectFrom('affiliate_referrals').selectAll().where('user_id', '=', userId).executeTakeFirst();
const ledger = () => db.selectFrom('affiliate_ledger').selectAll().orderBy('created_at').execute();

/** The referred user subscribes through Stripe Checkout; answers the events (to resend) and the invoice. */
const payStripe = (token: string, plan?: 'starter' | 'pro', billingCycle?: 'monthly' | 'yearly') =>
  stripe.subscribe(app, token, plan, billingCycle);

describe('affiliate profile', () => {
  it('a visitor gets 401, a user without a profile 404; joining needs the payout details (spec messages)', async () => {
    expect((await call(app, 'GET', '/api/affiliates/dashboard')).status).toBe(401);
    const { token, user } = await register(app);
    expect(user).toMatchObject({ affiliateStatus: null, isAffiliate: false });
    for (const path of ['dashboard', 'me', 'stats', 'payouts'] as const) {
      const res = await call(app, 'GET', `/api/affiliates/${path}`, { token });
      expect(res.status).toBe(404);
      expect(res.json.message).toBe(NOT_AN_AFFILIATE);
    }
    const bank = await call(app, 'POST', '/api/affiliates/register', {
      token,
      body: { paymentMethod: 'bank' },
    });
    expect(bank.status).toBe(400);
    expect(bank.json.message).toBe(BANK_REQUIRED);
    // The PayPal e-mail falls back to the account's.
    const ok = await call(app, 'POST', '/api/affiliates/register', {
      token,
      body: { paymentMethod: 'paypal', website: '' },
    });
    expect(ok.status).toBe(201);
    expect(ok.json.affiliate).toMatchObject({ paymentMethod: 'paypal', paypalEmail: user.email });
    expect(ok.json.affiliate.referralCode).toMatch(/^[A-Z0-9]{8}$/);
    expect(
      (await call(app, 'POST', '/api/affiliates/register', { token, body: { paymentMethod: 'paypal' } }))
        .status,
    ).toBe(409);
    const profile = await call(app, 'GET', '/api/auth/profile', { token });
    expect(profile.json.user).toMatchObject({ affiliateStatus: 'active', isAffiliate: true });
  });

  it('stores payout details encrypted; settings change code (unique, upper-cased) and details', async () => {
    const a = await affiliate();
    const b = await affiliate();
    const row = await db
      .selectFrom('affiliates')
      .select('payment_details')
      .where('user_id', '=', a.userId)
      .executeTakeFirstOrThrow();
    expect(row.payment_details).not.toContain('payouts@example.com');

    const renamed = await call(app, 'PUT', '/api/affiliates/referral', {
      token: a.token,
      body: { referralCode: ' my-code ', referralName: 'Ada', referralNumber: '42' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({
      referralCode: 'MY-CODE',
      referralName: 'Ada',
      referralNumber: '42',
    });
    const taken = await call(app, 'PUT', '/api/affiliates/referral', {
      token: b.token,
      body: { referralCode: 'my-code' },
    });
    expect(taken.status).toBe(409);
    expect(taken.json.message).toBe(CODE_TAKEN);
    const bad = await call(app, 'PUT', '/api/affiliates/referral', {
      token: b.token,
      body: { referralCode: 'a b' },
    });
    expect(bad.status).toBe(400);

    const noEmail = await call(app, 'PUT', '/api/affiliates/payment-details', {
      token: a.token,
      body: { paymentMethod: 'paypal' },
    });
    expect(noEmail.json.message).toBe(PAYPAL_EMAIL_REQUIRED);
    const crypto = await call(app, 'PUT', '/api/affiliates/payment-details', {
      token: a.token,
      body: { paymentMethod: 'crypto', cryptoWallet: { address: '0xabc', network: 'ethereum' } },
    });
    expect(crypto.status).toBe(200);
    const me = await call(app, 'GET', '/api/affiliates/me', { token: a.token });
    expect(me.json).toMatchObject({
      paymentMethod: 'crypto',
      cryptoWallet: { address: '0xabc' },
      referralCode: 'MY-CODE',
    });

    const kept = await call(app, 'POST', '/api/affiliates/generate-code', { token: a.token });
    expect(kept.json).toEqual({
      referralCode: 'MY-CODE',
      referralLink: 'http://app.test/register?ref=MY-CODE',
      homepageLink: 'http://app.test/?ref=MY-CODE',
    });
    const fresh = await call(app, 'POST', '/api/affiliates/generate-code?force=true', { token: a.token });
    expect(fresh.json.referralCode).not.toBe('MY-CODE');
  });
});

describe('clicks and attribution', () => {
  it('counts a click once per visitor per day, ignores bots and the affiliate; sets a 30-day cookie', async () => {
    const a = await affiliate();
    const first = await click(a.code.toLowerCase());
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ tracked: true, counted: true });
    const { cookie, maxAge, set } = cookieOf(first.headers);
    expect(cookie).toBeDefined();
    expect(maxAge).toBe(30 * 24 * 60 * 60);
    expect(set).toMatch(/HttpOnly/i);
    expect((await click(a.code)).json).toEqual({ tracked: true, counted: false });
    expect((await click(a.code, { agent: 'Googlebot/2.1 (+http://www.google.com/bot.html)' })).json).toEqual({
      tracked: false,
      counted: false,
    });
    expect((await click(a.code, { token: a.token })).json).toEqual({ tracked: false, counted: false });
    expect((await click(a.code, { agent: `${BROWSER} Other` })).json.counted).toBe(true);
    // The next day the same visitor counts again.
    clock = new Date(clock.getTime() + DAY);
    expect((await click(a.code)).json.counted).toBe(true);
    expect((await dashboard(a.token)).totalClicks).toBe(3);
    expect((await click('NOPE-NOPE')).status).toBe(404);
  });

  it('attributes by the cookie (last click wins), else by ref; an expired click does not; never to oneself', async () => {
    const a = await affiliate();
    const b = await affiliate();
    const fromA = cookieOf((await click(a.code)).headers).cookie;
    const fromB = cookieOf((await click(b.code, { agent: `${BROWSER} 2` })).headers).cookie;
    // The last click (B) wins over an older cookie value and over the ref parameter.
    const u1 = await registerWith({ cookie: fromB, ref: a.code });
    expect((await referralOf(u1.userId))?.affiliate_id).toBe(
      (
        await db
          .selectFrom('affiliates')
          .select('id')
          .where('user_id', '=', b.userId)
          .executeTakeFirstOrThrow()
      ).id,
    );
    // Only the ref parameter: its affiliate.
    const u2 = await registerWith({ ref: a.code.toLowerCase() });
    expect((await referralOf(u2.userId))?.click_id).toBeNull();
    expect((await dashboard(a.token)).totalReferrals).toBe(1);
    // A click older than 30 days attributes nothing.
    clock = new Date(clock.getTime() + 31 * DAY);
    const u3 = await registerWith({ cookie: fromA });
    expect(await referralOf(u3.userId)).toBeUndefined();
    // Unknown code: an ordinary registration.
    const u4 = await registerWith({ ref: 'UNKNOWN1' });
    expect(await referralOf(u4.userId)).toBeUndefined();
    // The affiliate's own click is not counted and sets no cookie.
    expect(cookieOf((await click(a.code, { token: a.token })).headers).cookie).toBeUndefined();
    expect((await dashboard(b.token)).totalReferrals).toBe(1);
  });
});

describe('commissions from Stripe payments', () => {
  it('20 % of the first payment once (even when the webhook comes twice); renewals earn nothing', async () => {
    const a = await affiliate();
    const visitor = cookieOf((await click(a.code)).headers).cookie;
    const customer = await registerWith({ cookie: visitor });
    const { subId, events } = await payStripe(customer.token, 'pro', 'monthly');
    // The same events again, and the paid invoice under a new event id (a provider resend).
    for (const event of events) await stripe.fake.deliver(event);
    const paid = events.find((e) => e.type === 'invoice.paid');
    expect(await stripe.fake.deliver({ ...paid, id: `${String(paid?.id)}_again` })).toBe(200);
    for (const event of stripe.fake.renew(subId)) expect(await stripe.fake.deliver(event)).toBe(200);

    const entries = await ledger();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ kind: 'commission', amount_minor: 400, currency: 'USD' });
    // 19.99 × 20 % = 4.00 (rounded to the cent), held 30 days.
    expect(entries[0]?.available_at.getTime()).toBe(clock.getTime() + 30 * DAY);
    const d = await dashboard(a.token);
    expect(d).toMatchObject({
      totalEarnings: 4,
      pendingEarnings: 4,
      availableBalance: 0,
      heldEarnings: 4,
      totalReferrals: 1,
      activeReferrals: 1,
      totalClicks: 1,
      conversionRate: 100,
    });
    const stats = await call(app, 'GET', `/api/affiliates/stats?year=${clock.getUTCFullYear()}`, {
      token: a.token,
    });
    expect(stats.json.totals).toEqual({ clicks: 1, referrals: 1, activeReferrals: 1, earnings: 4 });
    expect(stats.json.months[clock.getUTCMonth()]).toMatchObject({ clicks: 1, referrals: 1, earnings: 4 });
  });

  it('a customer nobody referred earns nobody anything; the referred yearly Starter earns 20 % of it', async () => {
    const a = await affiliate();
    const alone = await register(app);
    await payStripe(alone.token);
    expect(await ledger()).toHaveLength(0);
    const customer = await registerWith({ ref: a.code });
    await payStripe(customer.token, 'starter', 'yearly');
    // 43.09 × 20 % = 8.618 → 8.62.
    expect((await ledger()).map((e) => e.amount_minor)).toEqual([862]);
  });

  it('a refund inside the hold claws the commission back; after the hold it is an adjustment', async () => {
    const a = await affiliate();
    const c1 = await registerWith({ ref: a.code });
    const first = await payStripe(c1.token);
    for (const event of stripe.fake.refund(first.invoiceId))
      expect(await stripe.fake.deliver(event)).toBe(200);
    let d = await dashboard(a.token);
    expect(d).toMatchObject({ totalEarnings: 0, pendingEarnings: 0, availableBalance: 0 });
    // Past the hold the clawed-back commission stays at zero.
    clock = new Date(clock.getTime() + 31 * DAY);
    expect((await dashboard(a.token)).availableBalance).toBe(0);

    const c2 = await registerWith({ ref: a.code });
    const second = await payStripe(c2.token);
    clock = new Date(clock.getTime() + 31 * DAY);
    d = await dashboard(a.token);
    expect(d).toMatchObject({
      availableBalance: 4,
      pendingEarnings: 4,
      activeReferrals: 2,
      totalReferrals: 2,
    });
    for (const event of stripe.fake.refund(second.invoiceId))
      expect(await stripe.fake.deliver(event)).toBe(200);
    // Resent: still one adjustment.
    for (const event of stripe.fake.refund(second.invoiceId)) await stripe.fake.deliver(event);
    expect((await ledger()).map((e) => [e.kind, e.amount_minor])).toEqual([
      ['commission', 400],
      ['clawback', -400],
      ['commission', 400],
      ['adjustment', -400],
    ]);
    expect((await dashboard(a.token)).availableBalance).toBe(0);
  });

  it('a chargeback (Stripe dispute) inside the hold claws the commission back', async () => {
    const a = await affiliate();
    const customer = await registerWith({ ref: a.code });
    const { invoiceId } = await payStripe(customer.token);
    for (const event of stripe.fake.dispute(invoiceId)) expect(await stripe.fake.deliver(event)).toBe(200);
    expect((await ledger()).map((e) => [e.kind, e.amount_minor])).toEqual([
      ['commission', 400],
      ['clawback', -400],
    ]);
    expect(await dashboard(a.token)).toMatchObject({ pendingEarnings: 0, totalEarnings: 0 });
  });
});

describe('payouts', () => {
  /** An affiliate with `n` paid Pro referrals past the hold ($4.00 each). */
  async function earning(n: number) {
    const a = await affiliate();
    for (let i = 0; i < n; i++) await payStripe((await registerWith({ ref: a.code })).token);
    clock = new Date(clock.getTime() + 31 * DAY);
    return a;
  }

  it('refuses invalid, below-minimum and above-balance amounts with the spec messages', async () => {
    const app50 = app;
    const a = await earning(1);
    const list = await call(app50, 'GET', '/api/affiliates/payouts', { token: a.token });
    expect(list.json).toMatchObject({
      minimumPayout: 50,
      availableBalance: 4,
      pendingEarnings: 4,
      payouts: [],
    });
    const ask = (amount: number | string) =>
      call(app, 'POST', '/api/affiliates/payouts', { token: a.token, body: { amount } });
    expect((await ask(0)).json.message).toBe(INVALID_PAYOUT_AMOUNT);
    expect((await ask('abc')).json.message).toBe(INVALID_PAYOUT_AMOUNT);
    expect((await ask(10)).json.message).toBe('Minimum payout amount is $50');
    expect((await ask(60)).json.message).toBe(PAYOUT_EXCEEDS_BALANCE);
    expect((await ask(60)).status).toBe(400);
  });

  it('pays out (minimum from the server); the admin completes or fails it; balances and history follow', async () => {
    app = createTestApp(db, {
      now: () => clock,
      publicUrl: 'http://app.test',
      affiliateMinimumPayoutMinor: 500,
      payments: stripe.payments(),
    });
    stripe.connect(app);
    const admin = await registerAdmin(app, db);
    const a = await earning(3);
    const ask = (amount: number) =>
      call(app, 'POST', '/api/affiliates/payouts', { token: a.token, badBody: { amount } });
    expect((await ask(4)).json.message).toBe('Minimum payout amount is $5');
    const first = await ask(5);
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({
      payout: { amount: 5, status: 'pending', method: 'paypal' },
      pendingEarnings: 7,
      availableBalance: 7,
      message: 'Payout request submitted successfully!',
    });
    clock = new Date(clock.getTime() + 1000);
    const second = await ask(7);
    expect(second.status).toBe(201);
    expect((await ask(5)).json.message).toBe(PAYOUT_EXCEEDS_BALANCE);

    const asUser = await call(app, 'GET', '/api/admin/affiliate-payouts', { token: a.token });
    expect(asUser.status).toBe(403);
    const pending = await call(app, 'GET', '/api/admin/affiliate-payouts?status=pending', {
      token: admin.token,
    });
    expect(pending.json.items).toHaveLength(2);
    expect(pending.json.items[0]).toMatchObject({
      paymentMethod: 'paypal',
      paypalEmail: 'payouts@example.com',
    });

    const done = await call(app, 'POST', `/api/admin/affiliate-payouts/${first.json.payout.id}/complete`, {
      token: admin.token,
      body: { transactionId: 'PAYPAL-TX-1' },
    });
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ status: 'completed', transactionId: 'PAYPAL-TX-1' });
    const again = await call(app, 'POST', `/api/admin/affiliate-payouts/${first.json.payout.id}/fail`, {
      token: admin.token,
      body: {},
    });
    expect(again.status).toBe(409);
    const failed = await call(app, 'POST', `/api/admin/affiliate-payouts/${second.json.payout.id}/fail`, {
      token: admin.token,
      body: { reason: 'PayPal account closed' },
    });
    expect(failed.json.status).toBe('failed');

    const list = await call(app, 'GET', '/api/affiliates/payouts', { token: a.token });
    expect(list.json).toMatchObject({ minimumPayout: 5, pendingEarnings: 7, availableBalance: 7 });
    expect(
      list.json.payouts.map((p: { status: string; transactionId: string | null }) => [
        p.status,
        p.transactionId,
      ]),
    ).toEqual([
      ['failed', null],
      ['completed', 'PAYPAL-TX-1'],
    ]);
    const d = await dashboard(a.token);
    expect(d).toMatchObject({ totalEarnings: 12, pendingEarnings: 7 });
    const notes = await call(app, 'GET', '/api/notifications', { token: a.token });
    const titles = JSON.stringify(notes.json);
    expect(titles).toContain('Payout sent');
    expect(titles).toContain('Payout failed');
  });

  it("another affiliate's payouts are not reachable; admin routes need an admin", async () => {
    await registerAdmin(app, db);
    const a = await earning(0);
    const b = await affiliate();
    const stranger = await register(app);
    // Every affiliate call answers for the caller only: another user's profile is a 404 for them.
    expect((await call(app, 'GET', '/api/affiliates/payouts', { token: stranger.token })).status).toBe(404);
    expect((await call(app, 'GET', '/api/affiliates/me', { token: b.token })).json.referralCode).not.toBe(
      a.code,
    );
    const fake404 = await call(
      app,
      'POST',
      '/api/admin/affiliate-payouts/00000000-0000-4000-8000-000000000000/complete',
      {
        token: b.token,
        body: { transactionId: 'x' },
      },
    );
    expect(fake404.status).toBe(403);
  });
});
