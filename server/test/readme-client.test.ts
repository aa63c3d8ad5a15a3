import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { JobRunner } from '../src/jobs/job-runner.ts';
import { createEphemeralCipher } from '../src/lib/crypto.ts';
import { call, createTestApp, register } from './create-test-app.ts';
import { startTestProvisioning, startTestRunner, type TestProvisioning } from './instances-harness.ts';
import { listen } from './listen.ts';
import { tenantCli } from './provisioning/db-clients.ts';
import { createTestDatabase } from './test-db.ts';

/**
 * The README's client script, exactly as printed there, run with Node against a real server (real
 * socket, local driver, job runner) with only a Pro user's API key; the connection string it prints
 * must open the new MySQL database.
 */

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;
const SCRIPT = 'openapi/examples/deploy-mysql.ts';

let prov: TestProvisioning;
let runner: JobRunner;
let server: { url: string; close(): Promise<void> };
let apiKey = '';

beforeAll(async () => {
  const database = await createTestDatabase();
  prov = await startTestProvisioning();
  const cipher = createEphemeralCipher();
  const app = createTestApp(database.db, { provisioner: prov.driver, cipher });
  runner = await startTestRunner({ ...database, driver: prov.driver, cipher });
  server = await listen(app);
  const { token, user } = await register(app);
  await database.db
    .updateTable('subscriptions')
    .set({ plan: 'pro', status: 'active', current_period_end: null })
    .where('user_id', '=', String(user.id))
    .execute();
  apiKey = (await call(app, 'POST', '/api/keys/generate', { token })).json.apiKey;
}, 300_000);

afterAll(async () => {
  await server?.close();
  await runner?.stop();
  await prov?.stop();
}, 60_000);

it('the README prints the example script verbatim', async () => {
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  const block = new RegExp(`<!-- example: ${SCRIPT} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(readme)?.[1];
  expect(block).toBe(await readFile(path.join(root, SCRIPT), 'utf8'));
});

it('the script lists instances, deploys MySQL, waits for it, and prints a connection string that works', async () => {
  const { stdout, stderr } = await run(process.execPath, [SCRIPT], {
    cwd: root,
    env: { ...process.env, BERTH_URL: server.url, BERTH_API_KEY: apiKey },
    timeout: 60_000,
  });
  const lines = stdout.trim().split('\n');
  expect(lines[0], stderr).toBe('instances: none');
  const url = new URL(lines.at(-1) ?? '');
  expect(url.protocol).toBe('mysql:');
  const credentials = {
    host: url.hostname,
    port: Number(url.port),
    database: url.pathname.slice(1),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
  expect((await tenantCli('mysql', credentials, 'SELECT 1')).stdout).toBe('1');
}, 90_000);
