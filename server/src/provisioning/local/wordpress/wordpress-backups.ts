import { ConflictError } from '../../../lib/errors.ts';
import type { BackupInfo, BackupInput } from '../../engine.ts';
import * as backupStore from '../host/backup-store.ts';
import { purgePageCache } from './site-files.ts';
import { siteNames } from './site-names.ts';
import type { SiteState } from './site-state.ts';
import * as backups from './wordpress-archives.ts';
import { notSuspended, type SiteContext } from './wordpress-context.ts';

/** Backups one site may have in flight at once (running or waiting its turn). */
const BACKUPS_IN_FLIGHT = 1;
export const BACKUP_BUSY = 'A backup of this site is already in progress. Try again when it has finished.';
export const backupLimitMessage = (max: number) =>
  `This site already has ${max} backups, the most it can keep. Delete one to make room for a new one.`;

/**
 * A site's backups (backups.ts writes and reads them): one in flight per site, at most `maxBackups`
 * kept, none made or restored while the site is suspended; a restore drops the cached pages.
 */
export function siteBackups(
  ctx: Pick<
    SiteContext,
    'root' | 'withSite' | 'requireState' | 'sandboxOf' | 'databaseOf' | 'mariadb' | 'databaseMb'
  >,
  limits: { maxBackups: number; diskMb: number },
) {
  const { root, withSite, requireState } = ctx;
  const backupsInFlight = new Map<string, number>();

  function backupSite(state: SiteState): backups.BackupSite {
    return {
      root,
      id: state.id,
      sandbox: ctx.sandboxOf(state.id),
      database: ctx.databaseOf(state),
      tenant: siteNames(state.id).tenant,
      tenants: ctx.mariadb().tenants,
      databaseMb: ctx.databaseMb,
      maxArchiveBytes: limits.diskMb * 1024 * 1024,
    };
  }

  return {
    async createBackup(id: string, input: BackupInput): Promise<BackupInfo> {
      const inFlight = backupsInFlight.get(id) ?? 0;
      if (inFlight >= BACKUPS_IN_FLIGHT) throw new ConflictError(BACKUP_BUSY);
      backupsInFlight.set(id, inFlight + 1);
      try {
        return await withSite(id, async () => {
          const state = await requireState(id);
          notSuspended(state, 'creating backups');
          const existing = await backupStore.listBackups(root, id);
          if (existing.length >= limits.maxBackups && !existing.some((b) => b.id === input.backupId))
            throw new ConflictError(backupLimitMessage(limits.maxBackups));
          return backups.createBackup(backupSite(state), input);
        });
      } finally {
        const left = (backupsInFlight.get(id) ?? 1) - 1;
        if (left > 0) backupsInFlight.set(id, left);
        else backupsInFlight.delete(id);
      }
    },

    async listBackups(id: string): Promise<BackupInfo[]> {
      await requireState(id);
      return backupStore.listBackups(root, id);
    },

    restoreBackup(id: string, backupId: string): Promise<void> {
      return withSite(id, async () => {
        const state = await requireState(id);
        notSuspended(state, 'restoring backups');
        await backups.restoreBackup(backupSite(state), backupId);
        await purgePageCache(ctx.sandboxOf(id));
      });
    },

    deleteBackup(id: string, backupId: string): Promise<void> {
      return withSite(id, async () => {
        await requireState(id);
        await backupStore.deleteBackup(root, id, backupId);
      });
    },
  };
}
