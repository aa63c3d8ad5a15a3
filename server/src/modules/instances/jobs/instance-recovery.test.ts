import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, register } from '../../../../test/create-test-app.ts';
import { createTestDatabase } from '../../../../test/test-db.ts';
import { backupKeyFrom } from '../../../backup-storage/archive-cipher.ts';
import {
  type BackupVault,
  backupVault,
  ManifestMisplacedError,
} from '../../../backup-storage/backup-vault.ts';
import { folderStore } from '../../../backup-storage/object-store.ts';
import type { Db } from '../../../db/database.ts';
import type { BackupManifest } from '../backups/instance-backup-task.ts';
import { manifestKey } from '../backups/instance-backups.service.ts';
import { recoverInstances } from './instance-recovery.ts';

/**
 * The platform recovery reads instances' backups from storage alone (their manifests): a manifest that
 * someone with write access to the bucket copied onto another backup's key is refused, not believed.
 */

let db: Db;
let vault: BackupVault;
let dir = '';

beforeAll(async () => {
  ({ db } = await createTestDatabase());
  dir = await mkdtemp(path.join(tmpdir(), 'berth-recovery-'));
  vault = backupVault({
    store: folderStore(path.join(dir, 'store')),
    key: backupKeyFrom(randomBytes(32)),
    spoolDir: path.join(dir, 'spool'),
  });
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A deployed MySQL instance row of a new customer (nothing runs: recovery only reads and records). */
async function deployedInstance(): Promise<string> {
  const { user } = await register(createTestApp(db));
  const row = await db
    .insertInto('instances')
    .values({
      user_id: String(user.id),
      name: 'Orders',
      type: 'mysql',
      category: 'database',
      region: 'local',
      memory: '256 MB',
      cpu: '0.25',
      status: 'running',
      deployed_at: new Date(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

const manifest = (instanceId: string, id: string, createdAt: string): BackupManifest => ({
  id,
  instanceId,
  kind: 'scheduled',
  name: 'Daily',
  note: '',
  createdAt,
  completedAt: createdAt,
  size: 10,
  parts: [{ name: 'dump.sql.gz', size: 10, sha256: 'a'.repeat(64), plainSize: 5 }],
  facts: { tables: 1 },
});

describe('instance recovery from storage', () => {
  it('imports the backups whose manifests are where they were written, and restores the newest', async () => {
    const id = await deployedInstance();
    await vault.putJson(
      manifestKey(id, 'b-000000000001'),
      manifest(id, 'b-000000000001', '2026-01-01T00:00:00Z'),
    );
    await vault.putJson(
      manifestKey(id, 'b-000000000002'),
      manifest(id, 'b-000000000002', '2026-01-02T00:00:00Z'),
    );
    expect(await recoverInstances(db, vault)).toEqual({ restoring: 1, empty: 0, imported: 2 });
    const backups = await db
      .selectFrom('instance_backups')
      .select(['id', 'status'])
      .where('instance_id', '=', id)
      .execute();
    expect(backups.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
      { id: 'b-000000000001', status: 'complete' },
      { id: 'b-000000000002', status: 'complete' },
    ]);
    await db.deleteFrom('instances').where('id', '=', id).execute();
  });

  it('refuses a manifest copied onto another backup’s key, saying where', async () => {
    const id = await deployedInstance();
    await vault.putJson(
      manifestKey(id, 'b-000000000001'),
      manifest(id, 'b-000000000001', '2026-01-01T00:00:00Z'),
    );
    await vault.putJson(
      manifestKey(id, 'b-000000000002'),
      manifest(id, 'b-000000000002', '2026-01-02T00:00:00Z'),
    );
    // The older backup's manifest over the newer one's: the recovery would restore old data as new.
    const older: Buffer[] = [];
    for await (const chunk of await vault.store.get(manifestKey(id, 'b-000000000001')))
      older.push(chunk as Buffer);
    await vault.store.put(manifestKey(id, 'b-000000000002'), Readable.from([Buffer.concat(older)]));
    const refused = recoverInstances(db, vault);
    await expect(refused).rejects.toThrow(ManifestMisplacedError);
    await expect(refused).rejects.toThrow(
      `The manifest at ${manifestKey(id, 'b-000000000002')} does not belong there`,
    );
  });
});
