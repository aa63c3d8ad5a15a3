// Small helpers shared by the browser tests: accounts made through the API, a signed-in page without
// going through the sign-in form, toasts, screenshots.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type FakeStripe, startFakeStripe } from '../../server/test/fake-stripe.ts';
import { launchBrowser, SHOTS } from './browser.ts';
import { freePort, type RunningServer, startServer } from './server.ts';

export interface Account {
  firstName: string;
  lastName: string;
  username: string;
  email: string;
  password: string;
}

export interface CreatedAccount extends Account {
  token: string;
  userId: string;
}

/** A JSON call to the server under test; throws with the server's answer unless it is 2xx. */
export async function api<T = unknown>(
  baseUrl: string,
  method: string,
  route: string,
  { token, body }: { token?: string; body?: unknown } = {},
): Promise<T> {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The capability entry of `type` when the server offers it now (undefined while it does not). */
export async function offeredType(baseUrl: string, token: string, type: string) {
  const { types } = await api<{ types: { type: string; available: boolean }[] }>(
    baseUrl,
    'GET',
    '/api/instances/capabilities',
    { token },
  );
  return types.find((entry) => entry.type === type && entry.available);
}

/**
 * Registers an account through the API (the bot check is off without Turnstile keys). The first
 * account of a server becomes its admin.
 */
export async function createAccount(baseUrl: string, account: Account): Promise<CreatedAccount> {
  const result = await api<{ token: string; user: { id: string } }>(baseUrl, 'POST', '/api/auth/register', {
    body: { accountType: 'individual', ...account },
  });
  return { ...account, token: result.token, userId: result.user.id };
}

/** The affiliate of the affiliate programme's browser tests. */
export const KATHERINE: Account = {
  firstName: 'Katherine',
  lastName: 'Johnson',
  username: 'katherine',
  email: 'katherine@example.com',
  password: 'Orbit#Math1962',
};

/**
 * Registers `account` through the API and joins the affiliate programme with `payout` (the payout
 * details of /api/affiliates/register); answers the account and its referral code.
 */
export async function createAffiliate(
  baseUrl: string,
  account: Account,
  payout: Record<string, unknown>,
): Promise<CreatedAccount & { referralCode: string }> {
  const created = await createAccount(baseUrl, account);
  const joined = await api<{ affiliate: { referralCode: string } }>(
    baseUrl,
    'POST',
    '/api/affiliates/register',
    {
      token: created.token,
      body: payout,
    },
  );
  return { ...created, referralCode: joined.affiliate.referralCode };
}

/** Opens `route` signed in with `token` (the web app keeps its token in localStorage 'token'). */
export async function openSignedIn(page: Page, baseUrl: string, token: string, route = '/dashboard') {
  if (!page.url().startsWith(baseUrl)) await page.goto(`${baseUrl}/terms`);
  await page.evaluate((value) => localStorage.setItem('token', value), token);
  await page.goto(`${baseUrl}${route}`);
}

/** Forgets the session of the page (the stored token) without using the UI. */
export async function forgetSession(page: Page, baseUrl: string) {
  if (!page.url().startsWith(baseUrl)) await page.goto(`${baseUrl}/terms`);
  await page.evaluate(() => localStorage.removeItem('token'));
}

/**
 * Waits for a toast (an MUI alert) with this text. A success toast lasts 2 s, so it is looked for in the
 * page at every frame rather than by polls from here, which a busy host can space out past it.
 */
export const toast = async (page: Page, text: string): Promise<void> => {
  await page.waitForFunction(
    (wanted) =>
      Array.from(document.querySelectorAll('[role="alert"]')).some((alert) =>
        alert.textContent?.includes(wanted),
      ),
    text,
  );
};

/** Signs out through the account menu, as a user does. */
export async function logout(page: Page) {
  await page.getByRole('button', { name: /^Account menu/ }).click();
  // Watched from before the click: a success toast lasts only 2 s.
  const toastShown = toast(page, 'Logged out successfully');
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await page.waitForURL('**/login');
  await toastShown;
}

/** Fills and sends the sign-in form of /login. */
export async function signIn(page: Page, login: string, password: string) {
  await page.getByLabel('Email or Username').fill(login);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
}

/**
 * A prerendered public page loads the app when a person shows up (web/src/prerender-contract.ts): a
 * pointer moves in, then React has taken over <main>. For tests that drive the app from the page's
 * own scripts (history.pushState) rather than as a person would.
 */
export async function startApp(page: Page): Promise<void> {
  await page.mouse.move(1, 1);
  await page.waitForFunction(() =>
    Object.keys(document.querySelector('main') ?? {}).some((key) => key.startsWith('__reactFiber')),
  );
}

/** The path of the page's current URL. */
export const pathOf = (page: Page) => new URL(page.url()).pathname;

/** A full-page screenshot under test-results/e2e for a person to look at, once transitions end. */
export async function shot(page: Page, name: string) {
  await mkdir(SHOTS, { recursive: true });
  await settled(page, 2_000).catch(() => {});
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/**
 * Resolves once no finite CSS transition or animation runs (menus, dialogs, popovers and toasts have
 * finished opening); endless ones such as spinners are ignored.
 */
export const settled = (page: Page, timeout?: number) =>
  page.waitForFunction(
    () =>
      document
        .getAnimations()
        .every(
          (animation) =>
            animation.playState !== 'running' ||
            animation.effect?.getTiming().iterations === Number.POSITIVE_INFINITY,
        ),
    undefined,
    { timeout },
  );

/** The last things each watched page reported: console errors and warnings, API answers of 400 and up. */
const pageEvents = new WeakMap<Page, string[]>();

/** Keeps the page's last 20 console errors and warnings and failed API answers for reportFailures. */
export function watchPage(page: Page): void {
  const events: string[] = [];
  pageEvents.set(page, events);
  const keep = (line: string) => {
    events.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
    if (events.length > 20) events.shift();
  };
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      keep(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => keep(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400)
      keep(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
}

/**
 * After a failed test: a screenshot (test-results/e2e/FAILED-….png), and where the page was, what it
 * showed, what it last reported and the last lines the server printed, so a failure on a busy machine
 * can be understood.
 */
export function reportFailures(file: string, current: () => { page?: Page; server?: RunningServer }) {
  afterEach(async ({ task }) => {
    if (task.result?.state !== 'fail') return;
    const { page, server } = current();
    const name = `FAILED-${file}-${task.name}`.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 120);
    const lines = [`[${file}] "${task.name}" failed at ${page?.url() ?? '(no page)'}`];
    if (page) {
      await shot(page, name).then(
        () => lines.push(`  screenshot: test-results/e2e/${name}.png`),
        () => {},
      );
      const headings = await page
        .getByRole('heading', { level: 1 })
        .allTextContents()
        .catch(() => []);
      lines.push(`  h1: ${JSON.stringify(headings)}`);
      const text = await page
        .evaluate(() => document.body.innerText.replace(/\s+/g, ' ').slice(0, 600))
        .catch(() => '(unreadable)');
      lines.push(`  text: ${text}`);
      const events = pageEvents.get(page) ?? [];
      if (events.length > 0) lines.push('  page reported (last):', ...events.map((line) => `    ${line}`));
    }
    const log = server?.output().trim().split('\n').slice(-15) ?? [];
    if (log.length > 0) lines.push('  server log (last lines):', ...log.map((line) => `    ${line}`));
    console.error(lines.join('\n'));
  });
}

export interface BrowserSuite {
  server: RunningServer;
  browser: BrowserContext;
  page: Page;
}

/**
 * One server (fresh data directory) and one browser page for a test file: started before its tests,
 * stopped after them, with failures reported. `ready` hands them to the file; `env` adds server settings.
 */
export function browserSuite(
  file: string,
  ready: (suite: BrowserSuite) => void,
  env: () => Promise<Record<string, string>> = async () => ({}),
): void {
  let suite: BrowserSuite | undefined;
  beforeAll(async () => {
    // These files deploy nothing, so the server runs without provisioning (no database servers to start).
    const settings = { PROVISIONER: 'none', ...(await env()) };
    const [started, launched] = await Promise.allSettled([startServer(settings), launchBrowser()]);
    if (started.status === 'rejected' || launched.status === 'rejected') {
      // The half that started is stopped (a server left running keeps its PostgreSQL after the run).
      if (started.status === 'fulfilled') await started.value.stop();
      if (launched.status === 'fulfilled') await launched.value.close();
      throw started.status === 'rejected' ? started.reason : (launched as PromiseRejectedResult).reason;
    }
    const server = started.value;
    const browser = launched.value;
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    watchPage(page);
    suite = { server, browser, page };
    ready(suite);
  });
  afterAll(async () => {
    await suite?.browser.close();
    await suite?.server.stop();
  });
  reportFailures(file, () => suite ?? {});
}

export interface StripeBrowserSuite extends BrowserSuite {
  /** The local stand-in for Stripe the server pays through (its checkout pages, its webhooks). */
  stripe: FakeStripe;
}

/**
 * A browserSuite whose server takes payments through a local fake Stripe: the fake starts first and
 * sends its webhooks to the server, signed with `webhookSecret`; the server's port is chosen beforehand
 * (Stripe sends the browser back to PUBLIC_URL). `env` adds server settings. The fake closes after the file.
 */
export function stripeBrowserSuite(
  file: string,
  webhookSecret: string,
  ready: (suite: StripeBrowserSuite) => void,
  env: Record<string, string> = {},
): void {
  let stripe: FakeStripe | undefined;
  browserSuite(
    file,
    (suite) => {
      if (!stripe) throw new Error('the fake Stripe did not start');
      stripe.webhookUrl = `${suite.server.baseUrl}/api/payments/webhooks/stripe`;
      ready({ ...suite, stripe });
    },
    async () => {
      stripe = await startFakeStripe({ webhookSecret });
      const port = await freePort();
      return {
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        STRIPE_SECRET_KEY: 'sk_test_e2e',
        STRIPE_WEBHOOK_SECRET: webhookSecret,
        STRIPE_API_BASE: stripe.url,
        ...env,
      };
    },
  );
  afterAll(() => stripe?.close());
}
