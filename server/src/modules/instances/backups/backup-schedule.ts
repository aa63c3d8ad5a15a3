import type { BackupVault } from '../../../backup-storage/backup-vault.ts';
import type { Db } from '../../../db/database.ts';
import { newReference } from '../../../lib/error-reference.ts';
import type { ProvisioningDriver } from '../../../provisioning/driver.ts';
import { INSTANCE_TYPES } from '../../../provisioning/instance-types.ts';
import type { PaymentSettingsStore } from '../../payments/payment-settings.ts';
import {
  backupRecorded,
  deleteBackupRow,
  findBackupPlaces,
  findDueForSchedule,
  findExpired,
  findOrphanedRunning,
  forgetOrphan,
  recordOrphans,
  recordSweep,
  updateBackup,
} from './instance-backups.repository.ts';
import { backupPrefix, enqueueBackup, manifestKey } from './instance-backups.service.ts';

/** How often the schedule looks for instances whose daily backup is due (and for expired backups). */
export const BACKUP_SCHEDULE_INTERVAL_MS = 5 * 60_000;

/** How often the sweep compares the store with the backup records (it lists every backup's files). */
export const STORE_SWEEP_INTERVAL_MS = 6 * 3_600_000;
/**
 * How long a place in the store no backup names is kept after the sweep first found it: time for the
 * admin to look (after a restore of Berth's own database from an older backup, say) before it goes.
 */
export const ORPHAN_GRACE_DAYS = 7;

/** What one sweep of the store found. */
export interface StoreSweep {
  /** Places (`instances/<instance>/<backup>`) no record names, found now. */
  orphans: string[];
  /** Complete backups whose parts or manifest the store lacks. */
  missing: string[];
  /** Orphans removed now, their grace period over. */
  removed: string[];
}

/** A key's backup place: `instances/<instance>/<backup>` (the key itself for a stray object). */
const PLACE = /^(instances\/[^/]+\/[^/]+)\/(.+)$/;

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

    /**
     * Compares the store with the records: places no record names (a delete that removed the record but
     * not all of the files, a backup of an instance Berth no longer knows) are orphans, removed
     * ORPHAN_GRACE_DAYS after they were first found; complete backups whose files are missing are
     * counted. What it found is recorded for the admin (Admin Panel → Instance types).
     */
    async sweepStore(): Promise<StoreSweep> {
      const at = now();
      // The store first: a backup recorded after this listing is never taken for an orphan.
      const files = new Map<string, Set<string>>();
      for (const key of await vault.store.list('instances/')) {
        const [, place = key, name = ''] = PLACE.exec(key) ?? [];
        files.set(place, (files.get(place) ?? new Set()).add(name));
      }
      const records = await findBackupPlaces(db);
      const named = new Set(records.map((r) => backupPrefix(r.instance_id, r.id)));
      const orphans = [...files.keys()].filter((place) => !named.has(place)).sort();
      const lacking = (r: (typeof records)[number], held: Set<string> | undefined) =>
        !held?.has('manifest.json.enc') || r.parts.some((p) => !held.has(`${p.name}.enc`));
      const missing: string[] = [];
      for (const record of records) {
        if (
          record.status !== 'complete' ||
          !lacking(record, files.get(backupPrefix(record.instance_id, record.id)))
        )
          continue;
        // Looked at again: a backup that completed, or was removed, while the store was being listed.
        const place = backupPrefix(record.instance_id, record.id);
        const held = new Set((await vault.store.list(`${place}/`)).map((key) => key.slice(place.length + 1)));
        if ((await backupRecorded(db, record.instance_id, record.id)) && lacking(record, held))
          missing.push(record.id);
      }
      const removed: string[] = [];
      const graceEnd = at.getTime() - ORPHAN_GRACE_DAYS * 86_400_000;
      for (const orphan of await recordOrphans(db, orphans, at)) {
        if (orphan.found_at.getTime() > graceEnd) continue;
        const [, instanceId = '', backupId = ''] = orphan.prefix.split('/');
        if (await backupRecorded(db, instanceId, backupId)) {
          await forgetOrphan(db, orphan.prefix);
          continue;
        }
        await vault.store.removeUnfinished(`${orphan.prefix}/`);
        for (const key of await vault.store.list(`${orphan.prefix}/`)) await vault.store.remove(key);
        // A stray object outside any backup's place is its own place.
        if (files.get(orphan.prefix)?.has('')) await vault.store.remove(orphan.prefix);
        await forgetOrphan(db, orphan.prefix);
        removed.push(orphan.prefix);
      }
      await recordSweep(db, {
        sweptAt: at,
        orphans: orphans.length - removed.length,
        missing: missing.length,
        removed: removed.length,
      });
      return { orphans, missing, removed };
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
