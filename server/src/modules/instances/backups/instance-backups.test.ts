import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accessDatabase,
  callAs,
  createTestServices,
  register,
  type TestApp,
} from '../../../../test/create-test-app.ts';
import {
  startTestProvisioning,
  startTestRunner,
  type TestProvisioning,
  waitFor,
  waitForBackup,
  waitForStatus,
} from '../../../../test/instances-harness.ts';
import { tenantCli } from '../../../../test/provisioning/db-clients.ts';
import { startS3Server } from '../../../../test/s3-server.ts';
import { createTestDatabase } from '../../../../test/test-db.ts';
import { createApp } from '../../../app.ts';
import { backupKeyFrom } from '../../../backup-storage/archive-cipher.ts';
import { backupVault } from '../../../backup-storage/backup-vault.ts';
import { s3Store } from '../../../backup-storage/s3-store.ts';
import type { Db } from '../../../db/database.ts';
import type { JobRunner } from '../../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../../lib/crypto.ts';
import type { DatabaseCredentials } from '../../../provisioning/engine.ts';
import type { Services } from '../../../services.ts';
import { PG_RESTORE } from '../../platform-backups/platform-backups.ts';

/**
 * Backups of database instances end to end through the API: the real local driver (MariaDB and
 * PostgreSQL 15 tenants), the real job runner, and a real S3-compatible server (s3rver) as the off-site
 * store. What a customer sees: the backup's progress and place, a download of their data, a restore
 * that brings rows back; what a stranger gets: 404. The rules of download links and of interrupted
 * backups, which need no real instance, are in backup-links.test.ts on the memory driver.
 */

let db: Db;
let prov: TestProvisioning;
let runner: JobRunner;
let app: TestApp;
let services: Services;
let s3: Awaited<ReturnType<typeof startS3Server>>;
let owner: { token: string; userId: string; email: string; password: string };
let work = '';
/** The job runner's log (a failed job's details, under its reference). */
const jobLog: string[] = [];

const api = callAs(
  () => app,
  () => owner.token,
);

beforeAll(async () => {
  const testDb = await createTestDatabase();
  db = testDb.db;
  prov = await startTestProvisioning();
  s3 = await startS3Server();
  work = await mkdtemp(path.join(tmpdir(), 'berth-backups-api-'));
  const cipher = createEphemeralCipher();
  const vault = backupVault({
    store: s3Store(s3.settings),
    key: backupKeyFrom(randomBytes(32)),
    spoolDir: path.join(work, 'spool'),
  });
  services = createTestServices(db, { provisioner: prov.driver, cipher, backupVault: vault });
  app = createApp(services);
  runner = await startTestRunner({ ...testDb, driver: prov.driver, cipher, vault, log: jobLog });
}, 300_000);

/** A new customer (a trial allows one instance) becomes the one the calls below act as. */
async function newOwner() {
  const { token, user, body } = await register(app);
  owner = { token, userId: String(user.id), email: body.email, password: body.password };
}

afterAll(async () => {
  await runner?.stop();
  await prov?.stop();
  await s3?.stop();
  if (work) await rm(work, { recursive: true, force: true });
}, 60_000);

async function deployDatabase(type: 'MySQL' | 'PostgreSQL') {
  await newOwner();
  const res = await api('POST', '/api/instances/deploy', { name: `${type} shop`, type });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  const id = res.json.instance.id;
  await waitForStatus(app, owner.token, id, 'running', 60_000);
  const access = await api('GET', `/api/instances/${id}/access`);
  const credentials = accessDatabase(access.json);
  const login: DatabaseCredentials = {
    host: credentials.host,
    port: Number(credentials.port),
    database: credentials.name,
    user: credentials.user,
    password: credentials.password,
  };
  return { id, login };
}

/** An object's bytes as the S3 server holds them. */
async function bytesOf(key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await services.vault.store.get(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The objects the S3 server holds for an instance (keys, as the store lists them). */
const storedKeys = (id: string) => services.vault.store.list(`instances/${id}/`);

async function download(url: string): Promise<Buffer> {
  const res = await app.request(new URL(url).pathname);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/x-tar');
  return Buffer.from(await res.arrayBuffer());
}

describe.each([
  ['MySQL', 'mysql', 'dump.sql.gz'],
  ['PostgreSQL', 'postgresql', 'dump.pgdump'],
] as const)('%s backups through the API', { timeout: 120_000 }, (type, engine, part) => {
  let id = '';
  let login: DatabaseCredentials;
  let backupId = '';
  const cargo = `harbour-${randomBytes(4).toString('hex')}`;

  it('backs up off-site, encrypted, and tells where and how big', async () => {
    ({ id, login } = await deployDatabase(type));
    const made = await tenantCli(
      engine,
      login,
      `CREATE TABLE cargo (name varchar(64)); INSERT INTO cargo VALUES ('${cargo}'), ('second');`,
    );
    expect(made.ok, made.stderr).toBe(true);
    const created = await api('POST', `/api/instances/${id}/backups/new`, {
      name: 'Before the storm',
      note: 'two rows',
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    backupId = created.json.id;
    const backup = await waitForBackup(app, owner.token, id, backupId);
    expect(backup).toMatchObject({
      name: 'Before the storm',
      note: 'two rows',
      kind: 'manual',
      status: 'complete',
      error: null,
      location: 'Off-site storage',
      offsite: true,
    });
    expect(backup.size).toBeGreaterThan(100);
    expect(await storedKeys(id)).toEqual([
      `instances/${id}/${backupId}/${part}.enc`,
      `instances/${id}/${backupId}/manifest.json.enc`,
    ]);
    // What the bucket holds does not show the data.
    const stored = await bytesOf(`instances/${id}/${backupId}/${part}.enc`);
    expect(stored.includes(Buffer.from(cargo))).toBe(false);
  });

  it('downloads the backup through a short-lived link, for its owner only', async () => {
    const link = await api('POST', `/api/instances/${id}/backups/${backupId}/download`);
    expect(link.status, JSON.stringify(link.json)).toBe(200);
    expect(Date.parse(link.json.expiresAt) - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    const tar = await download(link.json.url);
    const dir = await mkdtemp(path.join(work, 'tar-'));
    await writeFile(path.join(dir, 'backup.tar'), tar);
    execFileSync('tar', ['-xf', 'backup.tar'], { cwd: dir });
    const dump = await readFile(path.join(dir, part));
    // pg_dump's custom format compresses the data: pg_restore turns it back into SQL.
    const text =
      engine === 'mysql' ? gunzipSync(dump) : execFileSync(PG_RESTORE, ['-f', '-', path.join(dir, part)]);
    expect(text.includes(Buffer.from(cargo))).toBe(true);
    // A link that was tampered with is no link.
    expect((await app.request(`${new URL(link.json.url).pathname}x`)).status).toBe(404);
  });

  it('answers 404 to another customer on list, download and restore', async () => {
    const stranger = await register(app);
    for (const [method, route] of [
      ['GET', `/api/instances/${id}/backups`],
      ['POST', `/api/instances/${id}/backups/${backupId}/download`],
      ['POST', `/api/instances/${id}/backups/${backupId}/restore`],
      ['DELETE', `/api/instances/${id}/backups/${backupId}`],
    ] as const) {
      const res = await api(method, route, undefined, stranger.token);
      expect([res.status, res.json.message], `${method} ${route}`).toEqual([404, 'Instance not found']);
    }
    // Their own instance with this backup's id: still not found.
    const theirs = await api('POST', '/api/instances/deploy', { name: 'mine', type }, stranger.token);
    const mine = theirs.json.instance.id;
    await waitForStatus(app, stranger.token, mine, 'running', 60_000);
    for (const [method, route] of [
      ['POST', `/api/instances/${mine}/backups/${backupId}/download`],
      ['POST', `/api/instances/${mine}/backups/${backupId}/restore`],
    ] as const) {
      const res = await api(method, route, undefined, stranger.token);
      expect([res.status, res.json.message], `${method} ${route}`).toEqual([404, 'Backup not found']);
    }
  });

  it('restores exactly after a confirmation: restoring, then running, with the rows back', async () => {
    await tenantCli(engine, login, `DELETE FROM cargo; CREATE TABLE later (x int);`);
    const restored = await api('POST', `/api/instances/${id}/backups/${backupId}/restore`);
    expect([restored.status, restored.json.message]).toEqual([202, 'Restore initiated']);
    expect((await api('GET', `/api/instances/${id}`)).json.instance.status).toBe('restoring');
    await waitForStatus(app, owner.token, id, 'running', 60_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${jobLog.join('\n')}`);
    });
    const rows = await tenantCli(engine, login, 'SELECT name FROM cargo ORDER BY name;');
    expect(rows.stdout.split('\n')).toEqual([cargo, 'second'].sort());
    const later = await tenantCli(engine, login, 'SELECT count(*) FROM later;');
    expect(later.ok).toBe(false);
  });

  it('refuses a tampered archive before touching the instance, and says why with the request id', async () => {
    const key = `instances/${id}/${backupId}/${part}.enc`;
    const body = await bytesOf(key);
    body[body.length >> 1] = (body[body.length >> 1] ?? 0) ^ 0x55;
    await services.vault.store.put(key, Readable.from([body]));
    await tenantCli(engine, login, `INSERT INTO cargo VALUES ('after-tamper');`);
    const res = await app.request(`/api/instances/${id}/backups/${backupId}/restore`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}` },
    });
    expect(res.status).toBe(202);
    const requestId = res.headers.get('x-request-id');
    const failed = await waitFor(
      async () => {
        const list = await api('GET', '/api/notifications');
        return list.json.items.find((n: { title: string }) => n.title === 'Restore failed');
      },
      { timeoutMs: 30_000, what: 'the restore failure notice' },
    );
    expect(failed.message).toContain('The backup is damaged');
    expect(failed.message).toContain(`Reference: ${requestId}`);
    await waitForStatus(app, owner.token, id, 'running', 30_000);
    const rows = await tenantCli(engine, login, `SELECT count(*) FROM cargo WHERE name = 'after-tamper';`);
    expect(rows.stdout).toBe('1');
  });
});

describe('a PostgreSQL database that holds text reading like the platform’s own SQL', {
  timeout: 120_000,
}, () => {
  // Lines beginning `CREATE EVENT TRIGGER` in a function body, a table's comment and its rows: a
  // restore that filtered pg_restore's SQL by its lines would drop some of them, or lose its place and
  // break the function's end. Only the platform's own event trigger (an entry of the archive) is skipped.
  const setup = `
CREATE FUNCTION harbour_notes() RETURNS text LANGUAGE plpgsql AS $fn$
BEGIN
  RETURN 'first line
CREATE EVENT TRIGGER looks_like_ours ON ddl_command_end
  EXECUTE FUNCTION nothing();
CREATE EVENT TRIGGER cut_short ON ddl_command_start
still the same string';
END
$fn$;
CREATE TABLE notes (id int PRIMARY KEY, body text);
COMMENT ON TABLE notes IS 'notes
CREATE EVENT TRIGGER in_a_comment ON sql_drop EXECUTE FUNCTION f();
end of the comment';
INSERT INTO notes VALUES
  (1, E'CREATE EVENT TRIGGER in_the_data ON ddl_command_end\nEXECUTE FUNCTION g();'),
  (2, 'CREATE EVENT TRIGGER on one line;');`;
  const snapshot = `SELECT harbour_notes() || '|' || obj_description('notes'::regclass, 'pg_class') || '|' ||
    (SELECT string_agg(id || ':' || body, '|' ORDER BY id) FROM notes);`;

  it('backs up and restores the function, the comment and the rows exactly', async () => {
    const { id, login } = await deployDatabase('PostgreSQL');
    const made = await tenantCli('postgresql', login, setup);
    expect(made.ok, made.stderr).toBe(true);
    const before = await tenantCli('postgresql', login, snapshot);
    expect(before.stdout).toContain('\nCREATE EVENT TRIGGER cut_short ON ddl_command_start\n');
    expect(before.stdout).toContain('2:CREATE EVENT TRIGGER on one line;');
    const created = await api('POST', `/api/instances/${id}/backups/new`, { name: 'Awkward text' });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const backup = await waitForBackup(app, owner.token, id, created.json.id);
    expect([backup.status, backup.error]).toEqual(['complete', null]);

    const changed = await tenantCli(
      'postgresql',
      login,
      `DROP FUNCTION harbour_notes(); DELETE FROM notes; COMMENT ON TABLE notes IS NULL;`,
    );
    expect(changed.ok, changed.stderr).toBe(true);
    const restored = await api('POST', `/api/instances/${id}/backups/${backup.id}/restore`);
    expect(restored.status, JSON.stringify(restored.json)).toBe(202);
    await waitForStatus(app, owner.token, id, 'running', 60_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${jobLog.join('\n')}`);
    });
    const failed = (await api('GET', '/api/notifications')).json.items.find(
      (n: { title: string }) => n.title === 'Restore failed',
    );
    expect(failed?.message).toBeUndefined();
    expect((await tenantCli('postgresql', login, snapshot)).stdout).toBe(before.stdout);
    // The platform's event trigger is still the database's own (from template1), and still works.
    const hash = await tenantCli('postgresql', login, 'CREATE INDEX notes_hash ON notes USING hash (body);');
    expect(hash.stderr).toContain('hash indexes are not available on this server');
  });
});
