import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, logout, shot, signIn, toast } from './helpers.ts';
import type { RunningServer } from './server.ts';

let server: RunningServer;
let page: Page;

const account = {
  firstName: 'Grace',
  lastName: 'Hopper',
  username: 'grace_h',
  email: 'grace@example.com',
  password: 'Cobol#1959x',
};

browserSuite('auth', (suite) => {
  ({ server, page } = suite);
});

beforeAll(async () => {});

describe('sign-up and sign-in in the browser', () => {
  it('shows the validation message for a bad username and creates nothing', async () => {
    await page.goto(`${server.baseUrl}/register`);
    await page.getByLabel('Username', { exact: true }).fill('grace hopper');
    await page.getByRole('button', { name: 'Create Account' }).click();
    await page.getByText('Username can only contain letters, numbers, hyphens, and underscores').waitFor();
    expect(new URL(page.url()).pathname).toBe('/register');
    await shot(page, 'register-invalid');
  });

  it('registers and lands on the dashboard with the trial running', async () => {
    await page.goto(`${server.baseUrl}/register?ref=friend7`);
    await page.getByRole('radio', { name: 'Individual' }).check();
    await page.getByLabel('First Name').fill(account.firstName);
    await page.getByLabel('Last Name').fill(account.lastName);
    await page.getByLabel('Username', { exact: true }).fill(account.username);
    await page.getByLabel('Email', { exact: true }).fill(account.email);
    await page.getByLabel('Password', { exact: true }).fill(account.password);
    await page.getByLabel('Confirm Password', { exact: true }).fill(account.password);
    await page.getByRole('button', { name: 'Create Account' }).click();
    await page.waitForURL('**/dashboard');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await toast(page, 'Registration successful!');
    await page.getByText('Trial', { exact: true }).first().waitFor();
    await page
      .getByText(/Trial active — ends/)
      .first()
      .waitFor();
    await shot(page, 'dashboard-dark');
  });

  it('logs out, then signs in with the username and with the e-mail', async () => {
    await logout(page);
    await signIn(page, account.username, account.password);
    await page.waitForURL('**/dashboard');
    await toast(page, 'Login successful!');

    await logout(page);
    await signIn(page, account.email, account.password);
    await page.waitForURL('**/dashboard');
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
  });

  it('refuses a wrong password with the server message and stays on /login', async () => {
    await logout(page);
    await signIn(page, account.username, 'Wrong#pass123');
    await toast(page, 'Invalid email/username or password');
    expect(new URL(page.url()).pathname).toBe('/login');
    await shot(page, 'login-wrong-password');
  });

  it('sends an anonymous visitor of /dashboard to /login and back after signing in', async () => {
    await page.goto(`${server.baseUrl}/dashboard`);
    await page.waitForURL('**/login');
    await signIn(page, account.username, account.password);
    await page.waitForURL('**/dashboard');
  });

  it('keeps the session across a reload and shows its own Not Found for unknown paths', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await page.goto(`${server.baseUrl}/no/such/page`);
    await page.getByText('Page Not Found').waitFor();
    await shot(page, 'not-found');
  });
});
