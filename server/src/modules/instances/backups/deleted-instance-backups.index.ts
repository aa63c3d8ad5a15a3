import { createRouter } from '../../../lib/create-router.ts';
import * as deletedRoutes from './deleted-instance-backups.routes.ts';
import type { DeletedInstanceBackupsService } from './deleted-instance-backups.service.ts';

/** What the routes of deleted instances' backups ask of their service. */
type DeletedBackupsHandlers = Pick<
  DeletedInstanceBackupsService,
  'listDeletedBackups' | 'restoreIntoNew' | 'deleteDeletedBackup'
>;

/** The backups kept of deleted instances: listed, restored into a new instance, deleted. */
export function createDeletedInstanceBackupsRouter(instances: DeletedBackupsHandlers) {
  return createRouter()
    .openapi(deletedRoutes.listDeletedBackups, async (c) =>
      c.json({ backups: await instances.listDeletedBackups(c.get('user').id) }, 200),
    )
    .openapi(deletedRoutes.restoreIntoNew, async (c) => {
      const instance = await instances.restoreIntoNew(
        c.get('user').id,
        c.req.valid('param').backupId,
        c.req.valid('json') ?? {},
        c.get('requestId'),
      );
      return c.json({ instance, message: 'Restore into a new instance initiated' }, 202);
    })
    .openapi(deletedRoutes.deleteDeletedBackup, async (c) => {
      await instances.deleteDeletedBackup(c.get('user').id, c.req.valid('param').backupId);
      return c.json({ message: 'Backup deleted' }, 200);
    });
}
