import { createRouter } from '../../../lib/create-router.ts';
import * as handlers from './deleted-instance-backups.handlers.ts';
import * as routes from './deleted-instance-backups.routes.ts';
import type { DeletedInstanceBackupsService } from './deleted-instance-backups.service.ts';

/** What the routes of deleted instances' backups ask of their service. */
type DeletedBackupsUses = Pick<
  DeletedInstanceBackupsService,
  'listDeletedBackups' | 'restoreIntoNew' | 'deleteDeletedBackup'
>;

/** The backups kept of deleted instances: listed, restored into a new instance, deleted. */
export function createDeletedInstanceBackupsRouter(backups: DeletedBackupsUses) {
  return createRouter()
    .openapi(routes.listDeletedBackups, handlers.listDeletedBackups(backups))
    .openapi(routes.restoreIntoNew, handlers.restoreIntoNew(backups))
    .openapi(routes.deleteDeletedBackup, handlers.deleteDeletedBackup(backups));
}
