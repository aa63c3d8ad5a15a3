import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  accessDatabase,
  type BodyOf,
  call,
  createTestServices,
  type Method,
  register,
  type TestApp,
} from '../../../test/create-test-app.ts';
import {
  startTestProvisioning,
  type TestProvisioning,
  waitFor,
  waitForBackup,
  waitForStatus,
} from '../../../test/instances-harness.ts';
import { tenantCli } from '../../../test/provisioning/db-clients.ts';
import { frontDoorRequest, n8nSession } from '../../../test/provisioning/n8n-client.ts';
import { curl } from '../../../test/provisioning/site-clients.ts';
import { siteSandbox } from '../../../test/provisioning/site-sandbox.ts';
import { startS3Server } from '../../../test/s3-server.ts';
import { createApp } from '../../app.ts';
import { backupKeyFrom } from '../../backup-storage/archive-cipher.ts';
import { backupVault } from '../../backup-storage/backup-vault.ts';
import { s3Store } from '../../backup-storage/s3-store.ts';
import { ensureDatabase } from '../../db/connect.ts';
import { createDb, createPool } from '../../db/create-db.ts';
import type { Db } from '../../db/database.ts';
import { migrateToLatest } from '../../db/migrator.ts';
import { migrateJobQueue } from '../../jobs/job-queue.ts';
import { type JobRunner, startJobRunner } from '../../jobs/job-runner.ts';
import { createCipher } from '../../lib/crypto.ts';
import { DEFAULT_RUNTIMES_DIR, missingRuntimeReason } from '../../provisioning/apps/n8n/n8n-runtime.ts';
import type { DatabaseCredentials } from '../../provisioning/engine.ts';
import { runInSandbox } from '../../provisioning/local/wordpress/site-sandbox.ts';
import type { Services } from '../../services.ts';
import { instanceHasJobs, reconcileInstances } from '../instances/queue/instance-jobs.ts';
import { platformBackups } from './platform-backups.ts';
import { restorePlatform } from './platform-recovery.ts';

/**
 * The recovery drill: lose the machine, lose nothing. On "machine A" (a platform database, a data
 * root, the real local driver) a customer runs a WordPress site with a post and an upload, a MySQL and
 * a PostgreSQL instance with rows, and an n8n instance with a saved credential; the scheduled backups
 * run into a real S3-compatible server, and so does Berth's own database. Then A is destroyed: its
 * database dropped, its instances and data root deleted. On "machine B" (a new, empty database and a
 * new data root) the recovery runs as `npm run restore-platform` does, the server starts, and the
 * customer signs in with the same password and finds everything.
 */

const noN8n = missingRuntimeReason(DEFAULT_RUNTIMES_DIR);
if (noN8n) console.warn(`[recovery drill: n8n left out] ${noN8n}`);
/** Set once the n8n instance answered on machine B with its credential decrypted. */
let n8nRecovered = false;

const ENCRYPTION_KEY = randomBytes(32);
const suffix = randomBytes(3).toString('hex');
const password = `Harbour#${suffix}9`;
const stamp = `kept-${suffix}`;

interface Machine {
  db: Db;
  pool: pg.Pool;
  url: string;
  name: string;
  prov: TestProvisioning;
  services: Services;
  app: TestApp;
  runner: JobRunner;
}

let s3: Awaited<ReturnType<typeof startS3Server>>;
let spool = '';
const machines: Machine[] = [];

/** A machine: its own platform database (on the test PostgreSQL), data root, driver, services, runner. */
async function machine(clock: () => Date = () => new Date()): Promise<Machine> {
  const name = `berth_drill_${randomBytes(4).toString('hex')}`;
  const url = await ensureDatabase(inject('pgAdminUrl'), name);
  const pool = createPool(url, 8);
  const db = createDb(pool);
  const prov = await startTestProvisioning({ sites: true });
  const vault = backupVault({
    store: s3Store(s3.settings),
    key: backupKeyFrom(ENCRYPTION_KEY),
    spoolDir: path.join(spool, name),
  });
  const services = createTestServices(db, {
    provisioner: prov.driver,
    cipher: createCipher(ENCRYPTION_KEY),
    backupVault: vault,
    now: clock,
  });
  const m = { db, pool, url, name, prov, services, app: createApp(services) } as Machine;
  machines.push(m);
  return m;
}

async function start(m: Machine) {
  await migrateToLatest(m.db);
  await migrateJobQueue(m.pool);
  m.runner = await startJobRunner({
    pgPool: m.pool,
    connectionString: m.url,
    taskList: m.services.jobTasks,
    pollIntervalMs: 200,
    log: () => {},
  });
}

/** Everything of a machine gone: the runner, the instances and data root, the platform database. */
async function destroy(m: Machine) {
  await m.runner?.stop();
  await m.prov.stop();
  await m.db.destroy();
  const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
  admin.on('error', () => {});
  await admin.connect();
  await admin.query(`drop database if exists ${admin.escapeIdentifier(m.name)} with (force)`);
  await admin.end();
}

afterAll(async () => {
  for (const m of machines.reverse()) await destroy(m).catch(() => {});
  await s3?.stop();
  if (spool) await rm(spool, { recursive: true, force: true });
}, 120_000);

const as =
  (m: Machine, token: string) =>
  <M extends Method, const P extends string>(method: M, route: P, body?: BodyOf<M, P>) =>
    call(m.app, method, route, { token, body });

async function credentialsOf(api: ReturnType<typeof as>, id: string): Promise<DatabaseCredentials> {
  const access = await api('GET', `/api/instances/${id}/access`);
  const database = accessDatabase(access.json);
  if (!database) throw new Error(`no database credentials for ${id}`);
  return {
    host: database.host,
    port: Number(database.port),
    database: database.name,
    user: database.user,
    password: database.password,
  };
}

describe('recovery drill', { timeout: 900_000 }, () => {
  const ids: Record<string, string> = {};
  let email = '';
  let credentialId = '';

  it('runs a customer’s instances on machine A and backs them up, and Berth itself, off-site', async () => {
    s3 = await startS3Server();
    spool = await mkdtemp(path.join(tmpdir(), 'berth-drill-'));
    // Late in the UTC day: every instance's daily time has passed.
    const late = new Date();
    late.setUTCHours(23, 59, 0, 0);
    const a = await machine(() => (Date.now() < late.getTime() ? late : new Date()));
    await start(a);
    const customer = await register(a.app, { password });
    email = customer.body.email;
    await a.db
      .updateTable('subscriptions')
      .set({ plan: 'pro', status: 'active', current_period_end: new Date(Date.now() + 30 * 86_400_000) })
      .where('user_id', '=', String(customer.user.id))
      .execute();
    const api = as(a, customer.token);

    const deploys = [
      [
        'site',
        {
          name: 'Harbour blog',
          type: 'WordPress',
          region: 'us-east-1',
          title: 'Harbour',
          username: 'captain',
          email: 'captain@example.com',
          password,
          phpversion: '8.2',
        },
      ],
      ['mysql', { name: 'Orders', type: 'MySQL' }],
      ['postgresql', { name: 'Ledger', type: 'PostgreSQL' }],
      ...(noN8n
        ? []
        : [
            [
              'n8n',
              {
                name: 'Automations',
                type: 'n8n',
                region: 'us-east-1',
                email: `n8n-${suffix}@example.com`,
                password,
              },
            ] as const,
          ]),
    ] as const;
    for (const [key, body] of deploys) {
      const res = await api('POST', '/api/instances/deploy', body);
      expect(res.status, JSON.stringify(res.json)).toBe(202);
      ids[key] = res.json.instance.id;
    }
    for (const id of Object.values(ids)) await waitForStatus(a.app, customer.token, id, 'running', 240_000);

    // A post and an upload, made as WordPress would (as the site user, in its sandbox).
    const sandbox = siteSandbox(a.prov.root, ids.site ?? '');
    await runInSandbox(
      sandbox,
      [
        '/usr/bin/php8.2',
        '-r',
        `require '/public/wp-load.php'; wp_insert_post(['post_title' => 'Log ${stamp}', 'post_status' => 'publish', 'post_content' => 'kept']);`,
      ],
      { view: 'php' },
    );
    await runInSandbox(
      sandbox,
      [
        '/bin/sh',
        '-c',
        `mkdir -p /public/wp-content/uploads/2026 && printf '${stamp}' > /public/wp-content/uploads/2026/${stamp}.txt`,
      ],
      { view: 'php' },
    );
    for (const type of ['mysql', 'postgresql'] as const) {
      const made = await tenantCli(
        type,
        await credentialsOf(api, ids[type] ?? ''),
        `CREATE TABLE cargo (name varchar(64)); INSERT INTO cargo VALUES ('${stamp}');`,
      );
      expect(made.ok, made.stderr).toBe(true);
    }
    if (!noN8n) {
      const instance = (await api('GET', `/api/instances/${ids.n8n}`)).json.instance;
      const session = await n8nSession(instance.url ?? '', `n8n-${suffix}@example.com`, password);
      const credential = await session.call('POST', '/rest/credentials', {
        name: 'Partner API',
        type: 'httpHeaderAuth',
        data: { name: 'X-Key', value: `secret-${stamp}` },
      });
      expect(credential.status).toBe(200);
      credentialId = (credential.json().data as { id: string }).id;
    }

    // The day's scheduled backups, and Berth's own database.
    expect(await a.services.backupSchedule.scheduleDue()).toBe(Object.keys(ids).length);
    for (const id of Object.values(ids)) {
      const [scheduled] = (await api('GET', `/api/instances/${id}/backups`)).json;
      const done = await waitForBackup(a.app, customer.token, id, scheduled?.id ?? '', 300_000);
      expect(done, JSON.stringify(done)).toMatchObject({
        kind: 'scheduled',
        status: 'complete',
        offsite: true,
      });
    }
    const platform = await platformBackups({
      vault: a.services.vault,
      databaseUrl: a.url,
      now: () => new Date(),
    }).create();
    expect(platform.size).toBeGreaterThan(1000);
  });

  it('loses machine A entirely', async () => {
    const a = machines[0];
    if (!a) throw new Error('machine A never started');
    await destroy(a);
    machines.shift();
    // Its database is gone, and so is every instance (data root, users, servers).
    const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await admin.connect();
    expect((await admin.query('select 1 from pg_database where datname = $1', [a.name])).rowCount).toBe(0);
    await admin.end();
  });

  it('recovers on machine B: same password, same instances, the post, the upload, the rows, the credential', async () => {
    const b = await machine();
    // `npm run restore-platform -- latest` on the new, empty database, then the server starts.
    const log: string[] = [];
    const restored = await restorePlatform({
      vault: b.services.vault,
      databaseUrl: b.url,
      which: 'latest',
      log: (l) => log.push(l),
    });
    expect(restored).toMatchObject({ restoring: Object.keys(ids).length, empty: 0 });
    await start(b);
    await reconcileInstances(b.db);

    const signedIn = await call(b.app, 'POST', '/api/auth/login', {
      body: { emailOrUsername: email, password },
    });
    expect(signedIn.status, JSON.stringify(signedIn.json)).toBe(200);
    const token = signedIn.json.token;
    const api = as(b, token);
    const listed = (await api('GET', '/api/instances')).json.instances;
    expect(listed.map((i) => i.id).sort()).toEqual(Object.values(ids).sort());
    for (const id of Object.values(ids)) await waitForStatus(b.app, token, id, 'running', 400_000);
    // Every recovery job ran to its end (deploy, restoring, running), none left in a queue.
    for (const id of Object.values(ids))
      await waitFor(async () => ((await instanceHasJobs(b.db, id)) ? undefined : true), {
        timeoutMs: 400_000,
        what: `the jobs of ${id} to end`,
      });
    for (const id of Object.values(ids)) await waitForStatus(b.app, token, id, 'running', 10_000);

    const site = (await api('GET', `/api/instances/${ids.site}`)).json.instance;
    const page = await curl([site.url ?? '']);
    expect(page.status, page.body.slice(0, 300)).toBe(200);
    expect(page.body).toContain(`Log ${stamp}`);
    const upload = await curl([`${site.url}/wp-content/uploads/2026/${stamp}.txt`]);
    expect([upload.status, upload.body]).toEqual([200, stamp]);
    for (const type of ['mysql', 'postgresql'] as const) {
      const rows = await tenantCli(
        type,
        await credentialsOf(api, ids[type] ?? ''),
        'SELECT name FROM cargo;',
      );
      expect(rows.stdout, `${type}: ${rows.stderr}`).toBe(stamp);
    }
    if (!noN8n) {
      const n8n = (await api('GET', `/api/instances/${ids.n8n}`)).json.instance;
      expect((await frontDoorRequest(n8n.url ?? '', 'GET', '/')).status).toBe(200);
      const session = await n8nSession(n8n.url ?? '', `n8n-${suffix}@example.com`, password);
      const credential = await session.call('GET', `/rest/credentials/${credentialId}?includeData=true`);
      expect(credential.status).toBe(200);
      // Decrypted with the instance's key from the backup (n8n answers the secret itself blanked).
      expect(credential.json().data).toMatchObject({ name: 'Partner API', data: { name: 'X-Key' } });
      n8nRecovered = true;
    }
  });

  // Counted apart: without the runtime the drill runs without n8n, and this reads skipped (npm test fails
  // on a skip that is not allowed) instead of the drill passing as if n8n had been recovered.
  it.skipIf(noN8n !== undefined)('recovered the n8n instance with its saved credential', () => {
    expect(n8nRecovered).toBe(true);
  });
});
