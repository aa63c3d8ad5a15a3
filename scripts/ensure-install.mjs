// Runs before `npm start` and `npm test` on whatever node is on PATH (even an old system one): installs
// the npm dependencies (which bring the pinned Node 24) when node_modules is missing or older than the
// lockfile, so a fresh clone needs nothing but those two commands.
//
// The install says what it does and how long it took, nothing more. npm itself runs on the machine's
// Node (20 on Debian 12): it warns once per package that asks for Node 22 or 24 (some forty EBADENGINE
// blocks), which is expected here, since every `npm run` and `npx` afterwards runs on the Node 24 the
// install brings. Its output is kept and shown only when the install fails.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
const stale = !existsSync(marker) || statSync('package-lock.json').mtimeMs > statSync(marker).mtimeMs;
if (stale) {
  console.log(
    '[berth] installing the npm dependencies and Node 24 (npm ci: about 3 minutes the first time)...',
  );
  const started = Date.now();
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.status !== 0) {
    process.stdout.write(result.stdout ?? '');
    process.stderr.write(result.stderr ?? '');
    console.error(`[berth] npm ci failed${result.error ? `: ${result.error.message}` : ''}`);
    process.exit(result.status ?? 1);
  }
  const added = /added (\d+) packages?/.exec(result.stdout ?? '')?.[1];
  console.log(
    `[berth] npm dependencies installed${added ? ` (${added} packages)` : ''} in ${Math.round((Date.now() - started) / 1000)} s`,
  );
}
