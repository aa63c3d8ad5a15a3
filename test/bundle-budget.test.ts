import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkBudget,
  firstLoadFiles,
  LANDING_MODULE,
  type Manifest,
  scriptsLoadedWithPage,
} from '../scripts/bundle-budget.ts';

const MANIFEST: Manifest = {
  'index.html': { file: 'assets/index.js', isEntry: true, imports: ['_react.js'] },
  '_react.js': { file: 'assets/react.js' },
  [LANDING_MODULE]: { file: 'assets/landing.js', imports: ['_button.js', '_react.js'] },
  '_button.js': { file: 'assets/button.js' },
  '../ui/src/features/admin/admin-panel-page.tsx': { file: 'assets/admin.js', imports: ['_table.js'] },
  '_table.js': { file: 'assets/table.js' },
};

/** A file of `bytes` random hex characters: gzip cannot shrink it below half. */
const noise = (bytes: number) =>
  Array.from({ length: bytes }, () => Math.floor(Math.random() * 16).toString(16)).join('');

async function dist(sizes: Record<string, number>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'berth-budget-'));
  await mkdir(path.join(dir, 'assets'));
  await mkdir(path.join(dir, '.vite'));
  await writeFile(path.join(dir, '.vite/manifest.json'), JSON.stringify(MANIFEST));
  for (const [file, bytes] of Object.entries(sizes)) await writeFile(path.join(dir, file), noise(bytes));
  return dir;
}

describe('first-load budget of /', () => {
  it('counts the entry, the landing page and what they import, not the other pages', () => {
    expect(firstLoadFiles(MANIFEST, ['index.html', LANDING_MODULE]).sort()).toEqual([
      'assets/button.js',
      'assets/index.js',
      'assets/landing.js',
      'assets/react.js',
    ]);
  });

  it('passes a build under the budget and fails one over it', async () => {
    const sizes = {
      'assets/index.js': 20_000,
      'assets/react.js': 60_000,
      'assets/landing.js': 10_000,
      'assets/button.js': 10_000,
      'assets/admin.js': 400_000,
      'assets/table.js': 400_000,
    };
    const built = await dist(sizes);
    const report = checkBudget(built, 150);
    // 100,000 hex characters gzip to about 50 KB; the admin's 800,000 do not count.
    expect(report.totalKb).toBeGreaterThan(45);
    expect(report.totalKb).toBeLessThan(60);
    expect(report.withinBudget).toBe(true);
    expect(checkBudget(built, 40).withinBudget).toBe(false);
  });
});

describe('scripts the prerendered / loads by itself', () => {
  it('finds script and module preload tags, and none in a page whose app starts on interaction', () => {
    expect(
      scriptsLoadedWithPage(
        '<head><script type="module" crossorigin src="/assets/index-1.js"></script>' +
          '<link rel="modulepreload" crossorigin href="/assets/react-2.js"><link rel="icon" href="/favicon.svg"></head>',
      ),
    ).toEqual(['/assets/index-1.js', '/assets/react-2.js']);
    expect(
      scriptsLoadedWithPage('<head><script>requestAnimationFrame(function(){})</script></head><body></body>'),
    ).toEqual([]);
  });
});
