import type { AppRouteHandler } from '../../../lib/create-router.ts';
import type * as routes from './deleted-instance-backups.routes.ts';
import type { DeletedInstanceBackupsService } from './deleted-instance-backups.service.ts';

// One handler a route of deleted-instance-backups.routes.ts, each given only the part of the service
// it calls; deleted-instance-backups.index.ts wires them.

type Uses<K extends keyof DeletedInstanceBackupsService> = Pick<DeletedInstanceBackupsService, K>;

export const listDeletedBackups =
  (backups: Uses<'listDeletedBackups'>): AppRouteHandler<typeof routes.listDeletedBackups> =>
  async (c) =>
    c.json({ backups: await backups.listDeletedBackups(c.get('user').id) }, 200);

export const restoreIntoNew =
  (backups: Uses<'restoreIntoNew'>): AppRouteHandler<typeof routes.restoreIntoNew> =>
  async (c) => {
    const instance = await backups.restoreIntoNew(
      c.get('user').id,
      c.req.valid('param').backupId,
      c.req.valid('json') ?? {},
      c.get('requestId'),
    );
    return c.json({ instance, message: 'Restore into a new instance initiated' }, 202);
  };

export const deleteDeletedBackup =
  (backups: Uses<'deleteDeletedBackup'>): AppRouteHandler<typeof routes.deleteDeletedBackup> =>
  async (c) => {
    await backups.deleteDeletedBackup(c.get('user').id, c.req.valid('param').backupId);
    return c.json({ message: 'Backup deleted' }, 200);
  };
