// The pages the server renders (src/lib/server-pages.ts): the public ones with its current settings,
// and signed-in ones for the session in the visitor's cookies, through the renderer the web build
// leaves in dist/.ssr/. Here the renderer is a small module written by the test in the same place and
// with the same exports as the build's (web/src/prerender-entry.tsx): it shows the settings it was
// given and counts its renders, and a signed-in page shows whom the API says the cookie's session is.
// The browser test web/e2e/prerender.test.ts runs the real one.

import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { PRERENDERED_DIR, prerenderedFile, RENDERER_DIR, RENDERER_FILES } from '@berth/openapi/web-renderer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, register, registerAdmin, type TestApp } from './create-test-app.ts';
import { listen } from './listen.ts';
import { createTestDatabase } from './test-db.ts';

/** Renders `<url> <starter price> render #<n>`; fails for /broken, as a page with a bug would. */
const RENDERER = `
let renders = 0;
export async function renderDocument(template, url, config) {
  if (url === '/broken') throw new Error('this page cannot render');
  renders += 1;
  return '<!doctype html><title>' + template.title + '</title><p>' + url + ' ' +
    config.plans.currencySymbol + config.plans.starter.monthly + ' render #' + renders + '</p>';
}
export async function renderSignedInDocument(template, visit) {
  const token = /berth_session=([^;]+)/.exec(visit.cookies ?? '')?.[1];
  if (token === 'crash') throw new Error('this signed-in page cannot render');
  if (token.startsWith('slow-')) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return '<!doctype html><p>slow ' + token + '</p>';
  }
  if (!token) return undefined;
  const answer = await visit.fetch(new Request('http://berth.render/api/auth/profile', {
    headers: { authorization: 'Bearer ' + token },
  }));
  if (!answer.ok) return undefined;
  const { user } = await answer.json();
  return '<!doctype html><title>' + template.title + '</title><p>' + visit.url + ' for ' + user.username + '</p>';
}
`;
const TEMPLATES = {
  '/pricing': { title: 'Pricing' },
  '/': { title: 'Home' },
  '/broken': { title: 'Broken' },
};
const SIGNED_IN_TEMPLATES = { '/dashboard': { title: 'Dashboard' } };
const BUILT_BROKEN = '<!doctype html><title>Broken</title><p>as built</p>';
const INDEX = '<!doctype html><title>Berth UI</title><div id="root"></div>';

let app: TestApp;
let db: Awaited<ReturnType<typeof createTestDatabase>>['db'];
let server: { url: string; close(): Promise<void> };
let errors: string[];
const originalError = console.error;

beforeAll(async () => {
  ({ db } = await createTestDatabase());
  const dist = await mkdtemp(path.join(tmpdir(), 'berth-dist-'));
  const rendererDir = path.join(dist, RENDERER_DIR);
  await mkdir(rendererDir);
  await mkdir(path.join(dist, PRERENDERED_DIR));
  await writeFile(path.join(rendererDir, RENDERER_FILES.bundle), RENDERER);
  await writeFile(path.join(rendererDir, RENDERER_FILES.publicPages), JSON.stringify(TEMPLATES));
  await writeFile(path.join(rendererDir, RENDERER_FILES.signedInPages), JSON.stringify(SIGNED_IN_TEMPLATES));
  await writeFile(path.join(dist, PRERENDERED_DIR, prerenderedFile('/broken')), BUILT_BROKEN);
  await writeFile(path.join(dist, 'index.html'), INDEX);
  errors = [];
  console.error = (...args: unknown[]) => errors.push(args.map(String).join(' '));
  app = createTestApp(db, { webDistDir: dist });
  server = await listen(app);
});

afterAll(async () => {
  console.error = originalError;
  await server?.close();
});

const page = async (route: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${server.url}${route}`, { headers });
  return { response, text: await response.text() };
};

describe('public pages rendered by the server', () => {
  it("show the admin's prices, rendered once per version of the settings; a change shows at the next visit", async () => {
    const first = await page('/pricing');
    expect(first.response.status).toBe(200);
    expect(first.response.headers.get('cache-control')).toBe('no-cache');
    expect(first.response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(first.text).toContain('/pricing $3.99 render #1');
    // The same settings: the page kept from the first visit.
    expect((await page('/pricing')).text).toContain('render #1');

    const admin = await registerAdmin(app, db);
    const saved = await app.request('/api/admin/payment-settings', {
      method: 'PUT',
      headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ currency: 'EUR', prices: { starter: 5.49, pro: 24, addonInstance: 2.5 } }),
    });
    expect(saved.status).toBe(200);
    expect((await page('/pricing')).text).toContain('/pricing €5.49 render #2');
    expect((await page('/')).text).toContain('/ €5.49 render #3');
  });

  it('are compressed as the browser accepts, and vary by it', async () => {
    const response = await fetch(`${server.url}/`, { headers: { 'accept-encoding': 'br' } });
    expect(response.headers.get('content-encoding')).toBe('br');
    expect(response.headers.get('vary')).toBe('Accept-Encoding');
    // fetch decoded it: the same page as the plain answer.
    expect(await response.text()).toContain('/ €5.49');
    const raw = await new Promise<Buffer>((resolve, reject) => {
      import('node:http').then(({ get }) =>
        get(`${server.url}/`, { headers: { 'accept-encoding': 'br' } }, (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => resolve(Buffer.concat(chunks)));
        }).on('error', reject),
      );
    });
    expect(brotliDecompressSync(raw).toString()).toContain('/ €5.49');
  });

  it('fall back to the page as the build wrote it when rendering fails, and say so once', async () => {
    const broken = await page('/broken');
    expect(broken.response.status).toBe(200);
    expect(broken.text).toBe(BUILT_BROKEN);
    await page('/broken');
    expect(errors.filter((line) => line.includes('cannot render'))).toHaveLength(1);
    // Other pages still render.
    expect((await page('/pricing')).text).toContain('/pricing €5.49');
  });

  it('leave every other path to the app, and never serve the renderer itself', async () => {
    expect((await page('/dashboard')).text).toBe(INDEX);
    expect((await page('/.ssr/render.mjs')).text).toBe(INDEX);
    expect((await page('/.ssr/pages.json')).text).toBe(INDEX);
  });
});

describe('signed-in pages rendered by the server', () => {
  it("are rendered per visit for the cookie's session, through the API in-process, and never kept", async () => {
    const user = await register(app);
    const first = await page('/dashboard', { cookie: `theme=dark; berth_session=${user.token}` });
    expect(first.response.status).toBe(200);
    expect(first.text).toContain(`/dashboard for ${user.body.username}`);
    expect(first.response.headers.get('cache-control')).toBe('private, no-store');
    expect(first.response.headers.get('vary')).toBe('Accept-Encoding, Cookie');
    const other = await register(app);
    expect((await page('/dashboard', { cookie: `berth_session=${other.token}` })).text).toContain(
      `/dashboard for ${other.body.username}`,
    );
  });

  it('leave the page to the app without a valid session, and the API never takes the cookie', async () => {
    const user = await register(app);
    expect((await page('/dashboard')).text).toBe(INDEX);
    expect((await page('/dashboard', { cookie: 'berth_session=not-a-token' })).text).toBe(INDEX);
    const profile = await fetch(`${server.url}/api/auth/profile`, {
      headers: { cookie: `berth_session=${user.token}` },
    });
    expect(profile.status).toBe(401);
    // A public page is the same for a signed-in visitor's request.
    expect((await page('/pricing', { cookie: `berth_session=${user.token}` })).text).toContain(
      '/pricing €5.49',
    );
  });

  it('render two at once at most: a third visit meanwhile gets the app, rendered by the browser', async () => {
    const answers = await Promise.all(
      ['slow-1', 'slow-2', 'slow-3'].map((token) => page('/dashboard', { cookie: `berth_session=${token}` })),
    );
    const texts = answers.map((answer) => answer.text);
    expect(texts.filter((text) => text.includes('<p>slow slow-')).length).toBe(2);
    expect(texts.filter((text) => text === INDEX).length).toBe(1);
    // Once they are done, the next visit is rendered again.
    expect((await page('/dashboard', { cookie: 'berth_session=slow-4' })).text).toContain('slow slow-4');
  });

  it('fall back to the app when rendering fails, and say so once', async () => {
    expect((await page('/dashboard', { cookie: 'berth_session=crash' })).text).toBe(INDEX);
    expect((await page('/dashboard', { cookie: 'berth_session=crash' })).text).toBe(INDEX);
    expect(errors.filter((line) => line.includes('signed-in page cannot render'))).toHaveLength(1);
  });
});
