import type { BackupVault } from '../../backup-storage/backup-vault.ts';
import type { Db } from '../../db/database.ts';
import { newReference } from '../../lib/error-reference.ts';
import type { ProvisioningDriver } from '../../provisioning/driver.ts';
import { INSTANCE_TYPES } from '../../provisioning/instance-types.ts';
import type { PaymentSettingsStore } from '../payments/payment-settings.ts';
import {
  deleteBackupRow,
  findDueForSchedule,
  findExpired,
  findOrphanedRunning,
  updateBackup,
} from './instance-backups.repository.ts';
import { backupPrefix, enqueueBackup, manifestKey } from './instance-backups.service.ts';

/** How often the schedule looks for instances whose daily backup is due (and for expired backups). */
export const BACKUP_SCHEDULE_INTERVAL_MS = 5 * 60_000;

export const INTERRUPTED =
  'Backup failed: the server stopped while it was being made. The next scheduled backup makes a new one.';

export interface BackupScheduleDeps {
  db: Db;
  now: () => Date;
  driver: ProvisioningDriver;
  vault: BackupVault;
  paymentSettings: Pick<PaymentSettingsStore, 'read'>;
}

/**
 * The daily backups of every instance whose type has them: each instance's time of day is fixed by its
 * id (spread over the 24 hours, so they do not all run at once), and a scheduled backup is recorded
 * and its job added once that time has passed each day. Backups older than the days of their owner's
 * plan are removed (the admin sets the days; each instance keeps its newest complete backup whatever its
 * age). A backup whose server was killed while making it reads `running` until its job runs again
 * (it starts over) or, with no job left, is marked failed and what it stored is removed: it never reads
 * as complete.
 */
export function createBackupSchedule({ db, now, driver, vault, paymentSettings }: BackupScheduleDeps) {
  const typesWithBackups = () => INSTANCE_TYPES.filter((type) => driver.engine(type).backups);

  const removeStored = async (instanceId: string, backupId: string) => {
    const prefix = backupPrefix(instanceId, backupId);
    await vault.store.removeUnfinished(`${prefix}/`);
    for (const key of await vault.store.list(`${prefix}/`)) await vault.store.remove(key);
  };

  return {
    /** Records today's scheduled backup of every instance whose time has come; answers how many. */
    async scheduleDue(): Promise<number> {
      const due = await findDueForSchedule(db, now(), typesWithBackups());
      const day = now().toISOString().slice(0, 10);
      for (const row of due) {
        await db.transaction().execute((trx) =>
          enqueueBackup(trx, vault, row, {
            kind: 'scheduled',
            name: `Daily backup ${day}`,
            note: '',
            requestId: newReference(),
            createdAt: now(),
          }),
        );
      }
      return due.length;
    },

    /** Removes the backups past their plan's days; answers their ids. */
    async applyRetention(): Promise<string[]> {
      const { backupDays } = await paymentSettings.read();
      const expired = await findExpired(db, now(), backupDays);
      for (const backup of expired) {
        await vault.remove(backupPrefix(backup.instance_id, backup.id), backup.parts, [
          manifestKey(backup.instance_id, backup.id),
        ]);
        await deleteBackupRow(db, backup.id);
      }
      return expired.map((b) => b.id);
    },

    /** Marks backups a crash cut short (no job left to finish them) failed and removes what they stored. */
    async cleanUpInterrupted(): Promise<string[]> {
      const orphans = await findOrphanedRunning(db);
      for (const backup of orphans) {
        await removeStored(backup.instance_id, backup.id);
        await updateBackup(
          db,
          backup.id,
          { status: 'failed', step: null, error: INTERRUPTED },
          { status: 'running' },
        );
      }
      return orphans.map((b) => b.id);
    },
  };
}

export type BackupSchedule = ReturnType<typeof createBackupSchedule>;
