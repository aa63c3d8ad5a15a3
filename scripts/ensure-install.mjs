// Runs before `npm start` and `npm test` on whatever node is on PATH (even an old system one): installs
// the npm dependencies (which bring the pinned Node 24) when node_modules is missing or older than the
// lockfile, so a fresh clone needs nothing but those two commands.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
const stale = !existsSync(marker) || statSync('package-lock.json').mtimeMs > statSync(marker).mtimeMs;
if (stale) {
  console.log('[berth] installing npm dependencies (npm ci)...');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
