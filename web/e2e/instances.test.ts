// A database deployed from the browser (issue 4, "A Playwright test deploys a database from the UI and
// copies its credentials"): a new customer deploys MySQL from /instances/new, watches it turn Running
// over the live stream, copies its password from the credentials dialog, and logs in to it with the
// real `mariadb` client. The server runs its own MariaDB through the local provisioning driver.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.ts';
import { launchBrowser } from './browser.ts';
import { reportFailures, shot, toast, watchPage } from './helpers.ts';
import { type RunningServer, startServer } from './server.ts';

const run = promisify(execFile);

let server: RunningServer;
let browser: BrowserContext;
let page: Page;

const account = {
  firstName: 'Edgar',
  lastName: 'Codd',
  username: 'edgar_c',
  email: 'edgar@example.com',
  password: 'Relational#1970',
};
const INSTANCE_NAME = 'Orders DB';

interface Access {
  database: {
    host: string;
    port: number;
    name: string;
    user: string;
    password: string;
    tls: { required: boolean; caCertificate: string | null; caFileName: string | null };
  };
}

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
  page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  watchPage(page);
  // Records the `event: instance` messages the app's live stream receives.
  await page.addInitScript(() => {
    const Native = window.EventSource;
    const received: string[] = [];
    Object.assign(window, { instanceEvents: received });
    window.EventSource = class extends Native {
      constructor(url: string | URL, init?: EventSourceInit) {
        super(url, init);
        this.addEventListener('instance', (event) => received.push(String((event as MessageEvent).data)));
      }
    };
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

reportFailures('instances', () => ({ page, server }));

/** The session's token, as the web app keeps it. */
const token = () => page.evaluate(() => localStorage.getItem('token'));

/** A call to the server under test with the page's session. */
async function apiGet<T>(route: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`${server.baseUrl}${route}`, {
    headers: { authorization: `Bearer ${await token()}` },
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** The local driver starts MariaDB beside the server: MySQL is deployable once it answers. */
async function untilMysqlIsAvailable() {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { body } = await apiGet<{ types: { type: string; available: boolean; reason: string | null }[] }>(
      '/api/instances/capabilities',
    );
    const mysql = body.types.find((entry) => entry.type === 'mysql');
    if (mysql?.available) return;
    if (Date.now() > deadline) throw new Error(`MySQL never became available: ${mysql?.reason}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Whether the open dialog's content needs scrolling to be seen whole. */
const contentScrolls = () =>
  page.evaluate(() => {
    const content = document.querySelector('[role="dialog"] .MuiDialogContent-root');
    if (!content) throw new Error('no dialog content');
    return content.scrollHeight > content.clientHeight + 1;
  });

/** The card of the instance on /instances. */
const card = () => page.getByRole('article', { name: INSTANCE_NAME });

let instanceId = '';
let copiedPassword = '';

describe('a database deployed from the browser', () => {
  it('registers and finds no instances yet', async () => {
    await page.goto(`${server.baseUrl}/register`);
    await page.getByRole('radio', { name: 'Individual' }).check();
    await page.getByLabel('First Name').fill(account.firstName);
    await page.getByLabel('Last Name').fill(account.lastName);
    await page.getByLabel('Username', { exact: true }).fill(account.username);
    await page.getByLabel('Email', { exact: true }).fill(account.email);
    await page.getByLabel('Password', { exact: true }).fill(account.password);
    await page.getByLabel('Confirm Password', { exact: true }).fill(account.password);
    await page.getByRole('button', { name: 'Create Account' }).click();
    await page.waitForURL('**/dashboard');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Instances' }).click();
    await page.waitForURL('**/instances');
    await page.getByText('No instances found').waitFor();
  });

  it('deploys MySQL from /instances/new and lands on /instances', async () => {
    await untilMysqlIsAvailable();
    await page.getByRole('link', { name: 'Deploy New Instance' }).first().click();
    await page.waitForURL('**/instances/new');
    await page.getByRole('button', { name: 'Databases' }).click();
    // n8n is offered exactly when the server says it can deploy it (its runtime is installed), else
    // shown disabled with its reason.
    const { body } = await apiGet<{ types: { type: string; available: boolean }[] }>(
      '/api/instances/capabilities',
    );
    const n8nAvailable = body.types.find((entry) => entry.type === 'n8n')?.available ?? false;
    await page.getByRole('button', { name: 'Applications' }).click();
    expect(await page.getByRole('radio', { name: 'n8n' }).isDisabled()).toBe(!n8nAvailable);
    await page.getByRole('button', { name: 'Databases' }).click();

    await page.getByRole('radio', { name: 'MySQL' }).click();
    await page.getByLabel('Instance Name').fill(INSTANCE_NAME);
    await page.getByLabel('Description (optional)').fill('Order history for the shop');
    // One host, one region: the server's own (US East) is chosen, the others are disabled, saying why.
    const usEast = page.getByRole('button', { name: /US East \(N\. Virginia\)/ });
    expect(await usEast.getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByRole('button', { name: /EU Central \(Frankfurt\)/ }).isDisabled()).toBe(true);
    await page.getByText('This server runs instances in US East (N. Virginia) only').waitFor();
    await shot(page, 'instances-new-mysql');
    await page.getByRole('button', { name: 'Deploy Instance' }).click();

    await toast(page, 'Instance deployment initiated');
    await page.waitForURL('**/instances');
    await card().waitFor();
  });

  it('turns Running on the live stream, without a reload', async () => {
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations.push(frame.url());
    });
    const href = await card().getByRole('link', { name: INSTANCE_NAME }).getAttribute('href');
    instanceId = href?.split('/').at(-1) ?? '';
    expect(instanceId).toMatch(/^[0-9a-f-]{36}$/);

    // The page heard the deploy job's `event: instance` ... running, and the card shows it.
    await page.waitForFunction(
      (id) =>
        ((window as unknown as { instanceEvents?: string[] }).instanceEvents ?? []).some((data) => {
          const event = JSON.parse(data) as { id: string; status: string };
          return event.id === id && event.status === 'running';
        }),
      instanceId,
      { timeout: 30_000 },
    );
    await card().getByText('Running', { exact: true }).waitFor();
    expect(navigations).toEqual([]);
    await expect(card().getByText('US East (N. Virginia)', { exact: false }).count()).resolves.toBe(1);
  });

  it('shows the credentials and copies the password the API gives', async () => {
    await card()
      .getByRole('button', { name: `Credentials of ${INSTANCE_NAME}` })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Database Credentials' });
    await dialog.getByText('Credentials retrieved').waitFor();
    // Its own server accepts TLS only: the CA to download and the command that verifies the server.
    const secure = dialog.getByRole('region', { name: 'Secure connection' });
    await secure.getByRole('button', { name: 'Download CA certificate (berth-ca.pem)' }).waitFor();
    await secure
      .getByText(/^mysql --host=.* --ssl --ssl-ca=berth-ca\.pem --ssl-verify-server-cert /)
      .waitFor();
    // On a laptop's screen (1280×800) everything, the secure connection included, shows without scrolling.
    expect(await contentScrolls()).toBe(false);
    await dialog.getByRole('button', { name: 'Open phpMyAdmin' }).waitFor();
    await shot(page, 'instances-credentials');
    expect(await seriousViolations(page), 'axe on the credentials, dark').toEqual([]);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Switch to light mode' }).click();
    await card()
      .getByRole('button', { name: `Credentials of ${INSTANCE_NAME}` })
      .click();
    await secure.getByRole('button', { name: 'Download CA certificate (berth-ca.pem)' }).waitFor();
    expect(await contentScrolls()).toBe(false);
    await shot(page, 'instances-credentials-light');
    expect(await seriousViolations(page), 'axe on the credentials, light').toEqual([]);

    await dialog.getByRole('button', { name: 'Copy password' }).click();
    await toast(page, 'Password copied to clipboard');
    copiedPassword = await page.evaluate(() => navigator.clipboard.readText());

    const access = await apiGet<Access>(`/api/instances/${instanceId}/access`);
    expect(access.status).toBe(200);
    expect(copiedPassword).toBe(access.body.database.password);
    expect(copiedPassword.length).toBeGreaterThanOrEqual(8);

    // The masked password is shown on request.
    await dialog.getByRole('button', { name: 'Show password' }).click();
    await dialog.getByText(copiedPassword, { exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('logs in with the real mariadb client using the copied credentials and the CA, over verified TLS', async () => {
    const { body } = await apiGet<Access>(`/api/instances/${instanceId}/access`);
    const { host, port, name, user, tls } = body.database;
    const dir = await mkdtemp(path.join(tmpdir(), 'berth-ca-'));
    try {
      const ca = path.join(dir, 'berth-ca.pem');
      await writeFile(ca, tls.caCertificate ?? '');
      const { stdout } = await run(
        'mariadb',
        [
          '--protocol=TCP',
          `--host=${host}`,
          `--port=${port}`,
          `--user=${user}`,
          `--password=${copiedPassword}`,
          '--ssl',
          `--ssl-ca=${ca}`,
          '--ssl-verify-server-cert',
          '--batch',
          '--skip-column-names',
          '--execute=SELECT 1',
          name,
        ],
        { timeout: 15_000 },
      );
      expect(stdout.trim()).toBe('1');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("opens the instance's phpMyAdmin from its page, which logs in with its credentials to its database", async () => {
    const { body } = await apiGet<Access & { database: { phpmyadmin: string | null } }>(
      `/api/instances/${instanceId}/access`,
    );
    const { phpmyadmin, user, name } = body.database;
    expect(phpmyadmin).toMatch(/^http:\/\/pma-[0-9a-f]{12}\.localhost:\d+\/$/);
    await page.goto(`${server.baseUrl}/instances/${instanceId}`);
    const opened = browser.waitForEvent('page');
    await page.getByRole('button', { name: 'phpMyAdmin' }).click();
    const pma = await opened;
    try {
      await pma.waitForURL(phpmyadmin ?? '');
      await pma.locator('#input_username').fill(user);
      await pma.locator('#input_password').fill(copiedPassword);
      await pma.locator('#input_go').click();
      // Its database, the only one listed, in the navigation.
      await pma.getByRole('link', { name, exact: true }).first().waitFor({ timeout: 20_000 });
      expect(await pma.locator('#input_username').count()).toBe(0);
    } finally {
      await pma.close();
    }
  });

  it('shows the connection details on the dashboard and the instance page', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
    await page.waitForURL('**/dashboard');
    const current = page.getByRole('region', { name: 'Current Instance' });
    await current.getByText(INSTANCE_NAME).waitFor();
    const details = current.getByRole('region', { name: 'Connection Details' });
    await details.getByRole('button', { name: 'Copy password' }).waitFor();
    await shot(page, 'instances-dashboard');

    await page.goto(`${server.baseUrl}/instances/${instanceId}`);
    await page.getByRole('heading', { level: 1, name: INSTANCE_NAME }).waitFor();
    await page
      .getByRole('region', { name: 'Configuration' })
      .getByText('us-east-1', { exact: false })
      .waitFor();
    await shot(page, 'instances-detail');
  });
});
