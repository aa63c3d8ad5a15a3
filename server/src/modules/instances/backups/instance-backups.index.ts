import { Readable } from 'node:stream';
import { createRouter } from '../../../lib/create-router.ts';
import * as backupRoutes from './instance-backups.routes.ts';
import type { InstanceBackupsService } from './instance-backups.service.ts';

/** What the backup and storage routes ask of the backups service. */
type BackupsHandlers = Pick<
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
export function createInstanceBackupsRouter(instances: BackupsHandlers) {
  return createRouter()
    .openapi(backupRoutes.storage, async (c) =>
      c.json(await instances.storage(c.get('user').id, c.req.valid('param').id), 200),
    )
    .openapi(backupRoutes.listBackups, async (c) =>
      c.json(await instances.listBackups(c.get('user').id, c.req.valid('param').id), 200),
    )
    .openapi(backupRoutes.createBackup, async (c) => {
      const id = await instances.createBackup(
        c.get('user').id,
        c.req.valid('param').id,
        c.req.valid('json'),
        c.get('requestId'),
      );
      return c.json({ id, backupId: id, 'backup-id': id, message: 'Backup creation started' }, 201);
    })
    .openapi(backupRoutes.restoreBackup, async (c) => {
      const { id, backupId } = c.req.valid('param');
      await instances.restoreBackup(c.get('user').id, id, backupId, c.get('requestId'));
      return c.json({ message: 'Restore initiated' }, 202);
    })
    .openapi(backupRoutes.deleteBackup, async (c) => {
      const { id, backupId } = c.req.valid('param');
      await instances.deleteBackup(c.get('user').id, id, backupId);
      return c.json({ message: 'Backup deleted' }, 200);
    })
    .openapi(backupRoutes.backupDownloadLink, async (c) => {
      const { id, backupId } = c.req.valid('param');
      const { id: userId, sessionId } = c.get('user');
      return c.json(await instances.downloadLink({ userId, sessionId }, id, backupId), 200);
    })
    .openapi(backupRoutes.backupDownload, async (c) => {
      const { fileName, body } = await instances.openDownload(c.req.valid('param').token);
      return new Response(Readable.toWeb(body) as ReadableStream, {
        status: 200,
        headers: {
          'content-type': 'application/x-tar',
          'content-disposition': `attachment; filename="${fileName}"`,
          'cache-control': 'no-store',
        },
      });
    });
}
