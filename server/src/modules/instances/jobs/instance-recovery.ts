import type { BackupVault } from '../../../backup-storage/backup-vault.ts';
import type { Db } from '../../../db/database.ts';
import { addJob } from '../../../jobs/job-queue.ts';
import { newReference } from '../../../lib/error-reference.ts';
import type { BackupManifest } from '../backups/instance-backup-task.ts';
import { findLatestComplete, insertRecoveredBackup } from '../backups/instance-backups.repository.ts';
import { type BackupJobPayload, TASK_RECOVER } from '../backups/instance-backups.service.ts';
import { findInstancesToReconcile, updateInstance } from '../instances.repository.ts';

const RECOVERING = 'Being recovered from its latest backup';
/** Where backupPrefix/manifestKey put an instance's backup manifest. */
const MANIFEST_KEY = /^instances\/[^/]+\/(b-[0-9a-f]{12})\/manifest\.json\.enc$/;

/**
 * After Berth's own database was restored on a new machine (npm run restore-platform): every backup
 * storage holds for an instance is known again (a backup made after the database dump is listed from
 * its manifest), and each instance is redeployed and restored from its newest complete backup by a
 * recovery job (deploy, then restore: `restoring`, then `running`), which runs once the server starts.
 * An instance without a backup is only redeployed (the server's start does that), empty. A manifest
 * that does not belong at its key (copied there from another backup or instance) stops the recovery
 * with ManifestMisplacedError: storage was tampered with, and what it says cannot be trusted.
 */
export async function recoverInstances(
  db: Db,
  vault: BackupVault,
): Promise<{ restoring: number; empty: number; imported: number }> {
  const rows = (await findInstancesToReconcile(db)).filter((row) => row.status !== 'deleting');
  const counts = { restoring: 0, empty: 0, imported: 0 };
  for (const row of rows) {
    const keys = (await vault.store.list(`instances/${row.id}/`)).filter((key) =>
      key.endsWith('/manifest.json.enc'),
    );
    for (const key of keys) {
      const backupId = MANIFEST_KEY.exec(key)?.[1];
      if (!backupId) continue;
      const manifest = (await vault.getJson(key, { id: backupId, instanceId: row.id })) as BackupManifest;
      await insertRecoveredBackup(db, {
        id: manifest.id,
        instance_id: row.id,
        kind: manifest.kind,
        name: manifest.name,
        note: manifest.note,
        location: vault.store.kind,
        size: manifest.size,
        parts: manifest.parts,
        facts: manifest.facts,
        created_at: new Date(manifest.createdAt),
        completed_at: new Date(manifest.completedAt),
      });
      counts.imported += 1;
    }
    const latest = await findLatestComplete(db, row.id);
    await db.transaction().execute(async (trx) => {
      await updateInstance(trx, row.id, {
        status: 'deploying',
        status_message: latest ? RECOVERING : 'Being redeployed (it had no backup)',
      });
      if (!latest) return;
      const payload: BackupJobPayload = {
        backupId: latest.id,
        instanceId: row.id,
        requestId: newReference(),
      };
      await addJob(trx, {
        task: TASK_RECOVER,
        payload: { ...payload },
        jobKey: `recover:${row.id}`,
        queueName: `instance:${row.id}`,
        maxAttempts: 5,
      });
    });
    if (latest) counts.restoring += 1;
    else counts.empty += 1;
  }
  return counts;
}
