// An affiliate's payout in a real browser: a referred customer's Pro payment earns the affiliate $4.00;
// once the 30-day hold is over the affiliate requests a payout on the dashboard, sees it in the payout
// history and exports the history as CSV; an admin marks it completed in Admin Panel → Affiliates and
// the affiliate's history then shows it completed with the transaction id.
import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { connectDatabase } from '../../server/src/db/connect.ts';
import { createDb, createPool } from '../../server/src/db/create-db.ts';
import {
  api,
  createAccount,
  createAffiliate,
  KATHERINE,
  openSignedIn,
  type StripeBrowserSuite,
  shot,
  stripeBrowserSuite,
  toast,
} from './helpers.ts';

const WEBHOOK_SECRET = 'whsec_e2e_affiliate_payouts';
let suite: StripeBrowserSuite;
let page: Page;

stripeBrowserSuite(
  'affiliates-payouts',
  WEBHOOK_SECRET,
  (ready) => {
    suite = ready;
    page = ready.page;
  },
  {
    // The server's minimum payout (default $50), lowered so that one Pro payment's $4.00 can be paid out.
    AFFILIATE_MIN_PAYOUT: '4',
  },
);

/**
 * Stands for 30 days passing: moves the affiliate's commission (its ledger row) 31 days into the past,
 * so its hold is over. Done through the server's own database (the embedded PostgreSQL in its data
 * directory, reached as the server's commands reach it); the server keeps no clock setting for tests.
 */
async function endCommissionHolds(dataDir: string): Promise<number> {
  const database = await connectDatabase(undefined, dataDir, () => {}, { attach: true });
  const db = createDb(createPool(database.url, 1));
  try {
    const result = await db
      .updateTable('affiliate_ledger')
      .set({
        created_at: sql<Date>`created_at - interval '31 days'`,
        available_at: sql<Date>`available_at - interval '31 days'`,
      })
      .where('kind', '=', 'commission')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  } finally {
    await db.destroy();
  }
}

/** The payout history table's rows (without the header) as the affiliate sees them. */
const historyRows = () => page.getByRole('table', { name: 'Payout history' }).getByRole('row');

describe('an affiliate payout from request to completed', () => {
  it('past the hold: request $4.00 → in the history and its CSV → admin completes it → the affiliate sees it completed', async () => {
    const { baseUrl, dataDir } = suite.server;
    // The server's first account is its admin; the affiliate is the second.
    const admin = await createAccount(baseUrl, {
      firstName: 'Grace',
      lastName: 'Hopper',
      username: 'gracehopper',
      email: 'grace@example.com',
      password: 'Cobol#Compiler1959',
    });
    const affiliate = await createAffiliate(baseUrl, KATHERINE, {
      paymentMethod: 'paypal',
      paypalEmail: 'katherine@paypal.example',
    });

    // A customer the affiliate referred (the ref parameter) pays Pro monthly ($19.99) on Stripe's checkout
    // (the local stand-in; the browser walk-through of that is in affiliates.test.ts).
    const customer = await api<{ token: string }>(baseUrl, 'POST', '/api/auth/register', {
      body: {
        accountType: 'individual',
        firstName: 'Dorothy',
        lastName: 'Vaughan',
        username: 'dorothy',
        email: 'dorothy@example.com',
        password: 'Fortran#Lead1961',
        ref: affiliate.referralCode,
      },
    });
    const checkout = await api<{ redirectUrl: string }>(
      baseUrl,
      'POST',
      '/api/payments/create-paypal-payment',
      {
        token: customer.token,
        body: { provider: 'stripe', plan: 'pro', billingCycle: 'monthly' },
      },
    );
    const { events } = suite.stripe.completeCheckout(checkout.redirectUrl.split('/').pop() ?? '');
    for (const event of events) expect(await suite.stripe.deliver(event)).toBe(200);
    const dashboard = () =>
      api<{ pendingEarnings: number; availableBalance: number }>(
        baseUrl,
        'GET',
        '/api/affiliates/dashboard',
        {
          token: affiliate.token,
        },
      );
    expect(await dashboard()).toMatchObject({ pendingEarnings: 4, availableBalance: 0 });

    // 30 days later the commission is out of its hold.
    expect(await endCommissionHolds(dataDir)).toBe(1);
    expect(await dashboard()).toMatchObject({ pendingEarnings: 4, availableBalance: 4 });

    // The affiliate asks for the $4.00 on the dashboard's Payouts tab.
    await openSignedIn(page, baseUrl, affiliate.token, '/affiliate/dashboard');
    await page.getByRole('heading', { level: 1, name: 'Affiliate Dashboard' }).waitFor();
    await page.getByRole('tab', { name: 'Payouts' }).click();
    await page.getByText('No Payouts Yet').waitFor();
    await page.getByTestId('available-balance').getByText('$4.00', { exact: true }).waitFor();
    await page.getByLabel('Amount').fill('4');
    await page.getByRole('button', { name: 'Request Payout' }).click();
    await toast(page, 'Payout request submitted successfully!');

    // It is in the history, pending; nothing is left to pay out.
    await historyRows().nth(1).waitFor();
    expect(await historyRows().count()).toBe(2);
    const requested = historyRows().nth(1);
    expect(await requested.getByRole('cell').allTextContents()).toEqual([
      '$4.00',
      'pending',
      new Date().toLocaleDateString('en-US'),
      '—',
      'PayPal',
      '—',
    ]);
    await page.getByTestId('available-balance').getByText('$0.00', { exact: true }).waitFor();

    // The history's CSV: the header and the one payout.
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const download = await downloading;
    const today = new Date().toISOString().slice(0, 10);
    expect(download.suggestedFilename()).toBe(`affiliate-payouts-${today}.csv`);
    const csv = await readFile((await download.path()) ?? '', 'utf8');
    expect(csv.split('\r\n')).toEqual([
      'Amount,Currency,Status,Requested,Processed,Method,Transaction ID',
      `4.00,USD,pending,${today},,PayPal,`,
    ]);
    await toast(page, 'Payout history exported successfully!');

    // The admin pays it and marks it completed in Admin Panel → Affiliates.
    await openSignedIn(page, baseUrl, admin.token, '/admin-panel');
    await page.getByRole('tab', { name: 'Affiliates' }).click();
    const requests = page.getByRole('table', { name: 'Affiliate payout requests' });
    const request = requests.getByRole('row').filter({ hasText: 'katherine' });
    await request.waitFor();
    expect(await request.textContent()).toContain('PayPal: katherine@paypal.example');
    await request.getByRole('button', { name: 'Complete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Complete payout' });
    await dialog.getByLabel('Transaction ID').fill('PAYID-E2E-0001');
    await dialog.getByRole('button', { name: 'Mark Completed' }).click();
    await toast(page, 'Payout marked as completed');
    await page.getByText('No payout requests here.').waitFor();
    await shot(page, 'admin-affiliate-payouts');

    // The affiliate's history shows it completed, processed today, with the transaction id.
    await openSignedIn(page, baseUrl, affiliate.token, '/affiliate/dashboard');
    await page.getByRole('tab', { name: 'Payouts' }).click();
    const completed = historyRows().nth(1);
    await completed.getByText('completed', { exact: true }).waitFor();
    expect(await completed.getByRole('cell').allTextContents()).toEqual([
      '$4.00',
      'completed',
      new Date().toLocaleDateString('en-US'),
      new Date().toLocaleDateString('en-US'),
      'PayPal',
      'PAYID-E2E-0001',
    ]);
    await shot(page, 'affiliate-payout-completed');
  });
});
