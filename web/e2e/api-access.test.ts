// The public API from a Pro developer's side in a real browser: a key made on /api-access, copied with
// the page's button, used from outside the browser on /api/v1; the reference on /api-reference rendered
// by Scalar from the v1 OpenAPI document, offline.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, browserSuite, type CreatedAccount, createAccount, openSignedIn } from './helpers.ts';
import type { RunningServer } from './server.ts';

let server: RunningServer;
let page: Page;
let user: CreatedAccount;

browserSuite('api-access', (suite) => {
  ({ server, page } = suite);
});

beforeAll(async () => {
  // The server's first account is its admin: it grants itself Pro.
  user = await createAccount(server.baseUrl, {
    firstName: 'Grace',
    lastName: 'Hopper',
    username: 'grace',
    email: 'grace@example.com',
    password: 'Compiler#1952',
  });
  await api(server.baseUrl, 'POST', `/api/admin/users/${user.userId}/plan`, {
    token: user.token,
    body: { plan: 'pro', billingCycle: 'monthly' },
  });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
});

/** Every operation summary of the public document (what /api-reference must show). */
async function operationSummaries(): Promise<string[]> {
  const doc = await api<{ paths: Record<string, Record<string, { summary: string }>> }>(
    server.baseUrl,
    'GET',
    '/api/v1/openapi.json',
  );
  return Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.summary));
}

describe('API access in the browser', () => {
  it('generates a key on /api-access, copies it, and the key lists instances on /api/v1', async () => {
    await openSignedIn(page, server.baseUrl, user.token, '/api-access');
    await page.getByRole('button', { name: 'Generate API Key' }).click();
    await page.getByRole('button', { name: 'Hide API key' }).waitFor();
    const shown = await page.getByRole('textbox', { name: 'API key' }).inputValue();
    expect(shown).toMatch(/^berth_sk_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied!' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(shown);

    const response = await fetch(`${server.baseUrl}/api/v1/instances`, { headers: { 'X-API-Key': copied } });
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-limit')).toBe('150');
    expect(await response.json()).toMatchObject({
      success: true,
      data: { instances: [], total: 0, maxInstances: -1 },
    });
  });

  it('renders the 16 operations of the public API on /api-reference, with nothing fetched from elsewhere', async () => {
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.baseUrl) && !request.url().startsWith('data:'))
        foreign.push(request.url());
    });
    await page.goto(`${server.baseUrl}/api-reference`);
    await page.getByRole('heading', { level: 1, name: 'API Reference' }).waitFor();
    const summaries = await operationSummaries();
    expect(summaries).toHaveLength(16);
    for (const summary of summaries)
      await page.getByText(summary, { exact: true }).first().waitFor({ timeout: 30_000 });
    expect(foreign).toEqual([]);
  });
});
