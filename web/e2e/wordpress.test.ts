// A WordPress site deployed from the browser: a new customer fills
// the WordPress fields of /instances/new, watches the site turn Running, and the temporary URL really
// serves it (the server runs MariaDB, php-fpm, Caddy and the SFTP server through the local driver).
// The detail page's tabs show the SFTP and database logins, make and delete a backup, and list the
// add-ons; deleting the instance takes the site off its temporary URL. One site for the whole file.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  browserSuite,
  type CreatedAccount,
  createAccount,
  openSignedIn,
  shot,
  toast,
} from './helpers.ts';
import { localDriverEnv, type RunningServer } from './server.ts';

let server: RunningServer;
let page: Page;
let account: CreatedAccount;

browserSuite(
  'wordpress',
  (suite) => {
    ({ server, page } = suite);
  },
  localDriverEnv,
);

const suffix = randomBytes(3).toString('hex');
const SITE = {
  name: 'Harbour Blog',
  title: `Harbour Lights ${suffix}`,
  username: 'captain',
  email: 'captain@example.com',
  password: `Lighthouse#${suffix}`,
};
const BACKUP = { name: 'Before redesign', note: 'All posts and the theme as of launch' };

interface Access {
  sftp: { ipAddress: string; port: number; user: string; password: string };
  database: { user: string; password: string };
}
interface InstanceBody {
  id: string;
  status: string;
  url: string | null;
}

/** A GET of `url` sent to 127.0.0.1 with its host in the Host header (as Caddy routes by it). */
function fetchSite(url: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: Number(port || 80), path: '/', headers: { host: `${hostname}:${port}` } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** The local driver starts MariaDB and the site runtime beside the server: WordPress is deployable then. */
async function untilWordPressIsAvailable() {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const { types } = await api<{ types: { type: string; available: boolean; reason: string | null }[] }>(
      server.baseUrl,
      'GET',
      '/api/instances/capabilities',
      { token: account.token },
    );
    const wordpress = types.find((entry) => entry.type === 'wordpress');
    if (wordpress?.available) return;
    if (Date.now() > deadline) throw new Error(`WordPress never became available: ${wordpress?.reason}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const instance = async () =>
  (
    await api<{ instance: InstanceBody }>(server.baseUrl, 'GET', `/api/instances/${instanceId}`, {
      token: account.token,
    })
  ).instance;

/** The WordPress card of the detail page, and one of its tabs opened. */
const wordpressCard = () => page.getByRole('region', { name: 'WordPress', exact: true });
async function openTab(name: string) {
  await wordpressCard().getByRole('tab', { name }).click();
  return wordpressCard().getByRole('tabpanel', { name });
}

let instanceId = '';
let siteUrl = '';

describe('a WordPress site deployed from the browser', () => {
  beforeAll(async () => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    account = await createAccount(server.baseUrl, {
      firstName: 'Grace',
      lastName: 'Darling',
      username: `grace_${suffix}`,
      email: `grace-${suffix}@example.com`,
      password: 'Longstone#1838',
    });
  });

  it('deploys WordPress from /instances/new and shows it Running', { timeout: 150_000 }, async () => {
    await untilWordPressIsAvailable();
    await openSignedIn(page, server.baseUrl, account.token, '/instances/new');
    await page.getByRole('button', { name: 'Applications' }).click();
    await page.getByRole('radio', { name: 'WordPress' }).click();
    await page.getByLabel('Instance Name').fill(SITE.name);
    await page.getByLabel('Site Title').fill(SITE.title);
    await page.getByLabel('Admin Username').fill(SITE.username);
    await page.getByLabel('Admin Email').fill(SITE.email);
    await page.getByLabel(/^Admin Password/).fill(SITE.password);
    await shot(page, 'wordpress-new');
    const started = performance.now();
    await page.getByRole('button', { name: 'Deploy Instance' }).click();
    await toast(page, 'Instance deployment initiated');
    await page.waitForURL('**/instances');

    const card = page.getByRole('article', { name: SITE.name });
    const href = await card.getByRole('link', { name: SITE.name, exact: true }).getAttribute('href');
    instanceId = href?.split('/').at(-1) ?? '';
    expect(instanceId).toMatch(/^[0-9a-f-]{36}$/);
    await card.getByText('Running', { exact: true }).waitFor({ timeout: 90_000 });
    console.log(`WordPress deployed from the browser in ${(performance.now() - started).toFixed(0)} ms`);
    await shot(page, 'wordpress-list-running');

    await card.getByRole('link', { name: SITE.name, exact: true }).click();
    await page.waitForURL(`**/instances/${instanceId}`);
    await page.getByRole('heading', { level: 1, name: SITE.name }).waitFor();
    await page.getByText('Running', { exact: true }).first().waitFor();
    const body = await instance();
    expect(body.status).toBe('running');
    expect(body.url).toMatch(/^http:\/\/[a-z0-9]+\.localhost:\d+$/);
    siteUrl = body.url ?? '';
    // The URL tile and the Open Instance / Admin buttons of a running site.
    await page.getByText(siteUrl, { exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Open Instance' }).waitFor();
    await page.getByRole('button', { name: 'Admin' }).waitFor();
    await shot(page, 'wordpress-detail');
  });

  it('serves the site title on its temporary URL', async () => {
    const site = await fetchSite(siteUrl);
    expect(site.status).toBe(200);
    expect(site.body).toContain(`<title>${SITE.title}</title>`);
  });

  it('shows the SFTP and database logins on Files & Database', async () => {
    const access = await api<Access>(server.baseUrl, 'GET', `/api/instances/${instanceId}/access`, {
      token: account.token,
    });
    const panel = await openTab('Files & Database');
    const value = (label: string) =>
      panel.locator('dt', { hasText: label }).locator('xpath=following-sibling::dd[1]');
    await expect(value('SFTP Address').textContent()).resolves.toBe(access.sftp.ipAddress);
    await expect(value('SFTP Port').textContent()).resolves.toBe(String(access.sftp.port));
    await expect(value('SFTP User').textContent()).resolves.toBe(access.sftp.user);
    await expect(value('Database User').textContent()).resolves.toBe(access.database.user);
    // Secrets are masked until shown.
    await expect(value('Database Password').textContent()).resolves.not.toContain(access.database.password);
    await panel.getByRole('button', { name: 'Show database password' }).click();
    await expect(value('Database Password').textContent()).resolves.toBe(access.database.password);
    await panel.getByRole('button', { name: 'Show SFTP password' }).click();
    await expect(value('SFTP Password').textContent()).resolves.toBe(access.sftp.password);
    await shot(page, 'wordpress-files-database');

    await panel.getByRole('button', { name: 'Copy database password' }).click();
    await toast(page, 'Database Password copied to clipboard');
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(access.database.password);
  });

  it('creates a backup with a name and a note on Backups, then deletes it', async () => {
    const panel = await openTab('Backups');
    await panel.getByText('No backups yet.').waitFor();
    const form = panel.getByRole('form', { name: 'Create backup' });
    await form.getByLabel('Backup Name').fill(BACKUP.name);
    await form.getByLabel('Note (optional)').fill(BACKUP.note);
    await form.getByRole('button', { name: 'Create Backup' }).click();
    await toast(page, 'Backup creation started');
    const entry = panel.getByRole('list', { name: 'Backups' }).getByRole('listitem', { name: BACKUP.name });
    await entry.getByText(BACKUP.note).waitFor();
    await entry.getByText(/ · [\d.,]+ (KB|MB)$/).waitFor();
    await expect(form.getByLabel('Backup Name').inputValue()).resolves.toBe('');
    await shot(page, 'wordpress-backups');

    await entry.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete backup?' });
    await dialog.getByText(`“${BACKUP.name}” is deleted for good.`).waitFor();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await toast(page, 'Backup deleted');
    await dialog.waitFor({ state: 'hidden' });
    await panel.getByText('No backups yet.').waitFor();
    await expect(
      api<unknown[]>(server.baseUrl, 'GET', `/api/instances/${instanceId}/backups`, { token: account.token }),
    ).resolves.toEqual([]);
  });

  it('lists the add-ons of /wp-addons.json by category on Add-ons', async () => {
    const addons = JSON.parse(
      await readFile(new URL('../public/wp-addons.json', import.meta.url), 'utf8'),
    ) as { name: string; category: string }[];
    const categories = [...new Set(addons.map((addon) => addon.category))];
    const panel = await openTab('Add-ons');
    for (const category of categories) {
      const section = panel.getByRole('region', { name: category, exact: true });
      for (const addon of addons.filter((entry) => entry.category === category)) {
        await section.getByRole('link', { name: addon.name }).waitFor();
      }
    }
    await expect(panel.getByRole('heading', { level: 3 }).allTextContents()).resolves.toEqual(categories);
    await expect(panel.getByRole('link').count()).resolves.toBe(addons.length);
    await shot(page, 'wordpress-addons');
  });

  it('deletes the instance after confirming; its temporary URL then answers 404', {
    timeout: 90_000,
  }, async () => {
    await page.getByRole('button', { name: 'Delete Instance' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete instance?' });
    await dialog
      .getByText(`Are you sure you want to delete "${SITE.name}"? This action cannot be undone.`)
      .waitFor();
    await shot(page, 'wordpress-delete-confirm');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await toast(page, 'Instance deleted successfully');
    await page.waitForURL('**/instances');
    await page.getByRole('article', { name: SITE.name }).waitFor({ state: 'detached', timeout: 60_000 });
    await page.getByText('No instances found').waitFor();
    await shot(page, 'wordpress-deleted');

    expect((await fetchSite(siteUrl)).status).toBe(404);
  });
});
