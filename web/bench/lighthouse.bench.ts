// `npm run bench:web` (after `npm run build -w @berth/web`, which the script does first): Lighthouse
// (the npm package, mobile form factor, simulated slow 4G and 4× CPU) against Debian's Chromium, offline,
// on the built web app served by the real server. Prints performance and accessibility of the public
// pages, /api-reference and /dashboard signed in, next to the targets of issues 15 and 27; the median of
// `RUNS` runs each.
//   node web/bench/lighthouse.bench.ts [RUNS]

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { type Result } from 'lighthouse';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_OFFLINE_FLAGS } from '../e2e/browser.ts';
import { startServer } from '../e2e/server.ts';
import { INTL_COOKIE, SESSION_COOKIE } from '../src/prerender-contract.ts';

const RUNS = Math.max(1, Number(process.argv[2] ?? 1));
/** Set LIGHTHOUSE_REPORTS to a folder to keep each run's full report there (JSON, for the long tasks). */
const REPORTS = process.env.LIGHTHOUSE_REPORTS;
/** Set LIGHTHOUSE_PAGES to a comma-separated list of paths to measure only those (default: all five). */
const PAGES = process.env.LIGHTHOUSE_PAGES?.split(',').map((page) => page.trim());

interface Target {
  path: string;
  /** Lowest performance score that meets the target. */
  performance: number;
  signedIn: boolean;
}

const TARGETS: readonly Target[] = [
  { path: '/', performance: 95, signedIn: false },
  { path: '/pricing', performance: 95, signedIn: false },
  { path: '/login', performance: 95, signedIn: false },
  // Scalar's reference (issue 27): its markup and styles paint first; its script loads on first use.
  { path: '/api-reference', performance: 80, signedIn: false },
  // Last: signing in leaves a token in the browser, which turns a public page into the signed-in app.
  { path: '/dashboard', performance: 90, signedIn: true },
];
const ACCESSIBILITY = 100;

const CHROME_FLAGS = ['--headless=new', ...CHROMIUM_OFFLINE_FLAGS];

interface Measure {
  performance: number;
  accessibility: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  transferKiB: number;
}

const score = (lhr: Result, id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
const numeric = (lhr: Result, id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;

function measureOf(lhr: Result): Measure {
  return {
    performance: score(lhr, 'performance'),
    accessibility: score(lhr, 'accessibility'),
    fcpMs: numeric(lhr, 'first-contentful-paint'),
    lcpMs: numeric(lhr, 'largest-contentful-paint'),
    tbtMs: numeric(lhr, 'total-blocking-time'),
    cls: numeric(lhr, 'cumulative-layout-shift'),
    transferKiB: numeric(lhr, 'total-byte-weight') / 1024,
  };
}

/** The run with the median performance score. */
function median(runs: Measure[]): Measure {
  const sorted = [...runs].sort((a, b) => a.performance - b.performance);
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (!middle) throw new Error('no Lighthouse run');
  return middle;
}

async function register(baseUrl: string): Promise<string> {
  const stamp = Date.now();
  const response = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      accountType: 'individual',
      firstName: 'Light',
      lastName: 'House',
      username: `lighthouse${stamp}`,
      email: `lighthouse${stamp}@example.com`,
      password: 'Light#house2026',
    }),
  });
  if (!response.ok) throw new Error(`register answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

/**
 * Stores the token where the web app keeps it (localStorage, and the session cookies the server renders
 * the dashboard with: web/src/web-platform.ts), and empties the HTTP cache, so the signed-in run loads
 * every file as the first visit after signing in would.
 */
async function signIn(port: number, baseUrl: string, token: string | null): Promise<void> {
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  try {
    const context = browser.contexts()[0] ?? (await browser.newContext());
    const page = await context.newPage();
    await page.goto(`${baseUrl}/terms`);
    await page.evaluate((value) => {
      if (value === null) localStorage.removeItem('token');
      else localStorage.setItem('token', value);
    }, token);
    if (token !== null)
      await context.addCookies([
        { name: SESSION_COOKIE, value: token, url: baseUrl, sameSite: 'Lax' },
        { name: INTL_COOKIE, value: encodeURIComponent('en-US|UTC'), url: baseUrl, sameSite: 'Lax' },
      ]);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.clearBrowserCache');
    await page.close();
  } finally {
    await browser.close();
  }
}

const server = await startServer({ PROVISIONER: 'none' });
const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: CHROME_FLAGS });
const results: { target: Target; measure: Measure }[] = [];
try {
  const token = await register(server.baseUrl);
  for (const target of TARGETS.filter((t) => !PAGES || PAGES.includes(t.path))) {
    const runs: Measure[] = [];
    for (let run = 0; run < RUNS; run++) {
      // Public pages: Lighthouse empties storage and cache first (a first visit). Signed in: the token
      // must survive, so the cache is emptied here instead.
      let result: Awaited<ReturnType<typeof lighthouse>>;
      for (let attempt = 1; ; attempt++) {
        if (target.signedIn) await signIn(chrome.port, server.baseUrl, token);
        result = await lighthouse(`${server.baseUrl}${target.path}`, {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: ['performance', 'accessibility'],
          disableStorageReset: target.signedIn,
        });
        // Chromium's trace sometimes misses the navigation's start on a busy machine: measure again.
        if (result?.lhr.runtimeError?.code !== 'NO_NAVSTART' || attempt === 3) break;
        console.log(`${target.path}: NO_NAVSTART, measuring again`);
      }
      if (!result) throw new Error(`Lighthouse returned nothing for ${target.path}`);
      if (result.lhr.runtimeError)
        throw new Error(`${target.path}: ${result.lhr.runtimeError.code} ${result.lhr.runtimeError.message}`);
      const finalUrl = new URL(result.lhr.finalDisplayedUrl).pathname;
      if (finalUrl !== target.path) throw new Error(`${target.path} ended on ${finalUrl}`);
      if (REPORTS) {
        await mkdir(REPORTS, { recursive: true });
        const name = `${target.path.replace(/\W+/g, '_') || 'root'}-${run + 1}.json`;
        await writeFile(path.join(REPORTS, name), JSON.stringify(result.lhr));
      }
      runs.push(measureOf(result.lhr));
    }
    results.push({ target, measure: median(runs) });
  }
} finally {
  chrome.kill();
  await server.stop();
}

const cell = (value: string, width: number) => value.padStart(width);
console.log(
  `\nLighthouse ${RUNS > 1 ? `(median of ${RUNS} runs) ` : ''}mobile, simulated throttling, Debian Chromium`,
);
console.log(
  `${'page'.padEnd(15)}${cell('perf', 6)}${cell('target', 8)}${cell('a11y', 6)}${cell('FCP', 9)}${cell('LCP', 9)}${cell('TBT', 8)}${cell('CLS', 7)}${cell('KiB', 8)}`,
);
let missed = 0;
for (const { target, measure: m } of results) {
  const met = m.performance >= target.performance && m.accessibility >= ACCESSIBILITY;
  if (!met) missed++;
  console.log(
    `${target.path.padEnd(15)}${cell(String(m.performance), 6)}${cell(`≥ ${target.performance}`, 8)}${cell(String(m.accessibility), 6)}${cell(`${(m.fcpMs / 1000).toFixed(2)} s`, 9)}${cell(`${(m.lcpMs / 1000).toFixed(2)} s`, 9)}${cell(`${m.tbtMs.toFixed(0)} ms`, 8)}${cell(m.cls.toFixed(3), 7)}${cell(m.transferKiB.toFixed(0), 8)}  ${met ? 'ok' : 'BELOW TARGET'}`,
  );
}
console.log(
  `targets: performance ≥ 95 on the public pages, ≥ 80 on /api-reference, ≥ 90 on /dashboard; accessibility ${ACCESSIBILITY} everywhere` +
    ` — ${missed === 0 ? 'all met' : `${missed} page(s) below`}`,
);
