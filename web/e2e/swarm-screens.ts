// `npm run screens:swarm -w @berth/web`: the Usage tab of a WordPress site and Admin Panel → Server of a
// Berth whose instances run on the local swarm, in Chromium, dark and light, each checked with axe
// (serious or critical violations fail the run). Screenshots go to test-results/e2e/swarm-*.png.
// Not part of `npm test` (that run starts swarms of its own); start the local swarm first:
//   npm run build -w @berth/web && eval "$(npm run -s swarm:local)" && npm run screens:swarm -w @berth/web
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Page } from 'playwright-core';
import { readLocalSwarm } from '../../server/src/provisioning/swarm/local-swarm.ts';
import { seriousViolations } from './axe.ts';
import { launchBrowser } from './browser.ts';
import { api, createAccount, offeredType, openSignedIn, shot, watchPage } from './helpers.ts';
import { freePort, startServer } from './server.ts';

const SWARM_ROOT = '/var/lib/berth-swarm-local';
const SETTINGS = ['PROVISIONER', 'SWARM_REGIONS', 'SITES_BASE_DOMAIN', 'SITES_HTTP_PORT', 'SITES_HTTPS_PORT'];

const swarm = readLocalSwarm(SWARM_ROOT);
if (process.env.PROVISIONER !== 'swarm' || !process.env.SWARM_REGIONS || !swarm) {
  console.error('Start the local swarm and take its settings first: eval "$(npm run -s swarm:local)"');
  process.exit(1);
}
const front = swarm.nodes.find((node) => node.region === 'us-east-1' && node.role === 'manager')?.address;
if (!front) throw new Error('the local swarm has no manager in us-east-1');

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** A GET of the site through its region's front door (the site's host in the Host header). */
const hit = (url: string, path: string) =>
  new Promise<number>((resolve) => {
    const req = request({ host: front, port: 80, path, headers: { host: new URL(url).host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.setTimeout(15_000, () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });

async function screens(page: Page, name: string, mode: 'dark' | 'light'): Promise<void> {
  await shot(page, `swarm-${name}-${mode}`);
  const violations = await seriousViolations(page);
  if (violations.length > 0) throw new Error(`axe on ${name} (${mode}):\n${violations.join('\n')}`);
  console.log(`[screens] ${name}, ${mode}: test-results/e2e/swarm-${name}-${mode}.png, axe clean`);
}

const toggle = (page: Page, to: 'dark' | 'light') =>
  page.getByRole('button', { name: `Switch to ${to} mode` }).click();

const env = Object.fromEntries(
  SETTINGS.flatMap((key) => (process.env[key] ? [[key, process.env[key]]] : [])),
);
const server = await startServer({ ...env, SFTP_PORT: String(await freePort()) });
const browser = await launchBrowser();
try {
  const suffix = randomBytes(3).toString('hex');
  // The first account of a server is its admin.
  const admin = await createAccount(server.baseUrl, {
    firstName: 'Grace',
    lastName: 'Hopper',
    username: `grace_${suffix}`,
    email: `grace-${suffix}@example.com`,
    password: 'Compiler#1952',
  });
  await until('WordPress available on the swarm', 180_000, () =>
    offeredType(server.baseUrl, admin.token, 'wordpress'),
  );
  const { instance } = await api<{ instance: { id: string } }>(
    server.baseUrl,
    'POST',
    '/api/instances/deploy',
    {
      token: admin.token,
      body: {
        name: 'Harbour Blog',
        type: 'WordPress',
        region: 'us-east-1',
        memory: '512MB',
        cpu: '0.5',
        title: 'Harbour Blog',
        username: 'grace',
        email: `grace-${suffix}@example.com`,
        password: `Compiler#${suffix}`,
      },
    },
  );
  const site = await until('the site running', 300_000, async () => {
    const { instance: now } = await api<{ instance: { status: string; url: string | null } }>(
      server.baseUrl,
      'GET',
      `/api/instances/${instance.id}`,
      { token: admin.token },
    );
    return now.status === 'running' && now.url ? now : undefined;
  });
  // Some visits, then samples (every 15 s) with a CPU rate (the second sample of an instance has one).
  for (let round = 0; round < 3; round += 1) {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => hit(site.url ?? '', i % 5 ? '/' : '/wp-login.php')),
    );
    await new Promise((resolve) => setTimeout(resolve, 10_000));
  }
  const page = await browser.newPage();
  page.setDefaultTimeout(30_000);
  watchPage(page);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await openSignedIn(page, server.baseUrl, admin.token, `/instances/${instance.id}?tab=usage`);
  const words = page.getByRole('list', { name: 'Usage in words' });
  await until('CPU and requests measured on the swarm', 120_000, async () => {
    const text = (await words.textContent({ timeout: 1000 }).catch(() => null)) ?? '';
    return /CPU: [\d.]+ vCPU now/.test(text) && /Requests: [1-9]/.test(text) ? text : undefined;
  });
  console.log(`[screens] the Usage tab says: ${await words.textContent()}`);
  // The charts are drawn once their code has loaded.
  await page
    .getByRole('img', { name: /^Memory: / })
    .locator('svg')
    .first()
    .waitFor();
  await screens(page, 'usage-tab', 'dark');
  await toggle(page, 'light');
  await screens(page, 'usage-tab', 'light');

  await page.goto(`${server.baseUrl}/admin-panel?tab=server`);
  const places = page.getByRole('table').filter({ hasText: 'us-east-1' }).first();
  await places.waitFor({ timeout: 60_000 });
  console.log(`[screens] Admin → Server lists: ${(await places.textContent())?.slice(0, 300)}`);
  await screens(page, 'admin-server', 'light');
  await toggle(page, 'dark');
  await screens(page, 'admin-server', 'dark');
  await api(server.baseUrl, 'DELETE', `/api/instances/${instance.id}`, { token: admin.token });
} finally {
  await browser.close();
  await server.stop();
}
