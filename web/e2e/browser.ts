// Debian's Chromium driven by playwright-core (no browser download), with the flags this closed
// network needs.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Debian's Chromium on a machine without internet: no sandbox (root), no GPU, and none of the background
 * connections it would otherwise try (and see refused) at every start.
 */
export const CHROMIUM_OFFLINE_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<BrowserContext> {
  return chromium.launchPersistentContext(await mkdtemp(path.join(tmpdir(), 'berth-chromium-')), {
    executablePath: CHROMIUM,
    viewport: { width: 1280, height: 800 },
    args: ['--headless', ...CHROMIUM_OFFLINE_FLAGS],
  });
}

/** Where screenshots of the runs are kept for a person to look at. */
export const SHOTS = path.join(new URL('../../', import.meta.url).pathname, 'test-results/e2e');
