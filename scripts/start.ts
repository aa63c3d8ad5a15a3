// `npm start` (after scripts/ensure-install.mjs): builds the web app, saying only that it does and how
// long it took (Vite's list of 200 files goes nowhere; its warnings and errors still show), then runs the
// server, whose own lines end with the address it listens on. Runs on the project's Node 24.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

const root = new URL('../', import.meta.url).pathname;
const vite = path.join(root, 'node_modules/.bin/vite');

console.log('[berth] building the web app (about a minute)...');
const started = performance.now();
const build = spawnSync(vite, ['build', '--logLevel', 'warn'], {
  cwd: path.join(root, 'web'),
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);
console.log(`[berth] web app built in ${Math.round((performance.now() - started) / 1000)} s`);

const server = spawn(process.execPath, ['src/main.ts'], { cwd: path.join(root, 'server'), stdio: 'inherit' });
// Ctrl-C and a stop reach the server, which shuts down gracefully (its PostgreSQL among the rest).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
