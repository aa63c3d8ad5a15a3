// The forgot-password flow end to end: the dialog on /login, a real
// e-mail through a real SMTP server, the link in it, the new password, the success screen and its
// redirect, sign-in with the new password, and the link refused the second time.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from './browser.ts';
import {
  api,
  type CreatedAccount,
  createAccount,
  logout,
  openSignedIn,
  reportFailures,
  shot,
  signIn,
  toast,
  watchPage,
} from './helpers.ts';
import { freePort, type RunningServer, startServer } from './server.ts';
import { type SmtpPeer, startSmtpPeer } from './smtp-peer.ts';

const MAIL_FROM = 'Berth <no-reply@berth.test>';
const NEW_PASSWORD = 'Fresh#Start2024';

let smtp: SmtpPeer;
let server: RunningServer;
let browser: BrowserContext;
let page: Page;
let user: CreatedAccount;
let resetLink: string;

beforeAll(async () => {
  smtp = await startSmtpPeer();
  // The e-mailed link is PUBLIC_URL + /reset-password?token=…, so the server gets a port chosen here.
  const port = await freePort();
  [server, browser] = await Promise.all([
    startServer({
      PROVISIONER: 'none',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      SMTP_URL: smtp.url,
      MAIL_FROM,
    }),
    launchBrowser(),
  ]);
  page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  watchPage(page);
  user = await createAccount(server.baseUrl, {
    firstName: 'Margaret',
    lastName: 'Hamilton',
    username: 'mhamilton',
    email: 'margaret@example.com',
    password: 'Apollo#11moon',
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await smtp?.close();
});

reportFailures('password-reset', () => ({ page, server }));

const dialog = () => page.getByRole('dialog');

/** Opens the forgot-password dialog of /login and asks for a link for `email`. */
async function requestLink(email: string) {
  await page.getByRole('button', { name: 'Forgot password?' }).click();
  await dialog().getByRole('heading', { name: 'Forgot your password?' }).waitFor();
  const send = dialog().getByRole('button', { name: 'Send Reset Link' });
  expect(await send.isDisabled()).toBe(true);
  await dialog().getByLabel('Email').fill(email);
  await send.click();
  await dialog().getByRole('heading', { name: 'Check Your Email' }).waitFor();
  await dialog().getByText(email).waitFor();
}

describe('forgot password, through a real SMTP server', () => {
  it('signs out and asks for a link: the same confirmation for an unknown and a known address', async () => {
    await openSignedIn(page, server.baseUrl, user.token);
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await logout(page);

    await requestLink('nobody@example.com');
    await dialog().getByRole('button', { name: 'Back to Sign In' }).click();
    await dialog().waitFor({ state: 'detached' });

    await requestLink(user.email);
    await shot(page, 'forgot-password-check-your-email');
  });

  it('delivers one mail, to the account only, with a link to this server', async () => {
    const mail = await smtp.nextMail();
    // Only the known address got a mail: the unknown one would have been sent first.
    expect(smtp.received).toHaveLength(1);
    expect(smtp.refusedLogins).toEqual([]);
    const to = [mail.to ?? []].flat().flatMap((list) => list.value.map((address) => address.address));
    expect(to).toEqual([user.email]);
    expect(mail.from?.value).toEqual([{ name: 'Berth', address: 'no-reply@berth.test' }]);
    expect(mail.subject).toBe('Reset your Berth password');
    expect(mail.text).toContain('Hello Margaret,');
    const links = mail.text?.match(/https?:\/\/\S+/g) ?? [];
    expect(links).toHaveLength(1);
    resetLink = links[0] ?? '';
    const url = new URL(resetLink);
    expect(url.origin).toBe(server.baseUrl);
    expect(url.pathname).toBe('/reset-password');
    expect(url.searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{40,}$/);
  });

  it('follows the link, sets a new password, shows the success screen and goes to /login after 3 s', async () => {
    await page.goto(resetLink);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('New Password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm New Password', { exact: true }).fill(NEW_PASSWORD);
    // When the success screen appears and when the page goes to /login, timed in the page as they happen
    // (the DOM's change, the router's history call): round trips to a busy browser, or its frames,
    // would blur the 3 s.
    await page.evaluate(() => {
      const times: { shown?: number; login?: number } = {};
      Object.assign(window, { resetTimes: times });
      new MutationObserver(() => {
        if (times.shown === undefined && document.body.textContent?.includes('Redirecting you to sign in'))
          times.shown = performance.now();
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
      for (const method of ['pushState', 'replaceState'] as const) {
        const original = history[method].bind(history);
        history[method] = (...args: Parameters<History['pushState']>) => {
          original(...args);
          if (times.login === undefined && location.pathname === '/login') times.login = performance.now();
        };
      }
    });
    await page.getByRole('button', { name: 'Reset Password' }).click();

    await page.getByRole('heading', { name: 'Password reset' }).waitFor();
    await page.getByText('Your password has been changed. Redirecting you to sign in...').waitFor();
    await shot(page, 'reset-password-success');
    await page.waitForURL((url) => url.pathname === '/login');
    const times = await page.evaluate(
      () => (window as unknown as { resetTimes: { shown?: number; login?: number } }).resetTimes,
    );
    const after = (times.login ?? Number.NaN) - (times.shown ?? Number.NaN);
    // The page's 3 s timer: never sooner; later only by what a busy machine delays a timer.
    expect(after).toBeGreaterThan(2_900);
    expect(after).toBeLessThan(6_000);
    await page.getByRole('heading', { name: 'Welcome back' }).waitFor();
  });

  it('signs in with the new password, and the old one no longer works', async () => {
    await expect(
      api(server.baseUrl, 'POST', '/api/auth/login', {
        body: { emailOrUsername: user.username, password: user.password },
      }),
    ).rejects.toThrow(/answered 401/);
    const toastShown = toast(page, 'Login successful!');
    await signIn(page, user.email, NEW_PASSWORD);
    await page.waitForURL('**/dashboard');
    await toastShown;
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  });

  it('refuses the same link a second time with the invalid-link screen', async () => {
    await logout(page);
    await page.goto(resetLink);
    await page.getByRole('heading', { name: 'Reset link not valid' }).waitFor();
    await page.getByText('Invalid or expired reset token').waitFor();
    await page.getByRole('link', { name: 'Back to Sign In' }).waitFor();
    await shot(page, 'reset-password-link-used');
  });
});
