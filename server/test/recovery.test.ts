import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/database.ts';
import { accessDatabase, answerOf, type Method } from './create-test-app.ts';
import { waitFor } from './instances-harness.ts';
import { ensureTestPackages, tenantCli } from './provisioning/db-clients.ts';
import { killLeftoverServers } from './provisioning/leftover-servers.ts';
import { removeSiteUsersUnder } from './provisioning/site-sandbox.ts';
import { spawnServer } from './server-output.ts';
import { createTestDatabase } from './test-db.ts';

// Killing the server with SIGKILL in the middle of a deploy loses nothing: the real `main.ts` with the
// local driver on a data root of its own, against a test database. The MySQL deploy is held while it
// waits for the instance's own MariaDB to answer (the test stops that server as it starts: SIGSTOP) so
// the kill lands while its job is running.

const children: ChildProcess[] = [];
let db: Db;
let dbUrl: string;
let dataDir: string;
let provDir: string;

interface Server {
  child: ChildProcess;
  base: string;
  /** Everything it printed so far. */
  output: () => string;
}

async function start(): Promise<Server> {
  const {
    child,
    port: listening,
    output,
  } = spawnServer({
    BERTH_DATA_DIR: dataDir,
    DATABASE_URL: dbUrl,
    PROVISIONING_DATA_DIR: provDir,
  });
  children.push(child);
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output()}`))),
  );
  exited.catch(() => {});
  const port = await Promise.race([exited, listening]);
  await Promise.race([
    exited,
    waitFor(() => (output().includes('jobs: runner started') ? true : undefined), {
      timeoutMs: 120_000,
      what: `the job runner in:\n${output()}`,
    }),
  ]);
  return { child, base: `http://127.0.0.1:${port}`, output };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function api<M extends Method, const P extends string>(
  server: Server,
  method: M,
  url: P,
  token?: string,
  body?: unknown,
) {
  const res = await fetch(`${server.base}${url}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return answerOf<M, P>(res);
}

/** A customer signed up through `server`, on an active Pro plan (room for several instances): their token. */
async function proCustomer(server: Server, firstName: string, lastName: string, username: string) {
  const registered = await api(server, 'POST', '/api/auth/register', undefined, {
    accountType: 'individual',
    firstName,
    lastName,
    username,
    email: `${username}@example.com`,
    password: 'Crash#Safe2026',
  });
  expect(registered.status, JSON.stringify(registered.json)).toBe(201);
  await db
    .updateTable('subscriptions')
    .set({ plan: 'pro', status: 'active' })
    .where('user_id', '=', String(registered.json.user.id))
    .execute();
  return registered.json.token as string;
}

beforeAll(async () => {
  await ensureTestPackages();
  ({ db, url: dbUrl } = await createTestDatabase());
  dataDir = await mkdtemp(path.join(tmpdir(), 'berth-recovery-'));
  // Directly under /tmp: the mysql and postgres users must be able to traverse it.
  provDir = await mkdtemp('/tmp/berth-recovery-prov-');
}, 300_000);

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (provDir) killLeftoverServers(provDir);
  // The instances' OS users (db_…, pma_…) outlive the killed servers: the test's to remove.
  if (provDir) await removeSiteUsersUnder(provDir);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  if (provDir) await rm(provDir, { recursive: true, force: true });
}, 60_000);

describe('a server killed in the middle of deploys', () => {
  it('comes back, resumes the half-done deploy jobs, and the instances end running', async () => {
    const first = await start();
    const token = await proCustomer(first, 'Kill', 'Nine', 'killnine');

    let mysqlId = '';
    let pgId = '';
    let stopped: number | undefined;
    try {
      const held = await api(first, 'POST', '/api/instances/deploy', token, { name: 'Held', type: 'MySQL' });
      expect(held.status).toBe(202);
      mysqlId = held.json.instance.id;
      // The instance's own MariaDB, stopped as soon as it is spawned: the deploy waits for it to answer.
      const pidFile = path.join(provDir, 'run', `db-${mysqlId.replaceAll('-', '').slice(0, 12)}.pid`);
      stopped = await waitFor(
        () => {
          const pid = Number(existsSync(pidFile) ? readFileSync(pidFile, 'utf8') : Number.NaN);
          if (!Number.isInteger(pid) || !existsSync(`/proc/${pid}`)) return undefined;
          process.kill(pid, 'SIGSTOP');
          return pid;
        },
        { timeoutMs: 60_000, what: "the instance's own MariaDB to start" },
      );
      // A second deploy, killed right after it was accepted.
      const fresh = await api(first, 'POST', '/api/instances/deploy', token, {
        name: 'Fresh',
        type: 'PostgreSQL',
      });
      expect(fresh.status).toBe(202);
      pgId = fresh.json.instance.id;

      first.child.kill('SIGKILL');
      expect(await exitOf(first.child)).toBeNull();
    } finally {
      // The server goes on (it outlives Berth, as after a crash); the next start adopts it.
      if (stopped !== undefined) process.kill(stopped, 'SIGCONT');
    }

    // Nothing is lost: the instance still says deploying, its job still waits, locked by the dead worker.
    const row = await db
      .selectFrom('instances')
      .select('status')
      .where('id', '=', mysqlId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('deploying');
    const jobs = await sql<{ locked_by: string | null }>`
      select locked_by from graphile_worker.jobs where key = ${`instance:${mysqlId}:deploy`}`.execute(db);
    expect(jobs.rows).toHaveLength(1);
    expect(jobs.rows[0]?.locked_by).toMatch(/^pool-/);

    const second = await start();
    expect(second.output()).toContain(`released the jobs of stopped workers ${jobs.rows[0]?.locked_by}`);
    for (const id of [mysqlId, pgId]) {
      await waitFor(
        async () => {
          const res = await api(second, 'GET', `/api/instances/${id}`, token);
          return res.json.instance?.status === 'running' ? true : undefined;
        },
        { timeoutMs: 30_000, what: `instance ${id} to run` },
      );
      const access = await api(second, 'GET', `/api/instances/${id}/access`, token);
      expect(access.status).toBe(200);
      const { host, port, name, user, password, tls } = accessDatabase(access.json);
      const type = id === mysqlId ? 'mysql' : 'postgresql';
      // A server of its own requires TLS (the client verifies nothing here: it is the login that counts).
      const credentials = {
        host,
        port,
        database: name,
        user,
        password,
        ...(tls.required && { tls: { caPem: tls.caCertificate } }),
      };
      const login = await tenantCli(type, credentials, 'SELECT 1');
      expect(login.stdout, login.stderr).toBe('1');
    }
    const left = await sql`select id from graphile_worker.jobs`.execute(db);
    expect(left.rows).toEqual([]);
    const notes = await api(second, 'GET', '/api/notifications', token);
    expect(notes.json.items.filter((n: { title: string }) => n.title === 'Instance ready')).toHaveLength(2);

    second.child.kill('SIGTERM');
    expect(await exitOf(second.child)).toBe(0);
    expect(killLeftoverServers(provDir)).toEqual([]); // a clean stop took the database servers down
  }, 240_000);
});

/** Every file under `dir` (relative paths); none when it does not exist. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

describe('a server killed in the middle of a backup', () => {
  it('resumes it at the next start (its job survives the kill): running until it ends whole, never complete before', async () => {
    const first = await start();
    const token = await proCustomer(first, 'Half', 'Backup', 'halfbackup');
    const deployed = await api(first, 'POST', '/api/instances/deploy', token, {
      name: 'Ledger',
      type: 'PostgreSQL',
    });
    expect(deployed.status).toBe(202);
    const id: string = deployed.json.instance.id;
    await waitFor(
      async () =>
        (await api(first, 'GET', `/api/instances/${id}`, token)).json.instance?.status === 'running'
          ? true
          : undefined,
      { timeoutMs: 60_000, what: 'the instance to run' },
    );
    const access = await api(first, 'GET', `/api/instances/${id}/access`, token);
    const { host, port, name, user, password, tls } = accessDatabase(access.json);
    // Its own server requires TLS, verified with the CA its page offers.
    const ssl = tls.caCertificate ? { ca: tls.caCertificate } : undefined;
    const made = await tenantCli(
      'postgresql',
      { host, port, database: name, user, password },
      'CREATE TABLE ledger (n int); INSERT INTO ledger SELECT generate_series(1, 1000)',
    );
    expect(made.ok, made.stderr).toBe(true);

    // The customer holds the table: pg_dump waits inside PostgreSQL, so the kill lands mid-backup.
    const holder = new pg.Client({ host, port, database: name, user, password, ssl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE ledger IN ACCESS EXCLUSIVE MODE');
      const created = await api(first, 'POST', `/api/instances/${id}/backups/new`, token, {
        name: 'Cut short',
      });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      const backupId: string = created.json.id;
      await waitFor(
        async () => {
          const { rows } = await holder.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'ledger'::regclass",
          );
          return (rows[0]?.n ?? 0) > 0 ? true : undefined;
        },
        { timeoutMs: 60_000, what: 'pg_dump to wait for the table' },
      );
      // (The daily schedule may have started one of its own beside it.)
      const during = await api(first, 'GET', `/api/instances/${id}/backups`, token);
      expect(during.json.find((b: { id: string }) => b.id === backupId)).toMatchObject({ status: 'running' });
      first.child.kill('SIGKILL');
      expect(await exitOf(first.child)).toBeNull();

      const second = await start();
      // Its job outlived the server (released at start): it tries again from nothing, and still waits for
      // the table. Until it ends, the backup reads running, never complete.
      expect(second.output()).toMatch(/jobs: released the jobs of stopped workers/);
      const meanwhile = await api(second, 'GET', `/api/instances/${id}/backups`, token);
      expect(meanwhile.json.find((b: { id: string }) => b.id === backupId)).toMatchObject({
        status: 'running',
      });
      await holder.query('COMMIT');
      await holder.end();
      const ended = await waitFor(
        async () => {
          const res = await api(second, 'GET', `/api/instances/${id}/backups`, token);
          const backup = res.json.find((b: { id: string }) => b.id === backupId);
          return backup && backup.status !== 'running' ? backup : undefined;
        },
        { timeoutMs: 120_000, what: 'the resumed backup to end' },
      );
      expect(ended, JSON.stringify(ended)).toMatchObject({ status: 'complete', error: null });
      // Whole: it restores the table as it was, the half of the killed attempt gone with it. The restore
      // is accepted while the start's redeploy of the instance still waits in its queue: that redeploy
      // leaves the restore to its job (it once set running over it, dropping the restore unseen).
      await tenantCli('postgresql', { host, port, database: name, user, password }, 'DELETE FROM ledger');
      const restore = await api(second, 'POST', `/api/instances/${id}/backups/${backupId}/restore`, token);
      expect(restore.status, JSON.stringify(restore.json)).toBe(202);
      // The restore runs as a job: the rows are back once it ends.
      await waitFor(
        async () => {
          const count = await tenantCli(
            'postgresql',
            { host, port, database: name, user, password },
            'SELECT count(*) FROM ledger',
          );
          return count.stdout === '1000' ? true : undefined;
        },
        { timeoutMs: 60_000, what: 'the restored rows' },
      ).catch(async (error: Error) => {
        const jobs =
          await sql`select task_identifier, attempts, last_error, locked_by, run_at from graphile_worker.jobs`.execute(
            db,
          );
        throw new Error(
          `${error.message}; jobs ${JSON.stringify(jobs.rows)}; the server said:\n${second.output()}`,
        );
      });
      const stored = (await filesUnder(path.join(dataDir, 'backups'))).filter((f) => f.includes(backupId));
      expect(stored.length).toBeGreaterThan(0);
      expect(stored.filter((f) => !f.startsWith(`instances/${id}/${backupId}/`))).toEqual([]);
      second.child.kill('SIGTERM');
      expect(await exitOf(second.child)).toBe(0);
    } finally {
      await holder.end().catch(() => {});
    }
  }, 300_000);
});
