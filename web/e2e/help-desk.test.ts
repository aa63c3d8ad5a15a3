// The help desk end to end in a real browser (issue 12): a customer sends a ticket with an image from
// /get-help; an admin, in a browser of their own, answers it from the Admin Panel with an image and a
// link; the customer's bell shows the notification live (no reload), and the answered tab shows the
// response with its image. Script in the subject, the message and the answer is shown as text and
// never runs.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from './browser.ts';
import {
  type BrowserSuite,
  browserSuite,
  type CreatedAccount,
  createAccount,
  openSignedIn,
  shot,
} from './helpers.ts';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
/** Would set window.__pwned if any of it ran. */
const XSS = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';

let suite: BrowserSuite;
let customerPage: Page;
let adminBrowser: BrowserContext;
let adminPage: Page;
let admin: CreatedAccount;
let customer: CreatedAccount;
let files: { screenshot: string; steps: string };

browserSuite('help-desk', (ready) => {
  suite = ready;
  customerPage = ready.page;
});

beforeAll(async () => {
  const { baseUrl } = suite.server;
  // The server's first account is its admin.
  admin = await createAccount(baseUrl, {
    firstName: 'Margaret',
    lastName: 'Hamilton',
    username: 'mhamilton',
    email: 'margaret@example.com',
    password: 'Apollo#Guidance11',
  });
  customer = await createAccount(baseUrl, {
    firstName: 'Katherine',
    lastName: 'Johnson',
    username: 'kjohnson',
    email: 'katherine@example.com',
    password: 'Orbit#Trajectory62',
  });
  const dir = await mkdtemp(path.join(tmpdir(), 'berth-help-e2e-'));
  files = { screenshot: path.join(dir, 'screenshot.png'), steps: path.join(dir, 'steps.gif') };
  await writeFile(files.screenshot, PNG);
  await writeFile(files.steps, GIF);
  adminBrowser = await launchBrowser();
  adminPage = await adminBrowser.newPage();
  adminPage.setDefaultTimeout(15_000);
}, 60_000);
afterAll(() => adminBrowser?.close());

const pwned = (page: Page) => page.evaluate(() => (window as { __pwned?: number }).__pwned);

describe('help desk', () => {
  it('the customer sends a ticket with an image', async () => {
    await openSignedIn(customerPage, suite.server.baseUrl, customer.token, '/dashboard');
    await customerPage
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Get Help' })
      .click();
    const form = customerPage.getByRole('form', { name: 'Send a support message' });
    await form.waitFor();
    await form.getByLabel('Subject').fill(`Site down ${XSS}`);
    await form.getByLabel('Message').fill(`It shows 502 ${XSS}`);
    await form.locator('input[type="file"]').setInputFiles(files.screenshot);
    await form.getByRole('img', { name: 'screenshot.png' }).waitFor();
    await form.getByRole('button', { name: 'Send Message' }).click();
    await customerPage.getByText('Your message was sent.').waitFor();
    await customerPage.getByRole('button', { name: 'View my tickets' }).click();
    const card = customerPage.getByRole('article', { name: `Site down ${XSS}` });
    await card.getByRole('img', { name: 'screenshot.png' }).waitFor();
    expect(await card.getByText(`It shows 502 ${XSS}`).count()).toBe(1);
    // A trial is answered in Starter's time: the card says by when.
    expect(await card.getByText(/^Expect an answer by .+ \(within 24 hours\)\.$/).count()).toBe(1);
    expect(await pwned(customerPage)).toBeUndefined();
    await shot(customerPage, 'help-desk-1-customer-ticket');
  });

  it('the admin answers with an image and a link; the customer’s bell shows it live', async () => {
    const bell = customerPage.getByRole('button', { name: /^Notifications/ });
    const before = (await bell.getAttribute('aria-label')) ?? '';

    await openSignedIn(adminPage, suite.server.baseUrl, admin.token, '/admin-panel');
    await adminPage.getByRole('list', { name: 'Tickets' }).getByText(`Site down ${XSS}`).click();
    const detail = adminPage.getByRole('region', { name: `Site down ${XSS}` });
    await detail.getByRole('img', { name: 'screenshot.png' }).waitFor();
    expect(await detail.getByRole('region', { name: 'Shared context' }).textContent()).toContain(
      'Standing: trial',
    );
    await detail.getByPlaceholder('Write your response to the user...').fill(`Restarted it ${XSS}. Read`);
    await detail.getByRole('button', { name: 'Insert Link' }).click();
    const dialog = adminPage.getByRole('dialog', { name: 'Insert Link' });
    await dialog.getByLabel('URL').fill('https://example.com/guide');
    await dialog.getByLabel('Link text (optional)').fill('the guide');
    await dialog.getByRole('button', { name: 'Insert' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await detail.locator('input[type="file"]').setInputFiles(files.steps);
    await detail.getByRole('img', { name: 'steps.gif' }).waitFor();
    await detail.getByRole('button', { name: 'Send Response' }).click();
    await adminPage.getByRole('alert').getByText('Response saved').waitFor();
    // The panel is cleared after sending; the ticket shows as answered, with no due time any more.
    await detail.waitFor({ state: 'detached' });
    const row = adminPage.getByRole('list', { name: 'Tickets' }).getByRole('listitem');
    await row.getByText('answered', { exact: true }).waitFor();
    expect(await row.getByText(/^Due /).count()).toBe(0);
    expect(await pwned(adminPage)).toBeUndefined();
    await shot(adminPage, 'help-desk-2-admin-answered');

    // Live: the customer's page was not reloaded.
    await customerPage.waitForFunction(
      (label) =>
        document.querySelector('[aria-label^="Notifications"]')?.getAttribute('aria-label') !== label,
      before,
      { timeout: 10_000 },
    );
    await bell.click();
    const panel = customerPage.getByRole('dialog', { name: 'Notifications' });
    await panel.getByText('Support answered your ticket').click();
    await customerPage.waitForURL((url) => url.pathname === '/get-help');
    expect(await customerPage.getByRole('tab', { name: 'My Tickets' }).getAttribute('aria-selected')).toBe(
      'true',
    );
  });

  it('the answered tab shows the response with its image and a safe link; no script ran', async () => {
    await customerPage.getByRole('tab', { name: 'Answered' }).click();
    const card = customerPage.getByRole('article', { name: `Site down ${XSS}` });
    const response = card.getByRole('region', { name: 'Support Response' });
    await response.getByRole('img', { name: 'steps.gif' }).waitFor();
    expect(await response.textContent()).toContain(`Restarted it ${XSS}. Read the guide`);
    const link = response.getByRole('link', { name: 'the guide' });
    expect(await link.getAttribute('href')).toBe('https://example.com/guide');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await card.getByText('answered', { exact: true }).count()).toBe(1);
    expect(await response.getByText(/^Answered /).count()).toBe(1);
    expect(
      await customerPage
        .locator('script:not([src])')
        .evaluateAll((els) => els.some((el) => el.textContent?.includes('__pwned'))),
    ).toBe(false);
    expect(await pwned(customerPage)).toBeUndefined();
    await shot(customerPage, 'help-desk-3-customer-answered');
  });

  it('the customer’s images are private: another account gets 404', async () => {
    const stranger = await createAccount(suite.server.baseUrl, {
      firstName: 'Alan',
      lastName: 'Turing',
      username: 'aturing',
      email: 'alan@example.com',
      password: 'Enigma#Machine36',
    });
    const mine = await fetch(`${suite.server.baseUrl}/api/help/my`, {
      headers: { authorization: `Bearer ${customer.token}` },
    });
    const { items } = (await mine.json()) as { items: { attachments: { url: string }[] }[] };
    const url = items[0]?.attachments[0]?.url ?? '';
    const asStranger = await fetch(`${suite.server.baseUrl}/api${url}`, {
      headers: { authorization: `Bearer ${stranger.token}` },
    });
    expect(asStranger.status).toBe(404);
    const anonymous = await fetch(`${suite.server.baseUrl}/api${url}`);
    expect(anonymous.status).toBe(401);
  });
});
