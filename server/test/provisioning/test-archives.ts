import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { backupKeyFrom } from '../../src/backup-storage/archive-cipher.ts';
import { type BackupVault, backupVault, type StoredPart } from '../../src/backup-storage/backup-vault.ts';
import { folderStore } from '../../src/backup-storage/object-store.ts';
import type { BackupCapability, BackupFacts, BaseSpec } from '../../src/provisioning/engine.ts';

/**
 * The platform's backup storage for driver tests (a folder, the real encryption and checksums): an
 * engine's dump stored under a name, and restored from it, as the backup jobs do.
 */
export async function testArchives(): Promise<{
  vault: BackupVault;
  dir: string;
  dump<S extends BaseSpec>(
    capability: BackupCapability<S> | undefined,
    spec: S,
    name: string,
  ): Promise<StoredBackup>;
  restore<S extends BaseSpec>(
    capability: BackupCapability<S> | undefined,
    spec: S,
    backup: StoredBackup,
  ): Promise<void>;
}> {
  const dir = await mkdtemp(path.join(tmpdir(), 'berth-archives-'));
  const vault = backupVault({
    store: folderStore(path.join(dir, 'store')),
    key: backupKeyFrom(randomBytes(32)),
    spoolDir: path.join(dir, 'spool'),
  });
  const required = <T>(value: T | undefined): T => {
    if (!value) throw new Error('the engine has no backups');
    return value;
  };
  return {
    vault,
    dir,
    async dump(capability, spec, name) {
      const { archive, parts } = vault.writer(`test/${name}`);
      const facts = await required(capability).dump(spec, archive);
      return { name, parts, facts };
    },
    async restore(capability, spec, backup) {
      const opened = await vault.open(`test/${backup.name}`, backup.parts);
      try {
        await required(capability).restore(spec, opened.archive, backup.facts);
      } finally {
        await opened.close();
      }
    },
  };
}

export interface StoredBackup {
  name: string;
  parts: StoredPart[];
  facts: BackupFacts;
}
