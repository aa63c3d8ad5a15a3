// /api-reference in Chromium: Scalar's reference is styled in the dark and the light theme (the sidebar
// beside the content at 1280 px, Scalar's fonts and colours on the headings, one search control), painted
// from the page's own markup before any script runs; and it loads inside the desktop app's content
// security policy (desktop/src/renderer/index.html, the built renderer) without a violation.
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHOTS } from './browser.ts';
import { browserSuite, settled } from './helpers.ts';
import type { RunningServer } from './server.ts';

let server: RunningServer;
let page: Page;

browserSuite('api-reference', (suite) => {
  ({ server, page } = suite);
});

const repo = new URL('../../', import.meta.url).pathname;

/** The window as a person sees it (the whole page is some 30 000 px tall), kept under test-results/e2e. */
async function shot(p: Page, name: string) {
  await mkdir(SHOTS, { recursive: true });
  await settled(p, 2_000).catch(() => {});
  await p.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** What the reference looks like now: the boxes and computed styles a person would notice. */
async function layout(p: Page) {
  return p.evaluate(() => {
    const box = (element: Element | null) => {
      const rect = element?.getBoundingClientRect();
      return rect ? { x: rect.x, y: rect.y, width: rect.width, height: rect.height } : null;
    };
    const title = document.querySelector('h1.section-header-label');
    const style = title ? getComputedStyle(title) : null;
    // The sidebar's search controls on screen (the narrow layout's own stays hidden at this width).
    const search = Array.from(document.querySelectorAll('aside button')).filter(
      (b) => /search/i.test(b.textContent ?? '') && b.getClientRects().length > 0,
    );
    return {
      sidebar: box(document.querySelector('aside.t-doc__sidebar')),
      content: box(document.querySelector('main.references-rendered, .references-rendered')),
      title: style && {
        text: title?.textContent?.trim(),
        color: style.color,
        fontFamily: style.fontFamily,
        scalarColor: style.getPropertyValue('--scalar-color-1').trim(),
      },
      searchControls: search.length,
      search: box(search[0] ?? null),
      // Its screen-reader-only parts stay out of sight when the styles apply.
      searchHiddenParts: Array.from(search[0]?.querySelectorAll('.sr-only') ?? []).map(
        (part) => part.getBoundingClientRect().width,
      ),
      background: getComputedStyle(document.querySelector('.scalar-app') ?? document.body).backgroundColor,
    };
  });
}

/** `#rrggbb` as the `rgb(r, g, b)` a computed style gives. */
const rgb = (hex: string) => {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  return `rgb(${r}, ${g}, ${b})`;
};

/** Relative luminance of an `rgb(…)` colour, 0 (black) to 1 (white). */
function luminance(color: string): number {
  const [r = 0, g = 0, b = 0] = (color.match(/\d+(\.\d+)?/g) ?? []).map(Number).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function expectStyled(shown: Awaited<ReturnType<typeof layout>>) {
  // The sidebar and the content side by side, not stacked.
  expect(shown.sidebar?.width).toBeGreaterThan(200);
  expect(shown.content?.x).toBeGreaterThanOrEqual((shown.sidebar?.x ?? 0) + (shown.sidebar?.width ?? 0) - 1);
  expect(Math.abs((shown.content?.y ?? 0) - (shown.sidebar?.y ?? 0))).toBeLessThan(5);
  // The document's title in Scalar's heading colour and font, not the browser's defaults.
  expect(shown.title?.text).toBe('Berth public API');
  expect(shown.title?.color).toBe(rgb(shown.title?.scalarColor ?? ''));
  expect(shown.title?.fontFamily).toMatch(/^Inter, ui-sans-serif/);
  // One search control in the sidebar, one line high, its screen-reader text out of sight.
  expect(shown.searchControls).toBe(1);
  expect(shown.search?.height).toBeLessThanOrEqual(40);
  expect(shown.search?.x).toBeLessThan((shown.sidebar?.x ?? 0) + (shown.sidebar?.width ?? 0));
  expect(shown.searchHiddenParts.length).toBeGreaterThan(0);
  for (const width of shown.searchHiddenParts) expect(width).toBeLessThanOrEqual(1);
}

/** Scalar's own drawing has replaced the page's markup. */
const scalarLive = (p: Page) =>
  p.waitForFunction(
    () =>
      document.querySelector('[data-scalar-static]') === null &&
      document.querySelector('[data-scalar-reference] h1.section-header-label') !== null,
    null,
    { timeout: 60_000 },
  );

describe('/api-reference is styled', { timeout: 120_000 }, () => {
  it('dark (the default): painted styled from the page before any script, the same once Scalar takes over', async () => {
    const scripts: string[] = [];
    const onRequest = (request: { resourceType(): string; url(): string }) => {
      if (request.resourceType() === 'script') scripts.push(request.url());
    };
    page.on('request', onRequest);
    await page.goto(`${server.baseUrl}/api-reference`);
    await page.locator('[data-scalar-static] h1.section-header-label').waitFor();
    const before = await layout(page);
    page.off('request', onRequest);
    // Nobody has used the page yet: no script was fetched, the styles alone draw it.
    expect(scripts).toEqual([]);
    expectStyled(before);
    expect(luminance(before.background)).toBeLessThan(0.05);
    await shot(page, 'api-reference-1-dark-before-scripts');

    await page.mouse.move(400, 400);
    await scalarLive(page);
    const live = await layout(page);
    expectStyled(live);
    expect(luminance(live.background)).toBeLessThan(0.05);
    await shot(page, 'api-reference-2-dark');
  });

  it('light: Scalar draws it styled in the light theme', async () => {
    const light = await page.context().newPage();
    try {
      await light.addInitScript(() => localStorage.setItem('theme', 'light'));
      await light.goto(`${server.baseUrl}/api-reference`);
      await scalarLive(light);
      const shown = await layout(light);
      expectStyled(shown);
      expect(luminance(shown.background)).toBeGreaterThan(0.8);
      await shot(light, 'api-reference-3-light');
    } finally {
      await light.close();
    }
  });
});

/** The desktop renderer's built files over HTTP (Chromium loads no ES modules from file:// here). */
function serveRenderer(dir: string): Promise<{ url: string; server: Server }> {
  const types: Record<string, string> = {
    '.html': 'text/html',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.svg': 'image/svg+xml',
    '.json': 'application/json',
  };
  return new Promise((resolve) => {
    const http = createServer(async (request, response) => {
      const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname);
      const file = path.join(dir, pathname === '/' ? 'index.html' : pathname);
      if (!file.startsWith(dir) || !existsSync(file)) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
      response.end(await readFile(file));
    });
    http.listen(0, '127.0.0.1', () => {
      const address = http.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ url: `http://127.0.0.1:${port}`, server: http });
    });
  });
}

describe('inside the desktop app’s content security policy', { timeout: 120_000 }, () => {
  const rendererDir = path.join(repo, 'desktop/out/renderer');
  let renderer: { url: string; server: Server } | undefined;
  beforeAll(async () => {
    if (!existsSync(path.join(rendererDir, 'index.html')))
      throw new Error('desktop/out is missing: run `npm run build -w @berth/desktop` first (npm test does)');
    renderer = await serveRenderer(rendererDir);
  });
  afterAll(() => new Promise<void>((done) => (renderer ? renderer.server.close(() => done()) : done())));

  it('loads /api-reference in the built renderer, its policy from index.html, with no violation', async () => {
    const built = await readFile(path.join(rendererDir, 'index.html'), 'utf8');
    const policy = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(built)?.[1] ?? '';
    // The policy of the source, as built: no inline script, no eval.
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-eval');

    const desktop = await page.context().newPage();
    const violations: string[] = [];
    desktop.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    try {
      // The preload's bridge (desktop/src/preload): signed out, talking to the server under test.
      await desktop.addInitScript((serverUrl) => {
        const none = async () => null;
        const done = async () => {};
        Object.assign(window, {
          desktop: {
            getToken: none,
            setToken: done,
            clearToken: done,
            getRefreshToken: none,
            setRefreshToken: done,
            getSecret: none,
            setSecret: done,
            deleteSecret: done,
            getServerUrl: async () => serverUrl,
            setServerUrl: done,
            reportInstanceCounts: done,
            openExternal: done,
            notify: done,
            onOpenRoute: () => () => {},
          },
          cspViolations: [] as string[],
        });
        document.addEventListener('securitypolicyviolation', (event) => {
          (window as unknown as { cspViolations: string[] }).cspViolations.push(
            `${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`,
          );
        });
      }, server.baseUrl);
      await desktop.goto(`${renderer?.url}/#/api-reference`);
      await scalarLive(desktop);
      expectStyled(await layout(desktop));
      // The examples name the server the app talks to.
      await desktop.getByText(server.baseUrl, { exact: true }).first().waitFor();
      await shot(desktop, 'api-reference-4-desktop');
      const seen = await desktop.evaluate(
        () => (window as unknown as { cspViolations: string[] }).cspViolations,
      );
      expect([...seen, ...violations]).toEqual([]);
    } finally {
      await desktop.close();
    }
  });
});
