import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/database.ts';
import { mariadbPaths } from '../src/provisioning/local/databases/mariadb-server.ts';
import { answerOf, type Method, variant } from './create-test-app.ts';
import { waitFor } from './instances-harness.ts';
import { ensureTestPackages, tenantCli } from './provisioning/db-clients.ts';
import { killLeftoverServers } from './provisioning/leftover-servers.ts';
import { createTestDatabase } from './test-db.ts';

// Killing the server with SIGKILL in the middle of a deploy loses nothing: the real `main.ts` with the
// local driver on a data root of its own, against a test database. The MySQL deploy is held inside
// MariaDB (a global read lock taken by the test) so the kill lands while its job is running.

const serverDir = new URL('../', import.meta.url).pathname;
const children: ChildProcess[] = [];
let db: Db;
let dbUrl: string;
let dataDir: string;
let provDir: string;

interface Server {
  child: ChildProcess;
  base: string;
  output: { text: string };
}

async function start(): Promise<Server> {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: serverDir,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      BERTH_DATA_DIR: dataDir,
      DATABASE_URL: dbUrl,
      PROVISIONING_DATA_DIR: provDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const output = { text: '' };
  const collect = (chunk: Buffer) => {
    output.text += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output.text}`))),
  );
  const port = await Promise.race([
    exited,
    waitFor(() => /listening on .* \(port (\d+)\)/.exec(output.text)?.[1], {
      timeoutMs: 60_000,
      what: 'listening',
    }),
  ]);
  await Promise.race([
    exited,
    waitFor(() => (output.text.includes('jobs: runner started') ? true : undefined), {
      timeoutMs: 120_000,
      what: `the job runner in:\n${output.text}`,
    }),
  ]);
  exited.catch(() => {});
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
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  if (provDir) await rm(provDir, { recursive: true, force: true });
}, 60_000);

describe('a server killed in the middle of deploys', () => {
  it('comes back, resumes the half-done deploy jobs, and the instances end running', async () => {
    const first = await start();
    const registered = await api(first, 'POST', '/api/auth/register', undefined, {
      accountType: 'individual',
      firstName: 'Kill',
      lastName: 'Nine',
      username: 'killnine',
      email: 'killnine@example.com',
      password: 'Crash#Safe2026',
    });
    expect(registered.status, JSON.stringify(registered.json)).toBe(201);
    const token: string = registered.json.token;
    await db
      .updateTable('subscriptions')
      .set({ plan: 'pro', status: 'active' })
      .where('user_id', '=', String(registered.json.user.id))
      .execute();

    // Hold MariaDB's global read lock: the MySQL deploy's CREATE DATABASE waits inside the server.
    const admin = await mysql.createConnection({ socketPath: mariadbPaths(provDir).socket, user: 'root' });
    admin.on('error', () => {});
    await admin.query('FLUSH TABLES WITH READ LOCK');
    let mysqlId = '';
    let pgId = '';
    try {
      const held = await api(first, 'POST', '/api/instances/deploy', token, { name: 'Held', type: 'MySQL' });
      expect(held.status).toBe(202);
      mysqlId = held.json.instance.id;
      await waitFor(
        async () => {
          const [rows] = await admin.query<mysql.RowDataPacket[]>(
            "SELECT COUNT(*) AS n FROM information_schema.processlist WHERE state LIKE 'Waiting for%lock%'",
          );
          return Number(rows[0]?.n) > 0 ? true : undefined;
        },
        { what: 'the deploy to wait inside MariaDB' },
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
      await admin.query('UNLOCK TABLES').catch(() => {});
      await admin.end().catch(() => {});
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
    expect(second.output.text).toContain(`released the jobs of stopped workers ${jobs.rows[0]?.locked_by}`);
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
      const { host, port, name, user, password } = variant(access.json, 'database').database;
      const type = id === mysqlId ? 'mysql' : 'postgresql';
      const login = await tenantCli(type, { host, port, database: name, user, password }, 'SELECT 1');
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
