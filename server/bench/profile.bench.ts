// `npm run bench`: requests per second of GET /api/auth/profile and GET /api/instances against a bare
// Hono + pg + jose server doing the same reads on the same database (bench/baseline-server.ts), and
// their ratios. The load generator runs in its own process (bench/load.ts). The app is wired as main.ts
// wires it: one composition root, a LISTEN connection feeding its hub (token versions come from the
// in-process cache), the pool size of main.ts. Then the public API's list with an API key
// (GET /api/v1/instances: key lookup, rate-limit UPSERT, Pro check, the list) against the same list with
// a login token, and their ratio.
// Uses TEST_DATABASE_URL (a superuser URL) when set, otherwise a throwaway embedded PostgreSQL.
import { rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { createApp } from '../src/app.ts';
import { ensureDatabase } from '../src/db/connect.ts';
import { createDb, createPool } from '../src/db/create-db.ts';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { createMemoryMailer } from '../src/lib/mailer.ts';
import { startLiveHub } from '../src/modules/notifications/notifications.hub.ts';
import { createServices } from '../src/services.ts';
import { insertInstanceRows } from '../test/instance-rows.ts';
import { createBaselineApp } from './baseline-server.ts';
import { type LoadJob, type LoadResult, load } from './load.ts';

const SECONDS = Number(process.argv[2] ?? 5);
const CONCURRENCY = 32;
/** main.ts's pool size; the baseline gets the same. */
const POOL_SIZE = 20;
const JWT_SECRET = 'bench-secret-bench-secret-bench-secret!!';

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
const db = createDb(createPool(dbUrl, POOL_SIZE));
const { hub, stop: stopListener } = await startLiveHub({ connectionString: dbUrl });
try {
  await migrateToLatest(db);
  const app = createApp(
    createServices({
      db,
      notificationHub: hub,
      jwtSecret: JWT_SECRET,
      mailer: createMemoryMailer(),
      avatarsDir: path.join(pgDir, 'avatars'),
      helpUploadsDir: path.join(pgDir, 'help-uploads'),
    }),
    // The API-key counter still runs (one UPSERT per request); only its 150/min ceiling is lifted.
    { rateLimits: { publicApi: { points: 1_000_000_000, windowSeconds: 60 } } },
  );
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
  const userId = user.id;
  // A few instances to list (rows only: nothing is deployed).
  await insertInstanceRows(db, userId, 5);

  const baseline = createBaselineApp(dbUrl, JWT_SECRET, POOL_SIZE);
  const servers = { berth: await listen(app.fetch), bare: await listen(baseline.app.fetch) };
  // The CPU this process (the server under test) spends per answered request: steadier than req/s on a
  // busy machine, and it shows the platform's own cost apart from PostgreSQL's.
  const measured = async (job: LoadJob) => {
    const before = process.cpuUsage();
    const result = await load(job);
    const used = process.cpuUsage(before);
    return { ...result, cpuPerRequestUs: (used.user + used.system) / Math.max(1, result.requests) };
  };
  const rps = (r: LoadResult) => r.requests / r.seconds;
  const row = (name: string, r: LoadResult & { cpuPerRequestUs: number }) =>
    `  ${name.padEnd(34)} ${rps(r).toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(1).padStart(5)} ms  p99 ${r.p99.toFixed(1).padStart(5)} ms  ${r.cpuPerRequestUs.toFixed(0).padStart(5)} µs CPU/request  (${r.requests} ok, ${r.errors} errors)`;
  console.log(
    `\nAPI reads: ${CONCURRENCY} keep-alive connections, ${SECONDS} s each, load generator in its own process`,
  );
  for (const route of ['/api/auth/profile', '/api/instances']) {
    const job = (base: string) => ({
      url: `${base}${route}`,
      headers: auth,
      seconds: SECONDS,
      concurrency: CONCURRENCY,
    });
    // Warm both (JIT, pool connections), then measure each in turn.
    await load({ ...job(servers.berth.url), seconds: 1 });
    await load({ ...job(servers.bare.url), seconds: 1 });
    const berth = await measured(job(servers.berth.url));
    const bare = await measured(job(servers.bare.url));
    const ratio = rps(berth) / rps(bare);
    console.log(`GET ${route}`);
    console.log(row('berth', berth));
    console.log(row('bare Hono + pg + jose, same reads', bare));
    console.log(
      `  ratio berth / bare: ${ratio.toFixed(2)} (target >= 0.80: ${ratio >= 0.8 ? 'met' : 'MISSED'})`,
    );
  }

  // The same user on Pro with an API key: the public list against the app's own list.
  await db
    .updateTable('subscriptions')
    .set({ plan: 'pro', status: 'active', current_period_end: null })
    .where('user_id', '=', userId)
    .execute();
  const generated = await app.request('/api/keys/generate', { method: 'POST', headers: auth });
  const { apiKey } = (await generated.json()) as { apiKey: string };
  const listJob = (route: string, headers: Record<string, string>) => ({
    url: `${servers.berth.url}${route}`,
    headers,
    seconds: SECONDS,
    concurrency: CONCURRENCY,
  });
  await load({ ...listJob('/api/v1/instances', { 'x-api-key': apiKey }), seconds: 1 });
  const v1List = await measured(listJob('/api/v1/instances', { 'x-api-key': apiKey }));
  const apiList = await measured(listJob('/api/instances', auth));
  console.log('List of instances: the public API with a key against the app with a login token');
  console.log(row('GET /api/v1/instances (API key)', v1List));
  console.log(row('GET /api/instances (login token)', apiList));
  console.log(`  ratio v1 with key / api with token: ${(rps(v1List) / rps(apiList)).toFixed(2)}`);
  servers.berth.close();
  servers.bare.close();
  await baseline.close();
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
if (!process.env.BENCH_API_ONLY) await import('./deploy.bench.ts');
