import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER, referredCustomer } from '../../../test/affiliate-fixtures.ts';
import { call, createTestServices, type TestApp } from '../../../test/create-test-app.ts';
import { fakeStripeForFile } from '../../../test/stripe-fixture.ts';
import { createTestDatabase, truncateAll } from '../../../test/test-db.ts';
import { createApp } from '../../app.ts';
import type { Db } from '../../db/database.ts';
import type { Services } from '../../services.ts';
import { CLICK_RETENTION_MONTHS, CLICK_VISITOR_DATA_DAYS } from './affiliate-program.ts';

/**
 * Partial refunds, Stripe's fee and the clicks' retention, over HTTP on the real test database with the
 * local Stripe: a refund takes back its share of the commission once (inside the hold from the pending
 * commission, after it as a negative adjustment); the commission is 20 % of what is left after tax and
 * Stripe's fee; the background sweep clears old clicks' visitor hash and keeps the clicks counted.
 */

const WEBHOOK_SECRET = 'whsec_test_affiliate_refunds';
const DAY = 86_400_000;
let db: Db;
let app: TestApp;
let services: Services;
/** The app's clock (the 30-day hold and the retention are measured against it). */
let clock: Date;

const stripe = fakeStripeForFile(WEBHOOK_SECRET);

beforeAll(async () => {
  ({ db } = await createTestDatabase());
});
beforeEach(async () => {
  await truncateAll(db);
  clock = new Date();
  stripe.fake.feeOf = () => 0;
  services = createTestServices(db, {
    now: () => clock,
    publicUrl: 'http://app.test',
    payments: stripe.payments(),
  });
  app = createApp(services, {});
  stripe.connect(app);
});

/** The customer subscribes to Pro monthly (19.99) through Stripe Checkout; answers the paid invoice. */
const payStripe = async (token: string) => (await stripe.subscribe(app, token)).invoiceId;

/** Refunds `amount` minor units of the invoice's charge at Stripe and delivers the event (answered). */
async function refund(invoiceId: string, amount?: number) {
  const [event] = stripe.fake.refund(invoiceId, amount);
  if (!event) throw new Error('no charge.refunded event');
  expect(await stripe.fake.deliver(event)).toBe(200);
  return event;
}

const ledger = async () =>
  (
    await db.selectFrom('affiliate_ledger').select(['kind', 'amount_minor']).orderBy('created_at').execute()
  ).map((e) => [e.kind, e.amount_minor]);
const dashboard = async (token: string) =>
  (await call(app, 'GET', '/api/affiliates/dashboard', { token })).json;
const history = async (token: string) =>
  (await call(app, 'GET', '/api/payments/billing-history', { token })).json.invoices;

describe('partial refunds (Stripe)', () => {
  it('inside the hold: the pending commission shrinks by the refunded share, once per refund', async () => {
    const { affiliate, customer } = await referredCustomer(app);
    const invoiceId = await payStripe(customer);
    expect(await dashboard(affiliate)).toMatchObject({ pendingEarnings: 4, heldEarnings: 4 });

    // 9.99 of 19.99 refunded: 400 × 9.99 / 19.99 = 199.9 → 2.00 clawed back.
    const first = await refund(invoiceId, 999);
    expect(await ledger()).toEqual([
      ['commission', 400],
      ['clawback', -200],
    ]);
    expect(await dashboard(affiliate)).toMatchObject({
      pendingEarnings: 2,
      heldEarnings: 2,
      availableBalance: 0,
      totalEarnings: 2,
    });
    expect(await history(customer)).toEqual([
      expect.objectContaining({ amount: 19.99, refundedAmount: 9.99, status: 'paid' }),
    ]);

    // The same event again, and again under a new event id (a provider resend): nothing more.
    expect(await stripe.fake.deliver(first)).toBe(200);
    expect(await stripe.fake.deliver({ ...first, id: `${String(first.id)}_again` })).toBe(200);
    expect(await ledger()).toHaveLength(2);
    expect((await dashboard(affiliate)).pendingEarnings).toBe(2);

    // The rest refunded (Stripe's charge now says 19.99 refunded): the commission is gone.
    await refund(invoiceId);
    expect(await ledger()).toEqual([
      ['commission', 400],
      ['clawback', -200],
      ['clawback', -200],
    ]);
    expect(await dashboard(affiliate)).toMatchObject({ pendingEarnings: 0, totalEarnings: 0 });
    expect(await history(customer)).toEqual([
      expect.objectContaining({ refundedAmount: 19.99, status: 'refunded' }),
    ]);
    // Past the hold nothing of it becomes available.
    clock = new Date(clock.getTime() + 31 * DAY);
    expect((await dashboard(affiliate)).availableBalance).toBe(0);
  });

  it('after the hold: one negative adjustment of the refunded share, even when the event is resent', async () => {
    const { affiliate, customer } = await referredCustomer(app);
    const invoiceId = await payStripe(customer);
    clock = new Date(clock.getTime() + 31 * DAY);
    expect(await dashboard(affiliate)).toMatchObject({ availableBalance: 4, pendingEarnings: 4 });

    // 5.00 of 19.99: 400 × 500 / 1999 = 100.05 → 1.00.
    const event = await refund(invoiceId, 500);
    expect(await stripe.fake.deliver({ ...event, id: `${String(event.id)}_again` })).toBe(200);
    expect(await ledger()).toEqual([
      ['commission', 400],
      ['adjustment', -100],
    ]);
    expect(await dashboard(affiliate)).toMatchObject({
      availableBalance: 3,
      pendingEarnings: 3,
      totalEarnings: 3,
    });
  });
});

describe("Stripe's fee", () => {
  it("the commission is 20 % of the amount less tax and Stripe's fee (its balance transaction)", async () => {
    // Stripe's card pricing: 2.9 % + 30 cents of 19.99 = 0.88.
    stripe.fake.feeOf = (amount) => Math.round(amount * 0.029) + 30;
    const { affiliate, customer } = await referredCustomer(app);
    const invoiceId = await payStripe(customer);
    // The newest balance transaction: this payment's charge.
    const txn = [...stripe.fake.balanceTransactions.values()].pop();
    expect(txn?.fee).toBe(88);
    // (19.99 − 0 tax − 0.88) × 20 % = 3.822 → 3.82.
    expect(await ledger()).toEqual([['commission', 382]]);
    expect(await dashboard(affiliate)).toMatchObject({ pendingEarnings: 3.82, totalEarnings: 3.82 });
    // The customer's invoice is the full amount: the fee is Berth's cost, not the customer's.
    expect(await history(customer)).toEqual([
      expect.objectContaining({ id: expect.any(String), amount: 19.99 }),
    ]);
    // A full refund takes back all of the (fee-reduced) commission.
    await refund(invoiceId);
    expect(await ledger()).toEqual([
      ['commission', 382],
      ['clawback', -382],
    ]);
  });
});

describe('click visitor data retention', () => {
  it(`clears the visitor hash of clicks older than ${CLICK_VISITOR_DATA_DAYS} days (they still count in their month) and deletes clicks older than ${CLICK_RETENTION_MONTHS} months`, async () => {
    const { affiliate, code } = await referredCustomer(app);
    const start = clock;
    const clickAt = async (at: Date, agent: string) => {
      clock = at;
      const res = await app.request(`/api/affiliates/track-click/${code}`, {
        method: 'POST',
        headers: { 'user-agent': agent },
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { counted: boolean };
    };
    // A click past the retention (deleted), one 20 months ago (mid-month, so its statement month is
    // clear), one inside the visitor-data period, one today.
    const expiredAt = new Date(
      Date.UTC(start.getUTCFullYear(), start.getUTCMonth() - CLICK_RETENTION_MONTHS - 1, 15),
    );
    const oldAt = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() - 20, 15, 12));
    const recentAt = new Date(start.getTime() - (CLICK_VISITOR_DATA_DAYS - 1) * DAY);
    await clickAt(expiredAt, `${BROWSER} expired`);
    await clickAt(oldAt, `${BROWSER} old`);
    await clickAt(recentAt, `${BROWSER} recent`);
    await clickAt(start, `${BROWSER} today`);
    clock = start;
    const keys = async () =>
      Object.fromEntries(
        (await db.selectFrom('affiliate_clicks').select(['created_at', 'visitor_key']).execute()).map((c) => [
          c.created_at.toISOString(),
          c.visitor_key,
        ]),
      );
    const { [expiredAt.toISOString()]: expiredKey, ...before } = await keys();
    expect(expiredKey).toHaveLength(64);
    expect(Object.values(before).every((k) => typeof k === 'string' && k.length === 64)).toBe(true);

    // The background sweep (background.ts runs this on a timer).
    expect(await services.affiliates.referrals.applyClickRetention()).toEqual({ deleted: 1, cleared: 1 });
    expect(await services.affiliates.referrals.applyClickRetention()).toEqual({ deleted: 0, cleared: 0 });
    expect(await keys()).toEqual({
      ...before,
      [oldAt.toISOString()]: null,
    });
    // Every click still counts: in the totals and in the old year's statement, in its month.
    expect(await dashboard(affiliate)).toMatchObject({ totalClicks: 3, totalReferrals: 1 });
    const oldYear = await call(app, 'GET', `/api/affiliates/stats?year=${oldAt.getUTCFullYear()}`, {
      token: affiliate,
    });
    expect(oldYear.status).toBe(200);
    expect(oldYear.json.months[oldAt.getUTCMonth()]).toMatchObject({
      month: oldAt.getUTCMonth() + 1,
      clicks: 1,
    });
    // Today's dedupe still works: the same visitor again today counts nothing; another visitor counts.
    expect(await clickAt(start, `${BROWSER} today`)).toMatchObject({ counted: false });
    expect(await clickAt(new Date(start.getTime() + 1000), `${BROWSER} other`)).toMatchObject({
      counted: true,
    });

    // Two days later the click that was recent is past the period too; today's keep their hash.
    clock = new Date(start.getTime() + 2 * DAY);
    expect(await services.affiliates.referrals.applyClickRetention()).toEqual({ deleted: 0, cleared: 1 });
    const after = await keys();
    expect(after[recentAt.toISOString()]).toBeNull();
    expect(after[start.toISOString()]).toBe(before[start.toISOString()]);
    expect((await dashboard(affiliate)).totalClicks).toBe(4);
  });
});
