import { randomBytes } from 'node:crypto';
import { ConflictError, NotFoundError } from '../../lib/errors.ts';
import type { BackupInfo } from '../../provisioning/engine.ts';
import { DRIVER_FAILED, type InstancesContext } from './instances.context.ts';
import type { Backup, BackupBody, SiteStorage } from './instances.schemas.ts';

const BACKUP_WHEN_INACTIVE = 'Your subscription is inactive. Creating backups is disabled.';
const RESTORE_WHEN_INACTIVE = 'Restoring backups is disabled.';
const DELETE_BACKUP_WHEN_INACTIVE = 'Deleting backups is disabled.';
const BACKUPS_SITES_ONLY = 'Backups are only available for WordPress instances';
const STORAGE_SITES_ONLY = 'Storage use is shown for WordPress instances';
const BACKUP_ID = /^[a-z0-9-]{1,64}$/;

function backupId(id: string): string {
  if (!BACKUP_ID.test(id)) throw new NotFoundError('Backup not found');
  return id;
}

const toBackup = (b: BackupInfo): Backup => ({
  id: b.id,
  name: b.name,
  note: b.note,
  createdAt: b.createdAt,
  size: b.size,
});

/**
 * Backups and storage use, for the instance types whose engine has them: each call runs synchronously
 * through the engine (a fresh site's backup takes a second or two, so the answer names a backup that
 * exists).
 */
export function createInstanceBackupsService(ctx: InstancesContext) {
  const { ownDeployed, viaDriver, refuseWhenInactive } = ctx;
  return {
    /** How much of its storage an instance uses (its disk: a site's uploads, files, sessions, logs). */
    async storage(userId: string, id: string): Promise<SiteStorage> {
      const { row, capability: storage } = await ownDeployed(userId, id, 'storage', STORAGE_SITES_ONLY);
      const use = await storage.usage(row.id);
      if (!use) throw new ConflictError('No size is kept for this instance, so its use is not measured');
      return { usedBytes: use.usedBytes, limitBytes: use.limitBytes };
    },

    async listBackups(userId: string, id: string): Promise<Backup[]> {
      const { row, capability: backups } = await ownDeployed(userId, id, 'backups', BACKUPS_SITES_ONLY);
      return (await viaDriver(DRIVER_FAILED.listBackups, () => backups.list(row.id))).map(toBackup);
    },

    /**
     * Creates a backup (database dump + wp-content) synchronously: a fresh site takes a second or two,
     * and the answer then names a backup that exists. Answers its id.
     */
    async createBackup(userId: string, id: string, body: BackupBody): Promise<string> {
      const { row, capability: backups } = await ownDeployed(userId, id, 'backups', BACKUPS_SITES_ONLY);
      await refuseWhenInactive(userId, BACKUP_WHEN_INACTIVE);
      const backup = await viaDriver(DRIVER_FAILED.createBackup, () =>
        backups.create(row.id, {
          backupId: `b-${randomBytes(6).toString('hex')}`,
          name: body.name,
          note: body.note ?? '',
        }),
      );
      return backup.id;
    },

    /** Exact restore (database recreated, wp-content replaced, verified), synchronously. */
    async restoreBackup(userId: string, id: string, backup: string): Promise<void> {
      const { row, capability: backups } = await ownDeployed(userId, id, 'backups', BACKUPS_SITES_ONLY);
      await refuseWhenInactive(userId, RESTORE_WHEN_INACTIVE);
      const wanted = backupId(backup);
      await viaDriver(DRIVER_FAILED.restoreBackup, () => backups.restore(row.id, wanted));
    },

    async deleteBackup(userId: string, id: string, backup: string): Promise<void> {
      const { row, capability: backups } = await ownDeployed(userId, id, 'backups', BACKUPS_SITES_ONLY);
      await refuseWhenInactive(userId, DELETE_BACKUP_WHEN_INACTIVE);
      const wanted = backupId(backup);
      await viaDriver(DRIVER_FAILED.deleteBackup, async () => {
        if (!(await backups.list(row.id)).some((b) => b.id === wanted)) {
          throw new NotFoundError('Backup not found');
        }
        await backups.delete(row.id, wanted);
      });
    },
  };
}
