// `npm test`: everything CI checks, in order, on a machine with nothing but Debian, git and npm.
// 1 system packages, the n8n runtime and the swarm images · 2 typecheck · 3 lint · 4 unused files and
// exports · 5 build (web for the browser tests, desktop) · 6 the web app's JavaScript budget · 7 tests.
// Ends with one line "N passed, N failed" counted from vitest's JSON report.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { ensureSystemPackages, TEST_PACKAGES } from './system-packages.ts';

const REPORT = '.vitest-results/report.json';
/**
 * Tests a whole run may skip, by full name, with why. Anything else that skips (a missing runtime, not
 * root, a tool not installed) fails the run: CI installs everything, so a skip there hides a gap.
 */
const ALLOWED_SKIPS: Record<string, string> = {};

function step(title: string, command: string, args: string[]): void {
  const started = Date.now();
  console.log(`\n[berth] ${title}: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    console.error(`[berth] ${title} failed after ${seconds} s`);
    process.exit(result.status ?? 1);
  }
  console.log(`[berth] ${title} ok (${seconds} s)`);
}

ensureSystemPackages(TEST_PACKAGES);
// n8n 2.8.4 once per host into /var/cache/berth/runtimes (about 7 minutes the first time; then reused).
step('n8n runtime', 'npm', ['run', 'install-n8n']);
// The swarm driver's images (Debian base by debootstrap, one image per type), once per host into
// /var/cache/berth/images (about 10 minutes the first time; then reused).
step('swarm images', 'npm', ['run', 'swarm:local', '--', 'images']);
step('typecheck', 'tsc', ['-b']);
step('lint', 'biome', ['ci', '--error-on-warnings', '.']);
// A file nothing imports or an export nobody uses fails the run (knip.jsonc names the entry files and the
// exceptions). Exported types are not counted: table row types and services' ReturnType aliases keep
// their export by convention.
step('unused code', 'knip', ['--include', 'files,exports']);
step('build web', 'npm', ['run', 'build', '-w', '@berth/web']);
// Fails when the prerendered / loads a script by itself, or when the JavaScript of the app that takes it
// over is above its budget (150 KB gzip).
step('bundle budget', process.execPath, ['scripts/bundle-budget.ts', 'web/dist']);
step('build desktop', 'npm', ['run', 'build', '-w', '@berth/desktop']);

rmSync(REPORT, { force: true });
// The driver contract's tables (server/test/contract/), one per driver, written afresh by this run.
const RESULTS = '.vitest-results';
const contractTables = () => {
  try {
    return readdirSync(RESULTS).filter((name) => /^contract-.+\.md$/.test(name));
  } catch {
    return [];
  }
};
for (const table of contractTables()) rmSync(`${RESULTS}/${table}`, { force: true });
const tests = spawnSync(
  'vitest',
  ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${REPORT}`, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
let summary = 'vitest wrote no report';
let failed = true;
try {
  const report = JSON.parse(readFileSync(REPORT, 'utf8')) as {
    success: boolean;
    numPassedTests: number;
    numFailedTests: number;
    numPendingTests: number;
    testResults: { name: string; assertionResults: { fullName: string; status: string }[] }[];
  };
  summary = `${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests} skipped`;
  failed = !report.success || report.numFailedTests > 0;
  // A whole run skips nothing it was not allowed to (a run filtered by arguments skips what it left out).
  if (process.argv.length <= 2) {
    const skipped = report.testResults.flatMap((file) =>
      file.assertionResults
        .filter((test) => ['pending', 'skipped', 'todo', 'disabled'].includes(test.status))
        .map((test) => test.fullName),
    );
    const unexpected = skipped.filter((name) => !(name in ALLOWED_SKIPS));
    console.log(
      `\n[berth] skips allowed: ${
        Object.entries(ALLOWED_SKIPS)
          .map(([name, why]) => `${name} (${why})`)
          .join('; ') || 'none'
      }`,
    );
    if (unexpected.length > 0) {
      console.error(
        `[berth] skipped, and not allowed to be (the log says why each was):\n  ${unexpected.join('\n  ')}`,
      );
      failed = true;
    }
  }
} catch {}
// Every capability × type × driver: ✓, unavailable with the customer's reason, or ✗.
for (const table of contractTables()) console.log(`\n${readFileSync(`${RESULTS}/${table}`, 'utf8')}`);
console.log(`\nTests: ${summary}`);
// The report decides as much as vitest's exit code: a failure never ends in 0.
process.exit(tests.status === 0 && !failed ? 0 : (tests.status ?? 1) || 1);
