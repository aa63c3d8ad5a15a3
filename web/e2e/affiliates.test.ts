// The affiliate programme in a real browser: a visitor arrives through an affiliate's link (/?ref=CODE),
// registers, pays for Pro on (a local stand-in for) Stripe's checkout; the affiliate's dashboard then
// shows the click, the referral, the pending commission and the chart, and the statement exports as CSV.
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  api,
  createAccount,
  createAffiliate,
  forgetSession,
  KATHERINE,
  openSignedIn,
  type StripeBrowserSuite,
  shot,
  stripeBrowserSuite,
  toast,
} from './helpers.ts';

const WEBHOOK_SECRET = 'whsec_e2e_affiliates';
let suite: StripeBrowserSuite;
let page: Page;

stripeBrowserSuite('affiliates', WEBHOOK_SECRET, (ready) => {
  suite = ready;
  page = ready.page;
});

describe('a referral from click to commission', () => {
  it('/?ref=CODE → register → pay Pro → the affiliate sees the click, the referral, $4.00 pending and the chart', async () => {
    const { baseUrl } = suite.server;
    // The server's first account is its admin; the affiliate is the second.
    await createAccount(baseUrl, {
      firstName: 'Ada',
      lastName: 'Admin',
      username: 'adaadmin',
      email: 'admin@example.com',
      password: 'Admin#Berth2026',
    });
    const affiliate = await createAffiliate(baseUrl, KATHERINE, { paymentMethod: 'paypal' });
    const code = affiliate.referralCode;

    // The visitor follows the homepage link: the click is reported and the referral cookie set.
    await forgetSession(page, baseUrl);
    const clicked = page.waitForResponse((r) => r.url().endsWith(`/api/affiliates/track-click/${code}`));
    await page.goto(`${baseUrl}/?ref=${code}`);
    expect(await (await clicked).json()).toEqual({ tracked: true, counted: true });
    expect(await page.evaluate(() => localStorage.getItem('referral_code'))).toBe(code);

    // Registers (the /register link of the page, no ref in its URL: the cookie and the stored code carry it).
    await page.goto(`${baseUrl}/register`);
    await page.getByRole('radio', { name: 'Individual' }).check();
    await page.getByLabel('First Name').fill('Dorothy');
    await page.getByLabel('Last Name').fill('Vaughan');
    await page.getByLabel('Username', { exact: true }).fill('dorothy');
    await page.getByLabel('Email', { exact: true }).fill('dorothy@example.com');
    await page.getByLabel('Password', { exact: true }).fill('Fortran#Lead1961');
    await page.getByLabel('Confirm Password', { exact: true }).fill('Fortran#Lead1961');
    await page.getByRole('button', { name: 'Create Account' }).click();
    await page.waitForURL('**/dashboard');

    // Pays for Pro with a card.
    await page.goto(`${baseUrl}/billing`);
    await page.getByRole('button', { name: 'Choose Pro' }).click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /Card \(Stripe\)/ })
      .click();
    await page.waitForURL(`${suite.stripe.url}/checkout/**`);
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL('**/payment-success?tx=cs_test_*');

    // The affiliate's dashboard.
    await openSignedIn(page, baseUrl, affiliate.token, '/affiliate/dashboard');
    await page.getByRole('heading', { level: 1, name: 'Affiliate Dashboard' }).waitFor();
    await page.getByTestId('stat-Clicks').waitFor();
    expect(await page.getByTestId('stat-Clicks').textContent()).toBe('1');
    expect(await page.getByTestId('stat-Total Referrals').textContent()).toBe('1');
    expect(await page.getByTestId('stat-Pending Payout').textContent()).toBe('$4.00');
    expect(await page.getByTestId('stat-Conversion Rate').textContent()).toBe('100.0%');
    await page.getByTestId('earnings-chart').locator('svg').first().waitFor();
    await page.getByTestId('referral-code').getByText(code).waitFor();
    await shot(page, 'affiliate-dashboard');

    // The statement's CSV: this month has the click, the referral, the first payment and $4.00.
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const download = await downloading;
    const year = new Date().getFullYear();
    expect(download.suggestedFilename()).toBe(`affiliate-statement-${year}.csv`);
    const csv = await readFile((await download.path()) ?? '', 'utf8');
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('Month,Clicks,Referrals,Active Referrals,Earnings (USD)');
    const month = new Date().toLocaleString('en-US', { month: 'long' });
    expect(lines).toContain(`${month} ${year},1,1,1,4.00`);
    expect(lines.at(-1)).toBe('Total,1,1,1,4.00');
    await toast(page, 'Monthly statement exported successfully!');

    // Payouts: nothing yet; the commission is in its 30-day hold, so nothing is available.
    await page.getByRole('tab', { name: 'Payouts' }).click();
    await page.getByText('No Payouts Yet').waitFor();
    expect(await page.getByTestId('available-balance').textContent()).toContain('$0.00');
    await page.getByLabel('Amount').fill('60');
    await page.getByRole('button', { name: 'Request Payout' }).click();
    await toast(page, 'Payout amount cannot exceed pending payout balance');

    // Outside the affiliate area the top bar has the affiliate links, for affiliates only.
    await openSignedIn(page, baseUrl, affiliate.token, '/dashboard');
    await page.getByRole('link', { name: 'Affiliate Settings' }).first().waitFor();
  });

  it('a user without an affiliate profile is sent to apply, joins, and lands on the dashboard', async () => {
    const { baseUrl } = suite.server;
    const user = await createAccount(baseUrl, {
      firstName: 'Mary',
      lastName: 'Jackson',
      username: 'maryj',
      email: 'mary@example.com',
      password: 'Wind-Tunnel#1958',
    });
    await openSignedIn(page, baseUrl, user.token, '/affiliate/dashboard');
    await page.waitForURL('**/affiliate/apply');
    await page.getByRole('heading', { level: 1, name: 'Become an Affiliate' }).waitFor();
    await page.getByRole('button', { name: 'Join the Program' }).click();
    await toast(page, 'You must agree to the terms and conditions');
    await page.getByRole('checkbox').check();
    // The welcome lasts 2 s: watched in the page at every frame from before the click, so a slow
    // round trip to the browser (a busy host) cannot miss it.
    const welcomed = page.waitForFunction(() =>
      document.body.innerText.includes('Welcome to the Affiliate Program!'),
    );
    await page.getByRole('button', { name: 'Join the Program' }).click();
    await welcomed;
    await page.waitForURL('**/affiliate/dashboard');
    await page.getByTestId('referral-code').waitFor();
  });

  it('/affiliate/register?ref=CODE: account and affiliate profile in one step, on to the dashboard keeping ref', async () => {
    const { baseUrl } = suite.server;
    const referrer = await createAffiliate(
      baseUrl,
      {
        firstName: 'Annie',
        lastName: 'Easley',
        username: 'annie',
        email: 'annie@example.com',
        password: 'Centaur#Rocket1977',
      },
      { paymentMethod: 'bank', bankDetails: { accountName: 'Annie Easley', iban: 'DE89370400440532013000' } },
    );
    const code = referrer.referralCode;
    await forgetSession(page, baseUrl);
    await page.goto(`${baseUrl}/affiliate/register?ref=${code}`);
    await page.getByRole('heading', { level: 1, name: 'Join the Affiliate Program' }).waitFor();
    await page.getByLabel('Full Name').fill('Christine Darden');
    await page.getByLabel('Email', { exact: true }).fill('christine@example.com');
    await page.getByLabel('Password', { exact: true }).fill('Sonic#Boom1967');
    await page.getByRole('button', { name: 'Create Affiliate Account' }).click();
    await page.getByText('You must agree to the terms & conditions').waitFor();
    await page.getByRole('checkbox').check();
    await page.getByRole('button', { name: 'Create Affiliate Account' }).click();
    await page.waitForURL(
      (url) => url.pathname === '/affiliate/dashboard' && url.searchParams.get('ref') === code,
    );
    await page.getByRole('heading', { level: 1, name: 'Affiliate Dashboard' }).waitFor();
    await page.getByTestId('referral-code').waitFor();
    // The new affiliate is also the referrer's referral (the click and the ref parameter).
    const figures = await api<{ totalReferrals: number; totalClicks: number }>(
      baseUrl,
      'GET',
      '/api/affiliates/dashboard',
      {
        token: referrer.token,
      },
    );
    expect(figures).toMatchObject({ totalReferrals: 1, totalClicks: 1 });
  });
});
