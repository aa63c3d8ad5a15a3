import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
  waitForGone,
  waitForStatus,
} from '../../../../test/instances-harness.ts';
import { tenantCli } from '../../../../test/provisioning/db-clients.ts';
import { createTestDatabase } from '../../../../test/test-db.ts';
import { createApp } from '../../../app.ts';
import { backupKeyFrom } from '../../../backup-storage/archive-cipher.ts';
import { type BackupVault, backupVault } from '../../../backup-storage/backup-vault.ts';
import { folderStore } from '../../../backup-storage/object-store.ts';
import type { Db } from '../../../db/database.ts';
import type { JobRunner } from '../../../jobs/job-runner.ts';
import { createEphemeralCipher } from '../../../lib/crypto.ts';
import type { DatabaseCredentials } from '../../../provisioning/engine.ts';
import type { Services } from '../../../services.ts';
import { NODE_DOWN } from '../server-words.ts';

/**
 * A deleted instance's backups, end to end: the real local driver (MariaDB tenants), the real job
 * runner, a folder store. What the owner sees once the instance is gone (its backups, until their
 * plan's days have passed), a restore into a new MySQL instance read back with the mariadb client,
 * a restore into an instance whose server is gone, and retention taking the records and their files;
 * what a stranger gets: nothing listed, 404.
 */

const DAY = 86_400_000;
let db: Db;
let prov: TestProvisioning;
let runner: JobRunner;
let app: TestApp;
let services: Services;
let vault: BackupVault;
let work = '';
const jobLog: string[] = [];
let owner: { token: string };

const api = callAs(
  () => app,
  () => owner.token,
);

beforeAll(async () => {
  const testDb = await createTestDatabase();
  db = testDb.db;
  prov = await startTestProvisioning();
  work = await mkdtemp(path.join(tmpdir(), 'berth-deleted-backups-'));
  const cipher = createEphemeralCipher();
  vault = backupVault({
    store: folderStore(path.join(work, 'store')),
    key: backupKeyFrom(randomBytes(32)),
    spoolDir: path.join(work, 'spool'),
  });
  services = createTestServices(db, { provisioner: prov.driver, cipher, backupVault: vault });
  app = createApp(services);
  runner = await startTestRunner({ ...testDb, driver: prov.driver, cipher, vault, log: jobLog });
  owner = await register(app);
}, 300_000);

afterAll(async () => {
  await runner?.stop();
  await prov?.stop();
  if (work) await rm(work, { recursive: true, force: true });
}, 60_000);

/** The instance's database login, as its owner reads it. */
async function loginOf(id: string): Promise<DatabaseCredentials> {
  const access = await api('GET', `/api/instances/${id}/access`);
  const credentials = accessDatabase(access.json);
  return {
    host: credentials.host,
    port: Number(credentials.port),
    database: credentials.name,
    user: credentials.user,
    password: credentials.password,
  };
}

const withJobLog = (error: Error) => {
  throw new Error(`${error.message}\n${jobLog.join('\n')}`);
};

describe('the backups of a deleted MySQL instance', { timeout: 180_000 }, () => {
  let oldId = '';
  let newId = '';
  let backupId = '';
  const cargo = `ledger-${randomBytes(4).toString('hex')}`;

  it('stay after the instance is deleted, listed for its owner with the day they go', async () => {
    const deployed = await api('POST', '/api/instances/deploy', { name: 'Ledger', type: 'MySQL' });
    expect(deployed.status, JSON.stringify(deployed.json)).toBe(202);
    oldId = deployed.json.instance.id;
    await waitForStatus(app, owner.token, oldId, 'running', 60_000);
    const made = await tenantCli(
      'mysql',
      await loginOf(oldId),
      `CREATE TABLE cargo (name varchar(64)); INSERT INTO cargo VALUES ('${cargo}'), ('second');`,
    );
    expect(made.ok, made.stderr).toBe(true);
    const created = await api('POST', `/api/instances/${oldId}/backups/new`, { name: 'Before closing' });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    backupId = created.json.id;
    expect((await waitForBackup(app, owner.token, oldId, backupId)).status).toBe('complete');

    expect((await api('DELETE', `/api/instances/${oldId}`)).status).toBe(202);
    await waitForGone(app, owner.token, oldId, 60_000);

    const listed = await api('GET', '/api/deleted-instances/backups');
    expect(listed.status, JSON.stringify(listed.json)).toBe(200);
    expect(listed.json.backups).toHaveLength(1);
    const [backup] = listed.json.backups;
    expect(backup).toMatchObject({
      id: backupId,
      name: 'Before closing',
      kind: 'manual',
      location: 'This server',
      instance: { id: oldId, name: 'Ledger', type: 'MySQL', product: 'mysql', region: 'us-east-1' },
      restorable: true,
      reason: null,
    });
    // A trial keeps backups as long as the Starter plan: 7 days unless the admin changed it.
    expect(Date.parse(backup?.keptUntil ?? '') - Date.parse(backup?.createdAt ?? '')).toBe(7 * DAY);
    // Its files are still in the store.
    expect(await vault.store.list(`instances/${oldId}/`)).toEqual([
      `instances/${oldId}/${backupId}/dump.sql.gz.enc`,
      `instances/${oldId}/${backupId}/manifest.json.enc`,
    ]);
  });

  it('are nobody else’s: another customer lists none and gets 404 for restore and delete', async () => {
    const stranger = await register(app);
    const listed = await api('GET', '/api/deleted-instances/backups', undefined, stranger.token);
    expect([listed.status, listed.json.backups]).toEqual([200, []]);
    for (const [method, route] of [
      ['POST', `/api/deleted-instances/backups/${backupId}/restore`],
      ['DELETE', `/api/deleted-instances/backups/${backupId}`],
    ] as const) {
      const res = await api(method, route, {}, stranger.token);
      expect([res.status, res.json.message], `${method} ${route}`).toEqual([404, 'Backup not found']);
    }
    // Nor does the deleted instance's own backup route answer anyone.
    const old = await api('GET', `/api/instances/${oldId}/backups`);
    expect(old.status).toBe(404);
    expect(await vault.store.list(`instances/${oldId}/`)).toHaveLength(2);
  });

  it('restores into a new MySQL instance: deployed, restored, running with the data', async () => {
    const res = await api('POST', `/api/deleted-instances/backups/${backupId}/restore`, {
      name: 'Ledger again',
    });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    expect(res.json.message).toBe('Restore into a new instance initiated');
    newId = res.json.instance.id;
    expect(newId).not.toBe(oldId);
    expect(res.json.instance).toMatchObject({ name: 'Ledger again', product: 'mysql', status: 'deploying' });
    const restored = await waitFor(
      async () =>
        (await api('GET', '/api/notifications')).json.items.find(
          (n: { title: string }) => n.title === 'Backup restored' || n.title === 'Restore failed',
        ),
      { timeoutMs: 120_000, what: 'the restore to end' },
    ).catch(withJobLog);
    expect(restored.message).toBe('Your MySQL instance "Ledger again" was restored from “Before closing”.');
    await waitForStatus(app, owner.token, newId, 'running', 30_000);
    const rows = await tenantCli('mysql', await loginOf(newId), 'SELECT name FROM cargo ORDER BY name;');
    expect(rows.stdout.split('\n')).toEqual([cargo, 'second'].sort());
    // The backup stays listed (until its days have passed); the plan (a trial: one instance) allows no
    // second restore into yet another instance.
    expect((await api('GET', '/api/deleted-instances/backups')).json.backups.map((b) => b.id)).toEqual([
      backupId,
    ]);
    const again = await api('POST', `/api/deleted-instances/backups/${backupId}/restore`, {});
    expect([again.status, again.json.error]).toEqual([403, 'plan_limit']);
  });

  it('restores into an instance whose server is gone (deployed again first)', async () => {
    const login = await loginOf(newId);
    const created = await api('POST', `/api/instances/${newId}/backups/new`, { name: 'Own backup' });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const own = await waitForBackup(app, owner.token, newId, created.json.id);
    expect(own.status).toBe('complete');
    expect((await tenantCli('mysql', login, 'DELETE FROM cargo;')).ok).toBe(true);
    // What the swarm driver reports when the instance's node stops answering.
    await waitFor(async () => {
      const row = await services.instanceLiveStates.apply({ id: newId, type: 'mysql', state: 'node-down' });
      return row?.status === 'error' ? row : undefined;
    });
    const shown = await api('GET', `/api/instances/${newId}`);
    expect(shown.json.instance).toMatchObject({ status: 'error', statusMessage: NODE_DOWN });

    const res = await api('POST', `/api/instances/${newId}/backups/${own.id}/restore`);
    expect([res.status, res.json.message]).toEqual([202, 'Restore initiated']);
    expect((await api('GET', `/api/instances/${newId}`)).json.instance.status).toBe('restoring');
    await waitForStatus(app, owner.token, newId, 'running', 120_000).catch(withJobLog);
    const rows = await tenantCli('mysql', await loginOf(newId), 'SELECT name FROM cargo ORDER BY name;');
    expect(rows.stdout.split('\n')).toEqual([cargo, 'second'].sort());
  });

  it('go with their files once their plan’s days have passed', async () => {
    const later = createTestServices(db, {
      provisioner: prov.driver,
      backupVault: vault,
      now: () => new Date(Date.now() + 8 * DAY),
    });
    const removed = await later.backupSchedule.applyRetention();
    expect(removed).toContain(backupId);
    expect((await api('GET', '/api/deleted-instances/backups')).json.backups).toEqual([]);
    expect(await vault.store.list(`instances/${oldId}/`)).toEqual([]);
    const record = await db.selectFrom('instance_backups').select('id').where('id', '=', backupId).execute();
    expect(record).toEqual([]);
    // The running instance keeps its newest backup whatever its age.
    expect((await api('GET', `/api/instances/${newId}/backups`)).json).toHaveLength(1);
  });
});
