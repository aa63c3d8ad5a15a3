import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, createTestServices, register, type TestApp } from '../../../../test/create-test-app.ts';
import { startTestRunner, waitForBackup, waitForStatus } from '../../../../test/instances-harness.ts';
import { createMemoryDriver, type MemoryDriver } from '../../../../test/provisioning/memory-driver.ts';
import { testArchives } from '../../../../test/provisioning/test-archives.ts';
import { createTestDatabase } from '../../../../test/test-db.ts';
import { createApp } from '../../../app.ts';
import type { Db } from '../../../db/database.ts';
import type { JobRunner } from '../../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../../lib/crypto.ts';
import type { Services } from '../../../services.ts';
import { INTERRUPTED } from './backup-schedule.ts';
import { insertBackup } from './instance-backups.repository.ts';

/**
 * The rules of a backup's download links (used once, across server processes; refused once their
 * session signed out or the password changed) and of backups a dying server left behind. The driver
 * keeps its instances in memory (its backup is one part, `data`); the platform database, the job
 * runner and the backup storage (a folder, the real encryption) are real. Backups of real instances,
 * their contents and restores are in instance-backups.test.ts on the local driver.
 */

let db: Db;
let driver: MemoryDriver;
let runner: JobRunner;
let app: TestApp;
let services: Services;
let owner: { token: string; userId: string; email: string; password: string };
let work = '';

const api = callAs(
  () => app,
  () => owner.token,
);

beforeAll(async () => {
  const testDb = await createTestDatabase();
  db = testDb.db;
  driver = createMemoryDriver();
  const archives = await testArchives();
  work = archives.dir;
  const cipher = createEphemeralCipher();
  services = createTestServices(db, { provisioner: driver, cipher, backupVault: archives.vault });
  app = createApp(services);
  runner = await startTestRunner({ ...testDb, driver, cipher, vault: archives.vault });
}, 60_000);

afterAll(async () => {
  await runner?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

/** A new customer (a trial allows one instance) deploys a MySQL instance; answers its id. */
async function deployDatabase(type: 'MySQL') {
  const { token, user, body } = await register(app);
  owner = { token, userId: String(user.id), email: body.email, password: body.password };
  const res = await api('POST', '/api/instances/deploy', { name: `${type} shop`, type });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  const id = res.json.instance.id;
  await waitForStatus(app, owner.token, id, 'running');
  return { id };
}

/** The objects the store holds for an instance (keys, as the store lists them). */
const storedKeys = (id: string) => services.vault.store.list(`instances/${id}/`);

describe('download links', { timeout: 30_000 }, () => {
  let id = '';
  let backupId = '';
  const linkUsed = 'This download link was already used. Make a new link to download the backup again.';
  const linkRevoked =
    'This download link stopped working when its session was signed out or the password was changed. Make a new link.';

  /** A fresh link to the backup, made with `token` (a session's access token). */
  async function linkWith(token: string): Promise<string> {
    const link = await api('POST', `/api/instances/${id}/backups/${backupId}/download`, undefined, token);
    expect(link.status, JSON.stringify(link.json)).toBe(200);
    return new URL(link.json.url).pathname;
  }

  /** Follows a link that must be refused: its status and JSON body. */
  async function refused(target: TestApp, path: string) {
    const res = await target.request(path);
    expect(res.headers.get('content-type')).toContain('application/json');
    return { status: res.status, body: (await res.json()) as { error: string; message: string } };
  }

  it('a link downloads the exact bytes of the backup once; a second use, here or in another server process, is refused', async () => {
    ({ id } = await deployDatabase('MySQL'));
    const made = await api('POST', `/api/instances/${id}/backups/new`, { name: 'Links' });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    backupId = made.json.id;
    expect((await waitForBackup(app, owner.token, id, backupId)).status).toBe('complete');

    const path1 = await linkWith(owner.token);
    const first = await app.request(path1);
    expect(first.status).toBe(200);
    const dir = await mkdtemp(path.join(work, 'link-'));
    await writeFile(path.join(dir, 'backup.tar'), Buffer.from(await first.arrayBuffer()));
    execFileSync('tar', ['-xf', 'backup.tar'], { cwd: dir });
    // What the tar holds is exactly the stored part, decrypted.
    const [row] = await db
      .selectFrom('instance_backups')
      .select('parts')
      .where('id', '=', backupId)
      .execute();
    const parts = row?.parts ?? [];
    expect(parts.map((p) => p.name)).toEqual(['data']);
    const opened = await services.vault.open(`instances/${id}/${backupId}`, parts);
    try {
      const stored: Buffer[] = [];
      for await (const chunk of opened.archive.part('data')) stored.push(chunk as Buffer);
      expect((await readFile(path.join(dir, 'data'))).equals(Buffer.concat(stored))).toBe(true);
    } finally {
      await opened.close();
    }

    // Another server process on the same database (its own services and caches) refuses it too.
    const other = createApp(createTestServices(db, { provisioner: driver, backupVault: services.vault }));
    expect(await refused(app, path1)).toEqual({ status: 410, body: { error: 'gone', message: linkUsed } });
    expect(await refused(other, path1)).toEqual({ status: 410, body: { error: 'gone', message: linkUsed } });

    // Two uses at once, one per process: one download, one refusal.
    const path2 = await linkWith(owner.token);
    const both = await Promise.all([app.request(path2), other.request(path2)]);
    expect(both.map((res) => res.status).sort()).toEqual([200, 410]);
    for (const res of both) await res.arrayBuffer();
  });

  it('a link made in a session that signed out since is refused; one of another session still works', async () => {
    const login = await api('POST', '/api/auth/login', {
      emailOrUsername: owner.email,
      password: owner.password,
    });
    expect(login.status, JSON.stringify(login.json)).toBe(200);
    const fromLaptop = await linkWith(login.json.token);
    const fromPhone = await linkWith(owner.token);
    const out = await api('POST', '/api/auth/logout', { refreshToken: login.json.refreshToken });
    expect(out.status).toBe(200);
    expect(await refused(app, fromLaptop)).toEqual({
      status: 410,
      body: { error: 'gone', message: linkRevoked },
    });
    const res = await app.request(fromPhone);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });

  it('a link made before a password change is refused', async () => {
    const before = await linkWith(owner.token);
    const changed = await api('PUT', '/api/auth/change-password', {
      currentPassword: owner.password,
      newPassword: 'Difference#Engine1',
    });
    expect(changed.status, JSON.stringify(changed.json)).toBe(200);
    owner = { ...owner, token: changed.json.token, password: 'Difference#Engine1' };
    expect(await refused(app, before)).toEqual({
      status: 410,
      body: { error: 'gone', message: linkRevoked },
    });
    // A link made after the change works.
    const after = await app.request(await linkWith(owner.token));
    expect(after.status).toBe(200);
    await after.arrayBuffer();
  });
});

describe('interrupted backups', () => {
  it('a backup whose server died is marked failed on the next start, its stored parts removed: never complete', async () => {
    const { id } = await deployDatabase('MySQL');
    // As a killed server leaves it: the row running, half a part in the bucket, no job left.
    const row = await insertBackup(db, {
      id: 'b-00000000cafe',
      instanceId: id,
      kind: 'scheduled',
      name: 'Daily',
      note: '',
      location: 's3',
    });
    await services.vault.store.put(`instances/${id}/${row.id}/data.enc`, Readable.from([randomBytes(1000)]));
    expect((await api('GET', `/api/instances/${id}/backups`)).json[0]).toMatchObject({ status: 'running' });
    expect(await services.backupSchedule.cleanUpInterrupted()).toEqual([row.id]);
    const [listed] = (await api('GET', `/api/instances/${id}/backups`)).json;
    expect(listed).toMatchObject({ id: row.id, status: 'failed', error: INTERRUPTED });
    expect(await storedKeys(id)).toEqual([]);
    // A failed backup cannot be restored or downloaded.
    expect((await api('POST', `/api/instances/${id}/backups/${row.id}/restore`)).status).toBe(409);
    expect((await api('POST', `/api/instances/${id}/backups/${row.id}/download`)).status).toBe(409);
  });
});
