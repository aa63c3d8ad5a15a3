// The Usage tab of a real WordPress site in Chromium: the server runs the local driver (control
// groups, php-fpm, Caddy's access log, the sampler every 15 s). A burst of requests to the site's
// temporary URL shows up in the tab's text alternative (the numbers in words beside the charts), and
// the memory line names the site's limit.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.ts';
import {
  api,
  browserSuite,
  type CreatedAccount,
  createAccount,
  offeredType,
  openSignedIn,
  shot,
} from './helpers.ts';
import { localDriverEnv, type RunningServer } from './server.ts';

let server: RunningServer;
let page: Page;
let account: CreatedAccount;

browserSuite(
  'usage',
  (suite) => {
    ({ server, page } = suite);
  },
  localDriverEnv,
);

const suffix = randomBytes(3).toString('hex');
const BURST = 60;

/** A GET of `path` on the site, sent to 127.0.0.1 with its host in the Host header (Caddy routes by it). */
function hit(url: string, path = '/'): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: Number(port || 80), path, headers: { host: `${hostname}:${port}` } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error(`GET ${url}${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

interface InstanceBody {
  id: string;
  status: string;
  url: string | null;
}

describe('the Usage tab in the browser', () => {
  beforeAll(async () => {
    account = await createAccount(server.baseUrl, {
      firstName: 'Ada',
      lastName: 'Byron',
      username: `ada_${suffix}`,
      email: `ada-${suffix}@example.com`,
      password: 'Engine#1843',
    });
  });

  it('says in words what a site used, its requests and its memory against its limit', {
    timeout: 240_000,
  }, async () => {
    await until('WordPress available', 90_000, () => offeredType(server.baseUrl, account.token, 'wordpress'));
    const { instance: created } = await api<{ instance: InstanceBody }>(
      server.baseUrl,
      'POST',
      '/api/instances/deploy',
      {
        token: account.token,
        body: {
          name: 'Counted',
          type: 'WordPress',
          memory: '512MB',
          cpu: '0.5',
          title: `Counted ${suffix}`,
          username: 'ada',
          email: `ada-${suffix}@example.com`,
          password: `Engine#${suffix}`,
        },
      },
    );
    const site = await until('the site running', 150_000, async () => {
      const { instance } = await api<{ instance: InstanceBody }>(
        server.baseUrl,
        'GET',
        `/api/instances/${created.id}`,
        { token: account.token },
      );
      return instance.status === 'running' && instance.url ? instance : undefined;
    });
    const url = site.url ?? '';

    await openSignedIn(page, server.baseUrl, account.token, `/instances/${site.id}?tab=usage`);
    await page.getByRole('tab', { name: 'Usage', selected: true }).waitFor();
    const words = page.getByRole('list', { name: 'Usage in words' });
    await words.waitFor({ timeout: 30_000 });

    const statuses = await Promise.all(
      Array.from({ length: BURST }, (_, i) => hit(url, i % 10 === 0 ? '/no-such-page' : '/wp-login.php')),
    );
    // Every answer counts, whatever its class (a loaded machine may answer some 502 at 0.5 vCPU).
    const classOf = (status: number) => (status < 300 ? 2 : status < 400 ? 3 : status < 500 ? 4 : 5);
    const sent = [2, 3, 4, 5].map((c) => statuses.filter((status) => classOf(status) === c).length);
    expect(statuses.every((status) => status >= 100)).toBe(true);

    // The next samples (every 15 s) reach the open page over the live stream: no reload.
    const requests = await until('the burst in words', 60_000, async () => {
      // No line until the first sample of the site has arrived.
      const line = await words
        .getByText(/^Requests: /)
        .textContent({ timeout: 1000 })
        .catch(() => null);
      const total = Number(/^Requests: ([\d,]+) /.exec(line ?? '')?.[1]?.replaceAll(',', '') ?? 0);
      return total >= BURST ? (line ?? '') : undefined;
    });
    console.log(`[usage e2e] sent 2xx/3xx/4xx/5xx: ${sent.join('/')}; the tab: ${requests}`);
    // The tab counts the burst, plus the few requests of the deploy's own checks at most.
    const total = Number(/^Requests: ([\d,]+) /.exec(requests)?.[1]?.replaceAll(',', ''));
    expect(total).toBeLessThanOrEqual(BURST + 10);
    const counted =
      /: ([\d,]+) successful, ([\d,]+) redirects, ([\d,]+) client errors, ([\d,]+) server errors\.$/
        .exec(requests)
        ?.slice(1)
        .map((n) => Number(n.replaceAll(',', '')));
    expect(counted).toHaveLength(4);
    // Each class counts at least what the burst got of it (the deploy's check adds a success or two).
    sent.forEach((n, i) => {
      expect(counted?.[i]).toBeGreaterThanOrEqual(n);
    });

    const memory = await words.getByText(/^Memory: /).textContent();
    expect(memory).toMatch(/^Memory: [\d.]+ [KMG]B now of 512 MB; peak [\d.]+ [KMG]B in the last hour\.$/);
    // CPU is a rate: the first sample of an instance has no interval yet, the next one (15 s on) has.
    const cpu = await until('CPU measured', 40_000, async () => {
      const line = (await words.getByText(/^CPU: /).textContent()) ?? '';
      return line.includes('not measured') ? undefined : line;
    });
    expect(cpu).toMatch(/^CPU: [\d.]+ vCPU now of 0\.5 vCPU; peak [\d.]+ vCPU in the last hour\.$/);
    // Each chart's own text alternative (its accessible name) says the same as the words above it.
    const chart = page.getByRole('img', { name: /^Memory: / });
    await chart.locator('svg').first().waitFor();
    // (Read again if a new point came in between the two reads.)
    await until('the chart named as the words say', 20_000, async () => {
      const name = await chart.getAttribute('aria-label');
      return name === (await words.getByText(/^Memory: /).textContent()) ? name : undefined;
    });
    await shot(page, 'usage-tab');
    expect(await seriousViolations(page), 'axe on the Usage tab, dark').toEqual([]);
    await page.getByRole('button', { name: 'Switch to light mode' }).click();
    await shot(page, 'usage-tab-light');
    expect(await seriousViolations(page), 'axe on the Usage tab, light').toEqual([]);

    // The dashboard's current-instance card: small memory and CPU lines, the values in words.
    await page.getByRole('link', { name: 'Dashboard' }).first().click();
    const card = page.getByRole('region', { name: 'Usage, last hour' });
    await card
      .getByRole('img', { name: 'Memory and CPU over the last hour' })
      .locator('svg')
      .first()
      .waitFor();
    expect(await card.textContent()).toMatch(/Memory: [\d.]+ [KMG]B now of 512 MB/);
    expect(await seriousViolations(page), 'axe on the dashboard with the sparklines').toEqual([]);
    await shot(page, 'usage-dashboard');
  });
});
