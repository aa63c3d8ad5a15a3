import { createRouter } from '../../../lib/create-router.ts';
import * as handlers from './instance-backups.handlers.ts';
import * as routes from './instance-backups.routes.ts';
import type { InstanceBackupsService } from './instance-backups.service.ts';

/** What the backup and storage routes ask of the backups service. */
type BackupsUses = Pick<
  InstanceBackupsService,
  | 'storage'
  | 'listBackups'
  | 'createBackup'
  | 'restoreBackup'
  | 'deleteBackup'
  | 'downloadLink'
  | 'openDownload'
>;

/** An instance's storage and backups, and the download of one through its signed link. */
export function createInstanceBackupsRouter(backups: BackupsUses) {
  return createRouter()
    .openapi(routes.storage, handlers.storage(backups))
    .openapi(routes.listBackups, handlers.listBackups(backups))
    .openapi(routes.createBackup, handlers.createBackup(backups))
    .openapi(routes.restoreBackup, handlers.restoreBackup(backups))
    .openapi(routes.deleteBackup, handlers.deleteBackup(backups))
    .openapi(routes.backupDownloadLink, handlers.backupDownloadLink(backups))
    .openapi(routes.backupDownload, handlers.backupDownload(backups));
}
