// `npm run bench`: requests per second of GET /api/auth/profile (token check, two PostgreSQL reads,
// JSON) against a bare Hono route answering the same JSON with no database, and their ratio. Then the
// public API's list of instances with an API key (GET /api/v1/instances: key lookup, rate-limit UPSERT,
// Pro check, the list) against the same list with a login token (GET /api/instances), and their ratio. The app is
// wired as main.ts wires it: a LISTEN connection feeds its hub, so token versions come from the
// in-process cache (no extra read per request).
// Uses TEST_DATABASE_URL (a superuser URL) when set, otherwise a throwaway embedded PostgreSQL.
import { rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createApp } from '../src/app.ts';
import { ensureDatabase } from '../src/db/connect.ts';
import { createDb } from '../src/db/create-db.ts';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { createMemoryMailer } from '../src/lib/mailer.ts';
import { startLiveHub } from '../src/modules/notifications/notifications.hub.ts';
import type { LoadJob, LoadResult } from './load.ts';

const SECONDS = Number(process.argv[2] ?? 5);
const CONCURRENCY = 32;

function load(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./load.ts', import.meta.url), { workerData: job });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

function listen(
  fetch: (req: Request) => Response | Promise<Response>,
): Promise<{ url: string; close(): void }> {
  return new Promise((resolve) => {
    const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
      resolve({ url: `http://127.0.0.1:${info.port}`, close: () => server.close() }),
    );
  });
}

const pgDir = path.join(tmpdir(), `berth-bench-pg-${process.pid}`);
const adminUrl = process.env.TEST_DATABASE_URL;
const pg = adminUrl ? undefined : await startEmbeddedPostgres(pgDir);
const dbUrl = await ensureDatabase(adminUrl ?? pg?.url ?? '', `berth_bench_${process.pid}`);
const db = createDb(dbUrl, 10);
const { hub, stop: stopListener } = await startLiveHub({ connectionString: dbUrl });
try {
  await migrateToLatest(db);
  const app = createApp({
    db,
    notificationHub: hub,
    jwtSecret: 'bench-secret-bench-secret-bench-secret!!',
    mailer: createMemoryMailer(),
    avatarsDir: path.join(pgDir, 'avatars'),
    // The counter still runs (one UPSERT per request); only its 150/min ceiling is lifted for the bench.
    rateLimits: { publicApi: { points: 1_000_000_000, windowSeconds: 60 } },
  });
  const registered = await app.request('/api/auth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      accountType: 'individual',
      firstName: 'Bench',
      lastName: 'Mark',
      username: `bench${Date.now()}`,
      email: `bench${Date.now()}@example.com`,
      password: 'Bench#mark2026',
    }),
  });
  const { token, user } = (await registered.json()) as { token: string; user: { id: string } };
  const auth = { authorization: `Bearer ${token}` };
  const profileJson = await (await app.request('/api/auth/profile', { headers: auth })).json();

  const bare = new Hono().get('/api/auth/profile', (c) => c.json(profileJson));
  const real = await listen(app.fetch);
  const baseline = await listen(bare.fetch);

  await load({ url: `${real.url}/api/auth/profile`, headers: auth, seconds: 1, concurrency: CONCURRENCY }); // warm-up
  const profile = await load({
    url: `${real.url}/api/auth/profile`,
    headers: auth,
    seconds: SECONDS,
    concurrency: CONCURRENCY,
  });
  const plain = await load({
    url: `${baseline.url}/api/auth/profile`,
    headers: {},
    seconds: SECONDS,
    concurrency: CONCURRENCY,
  });
  // The same user on Pro with an API key: the public list against the app's own list.
  await db
    .updateTable('subscriptions')
    .set({ plan: 'pro', status: 'active', current_period_end: null })
    .where('user_id', '=', user.id)
    .execute();
  const generated = await app.request('/api/keys/generate', { method: 'POST', headers: auth });
  const { apiKey } = (await generated.json()) as { apiKey: string };
  const keyed = { 'x-api-key': apiKey };
  await load({ url: `${real.url}/api/v1/instances`, headers: keyed, seconds: 1, concurrency: CONCURRENCY }); // warm-up
  const v1List = await load({
    url: `${real.url}/api/v1/instances`,
    headers: keyed,
    seconds: SECONDS,
    concurrency: CONCURRENCY,
  });
  const apiList = await load({
    url: `${real.url}/api/instances`,
    headers: auth,
    seconds: SECONDS,
    concurrency: CONCURRENCY,
  });
  real.close();
  baseline.close();

  const rps = (r: LoadResult) => r.requests / r.seconds;
  const row = (name: string, r: LoadResult) =>
    `${name.padEnd(44)} ${rps(r).toFixed(0).padStart(8)} req/s  (${r.requests} ok, ${r.errors} errors, ${r.seconds.toFixed(1)} s)`;
  console.log(`\nGET /api/auth/profile, ${CONCURRENCY} keep-alive connections, ${SECONDS} s each`);
  console.log(row('berth (JWT + PostgreSQL + JSON)', profile));
  console.log(row('bare Hono route, same JSON, no database', plain));
  console.log(`ratio berth / bare: ${(rps(profile) / rps(plain)).toFixed(3)}`);
  console.log(`\nList of instances, ${CONCURRENCY} keep-alive connections, ${SECONDS} s each`);
  console.log(row('GET /api/v1/instances (API key)', v1List));
  console.log(row('GET /api/instances (login token)', apiList));
  console.log(`ratio v1 with key / api with token: ${(rps(v1List) / rps(apiList)).toFixed(3)}`);
} finally {
  await stopListener();
  await db.destroy();
  if (pg) {
    await pg.stop();
    await rm(pgDir, { recursive: true, force: true });
    await rm(`${pgDir}.password`, { force: true });
  }
}

// The same `npm run bench` then measures deploy-to-ready latency of database instances.
await import('./deploy.bench.ts');
