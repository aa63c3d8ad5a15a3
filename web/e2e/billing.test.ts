// The commercial loop in a real browser: a trial user picks a plan on /billing, pays on (a local
// stand-in for) Stripe's hosted checkout, comes back to /payment-success, and the webhook that the
// checkout sent has made the plan active. Also the payment result pages' texts and redirects.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  createAccount,
  openSignedIn,
  pathOf,
  type StripeBrowserSuite,
  shot,
  stripeBrowserSuite,
} from './helpers.ts';

const WEBHOOK_SECRET = 'whsec_e2e_billing';
let suite: StripeBrowserSuite;
let page: Page;

stripeBrowserSuite('billing', WEBHOOK_SECRET, (ready) => {
  suite = ready;
  page = ready.page;
});

let counter = 0;
const account = () => {
  counter += 1;
  return {
    firstName: 'Mary',
    lastName: 'Jackson',
    username: `mary${counter}`,
    email: `mary${counter}@example.com`,
    password: 'Wind-Tunnel#1958',
  };
};

describe('paying for a plan', () => {
  it('trial → billing → Pro with a card → Stripe checkout → success page → active Pro', async () => {
    const { baseUrl } = suite.server;
    const user = await createAccount(baseUrl, account());
    await openSignedIn(page, baseUrl, user.token, '/billing');
    await page.getByRole('heading', { name: 'Subscription and Billing' }).waitFor();
    await page.getByText(/^Trial active — ends/).waitFor();

    await page.getByRole('button', { name: 'Choose Pro' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: /Card \(Stripe\)/ }).waitFor();
    await shot(page, 'billing-payment-methods');
    await dialog.getByRole('button', { name: /Card \(Stripe\)/ }).click();

    // The provider's page (here: the local Stripe stand-in).
    await page.waitForURL(`${suite.stripe.url}/checkout/**`);
    await page.getByRole('heading', { name: 'Fake Stripe Checkout' }).waitFor();
    await page.getByRole('button', { name: 'Pay' }).click();

    await page.waitForURL('**/payment-success?tx=cs_test_*');
    await page.getByRole('heading', { name: 'Payment Successful' }).waitFor();
    const tx = new URL(page.url()).searchParams.get('tx') ?? '';
    await page.getByText(tx).waitFor();
    // Five seconds later: the dashboard, with the plan the webhook activated.
    await page.waitForURL('**/dashboard', { timeout: 10_000 });
    await page.getByText('Active', { exact: true }).first().waitFor();

    await openSignedIn(page, baseUrl, user.token, '/billing');
    await page.getByRole('heading', { name: 'Pro', exact: true }).first().waitFor();
    await shot(page, 'billing-active-pro');
    const history = page.getByRole('region', { name: /Billing history/i });
    await history.getByText('Pro (monthly)').waitFor();
    expect(await history.getByText('$19.99').count()).toBeGreaterThan(0);
  });

  it('a cancelled checkout lands on the cancelled page, and Try Again leads back to billing', async () => {
    const { baseUrl } = suite.server;
    const user = await createAccount(baseUrl, account());
    await openSignedIn(page, baseUrl, user.token, '/billing');
    await page.getByRole('button', { name: 'Choose Starter' }).click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /Card \(Stripe\)/ })
      .click();
    await page.waitForURL(`${suite.stripe.url}/checkout/**`);
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForURL('**/payment-cancelled?reason=cancelled');
    await page.getByText('Payment was cancelled by user.').waitFor();
    await page
      .getByRole('button', { name: 'Try Again' })
      .or(page.getByRole('link', { name: 'Try Again' }))
      .click();
    await page.waitForURL('**/billing');
    // Nothing was paid: still the trial.
    await page.getByText(/^Trial active — ends/).waitFor();
  });
});

describe('payment result pages', () => {
  it.each([
    ['incomplete', 'Payment was not completed. Please try again.'],
    ['server_error', 'A server error occurred while processing your payment.'],
    ['other', 'An error occurred while processing your payment.'],
  ])('/payment-error?reason=%s says so', async (reason, text) => {
    const { baseUrl } = suite.server;
    const user = await createAccount(baseUrl, account());
    await openSignedIn(page, baseUrl, user.token, `/payment-error?reason=${reason}`);
    await page.getByText(text).waitFor();
    expect(pathOf(page)).toBe('/payment-error');
  });
});
