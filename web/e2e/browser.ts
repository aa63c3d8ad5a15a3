// Debian's Chromium driven by playwright-core (no browser download), with the flags this closed
// network needs.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<BrowserContext> {
  return chromium.launchPersistentContext(await mkdtemp(path.join(tmpdir(), 'berth-chromium-')), {
    executablePath: CHROMIUM,
    viewport: { width: 1280, height: 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Where screenshots of the runs are kept for a person to look at. */
export const SHOTS = path.join(new URL('../../', import.meta.url).pathname, 'test-results/e2e');
