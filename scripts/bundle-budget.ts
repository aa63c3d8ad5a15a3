// The JavaScript budget of the web app's `/` (issue 15): BUDGET_KB gzip. The prerendered page itself
// loads no script (checked first: scriptsLoadedWithPage); the app that takes it over is the entry chunk,
// the landing page's lazy chunk and every chunk they import, gzip-compressed. Not in it: the query layer
// (TanStack Query), the Not Found and session error screens and MUI's Grid, which load with the first
// screen that needs them, and the API client's code, which loads once the app has started. Reads the build's manifest
// (web/dist/.vite/manifest.json); `npm test` runs it after the web build and fails above the budget.
//   node scripts/bundle-budget.ts [distDir]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET_KB = 150;

/** The module of the page `/` shows to visitors, as the manifest names it (relative to web/). */
export const LANDING_MODULE = '../ui/src/features/landing/landing-page.tsx';

export interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
}

export type Manifest = Record<string, ManifestChunk>;

/** The files (relative to dist) loaded before `roots` can run: the roots and all they import. */
export function firstLoadFiles(manifest: Manifest, roots: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`the manifest has no chunk ${key}`);
    seen.add(key);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  for (const root of roots) visit(root);
  return [...new Set([...seen].map((key) => manifest[key]?.file ?? key))].filter((file) =>
    file.endsWith('.js'),
  );
}

export interface BudgetReport {
  files: { file: string; gzipBytes: number }[];
  totalKb: number;
  budgetKb: number;
  withinBudget: boolean;
}

/** Measures the first load of `/` in a built `distDir`. */
export function checkBudget(distDir: string, budgetKb = BUDGET_KB): BudgetReport {
  const manifest = JSON.parse(readFileSync(path.join(distDir, '.vite/manifest.json'), 'utf8')) as Manifest;
  const entries = Object.entries(manifest)
    .filter(([, chunk]) => chunk.isEntry)
    .map(([key]) => key);
  if (entries.length === 0) throw new Error('the manifest has no entry chunk');
  // The landing page is its own chunk when routes are split; otherwise it is inside the entry.
  const roots = manifest[LANDING_MODULE] ? [...entries, LANDING_MODULE] : entries;
  const files = firstLoadFiles(manifest, roots)
    .map((file) => ({
      file,
      gzipBytes: gzipSync(readFileSync(path.join(distDir, file)), { level: 9 }).length,
    }))
    .sort((a, b) => b.gzipBytes - a.gzipBytes);
  const totalKb = files.reduce((sum, f) => sum + f.gzipBytes, 0) / 1000;
  return { files, totalKb, budgetKb, withinBudget: totalKb <= budgetKb };
}

/**
 * The scripts the prerendered `/` (dist/prerendered/index.html) makes the browser load by itself: none,
 * since its app loads on the first interaction (web/src/prerender-contract.ts startScript).
 */
export function scriptsLoadedWithPage(html: string): string[] {
  return Array.from(
    html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"|<link\b[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g),
    (match) => match[1] ?? match[2] ?? '',
  );
}

if (import.meta.main) {
  const distDir = path.resolve(process.argv[2] ?? 'web/dist');
  const withPage = scriptsLoadedWithPage(readFileSync(path.join(distDir, 'prerendered/index.html'), 'utf8'));
  console.log(
    `[berth] scripts the prerendered / loads before anyone uses it: ${withPage.length === 0 ? 'none' : withPage.join(', ')}`,
  );
  if (withPage.length > 0) process.exit(1);
  const report = checkBudget(distDir);
  for (const { file, gzipBytes } of report.files)
    console.log(`  ${(gzipBytes / 1000).toFixed(1).padStart(7)} KB  ${file}`);
  console.log(
    `[berth] JavaScript of the app that takes over /: ${report.totalKb.toFixed(1)} KB gzip in ${report.files.length} files; ` +
      (report.withinBudget
        ? `within the budget of ${BUDGET_KB} KB`
        : `${(report.totalKb - BUDGET_KB).toFixed(1)} KB OVER THE BUDGET of ${BUDGET_KB} KB`),
  );
  if (!report.withinBudget) process.exit(1);
}
