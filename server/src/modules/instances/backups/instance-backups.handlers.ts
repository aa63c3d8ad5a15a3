import { Readable } from 'node:stream';
import type { AppRouteHandler } from '../../../lib/create-router.ts';
import type * as routes from './instance-backups.routes.ts';
import type { InstanceBackupsService } from './instance-backups.service.ts';

// One handler a route of instance-backups.routes.ts, each given only the part of the backups service
// it calls; instance-backups.index.ts wires them.

type Uses<K extends keyof InstanceBackupsService> = Pick<InstanceBackupsService, K>;

export const storage =
  (backups: Uses<'storage'>): AppRouteHandler<typeof routes.storage> =>
  async (c) =>
    c.json(await backups.storage(c.get('user').id, c.req.valid('param').id), 200);

export const listBackups =
  (backups: Uses<'listBackups'>): AppRouteHandler<typeof routes.listBackups> =>
  async (c) =>
    c.json(await backups.listBackups(c.get('user').id, c.req.valid('param').id), 200);

export const createBackup =
  (backups: Uses<'createBackup'>): AppRouteHandler<typeof routes.createBackup> =>
  async (c) => {
    const id = await backups.createBackup(
      c.get('user').id,
      c.req.valid('param').id,
      c.req.valid('json'),
      c.get('requestId'),
    );
    return c.json({ id, backupId: id, 'backup-id': id, message: 'Backup creation started' }, 201);
  };

export const restoreBackup =
  (backups: Uses<'restoreBackup'>): AppRouteHandler<typeof routes.restoreBackup> =>
  async (c) => {
    const { id, backupId } = c.req.valid('param');
    await backups.restoreBackup(c.get('user').id, id, backupId, c.get('requestId'));
    return c.json({ message: 'Restore initiated' }, 202);
  };

export const deleteBackup =
  (backups: Uses<'deleteBackup'>): AppRouteHandler<typeof routes.deleteBackup> =>
  async (c) => {
    const { id, backupId } = c.req.valid('param');
    await backups.deleteBackup(c.get('user').id, id, backupId);
    return c.json({ message: 'Backup deleted' }, 200);
  };

export const backupDownloadLink =
  (backups: Uses<'downloadLink'>): AppRouteHandler<typeof routes.backupDownloadLink> =>
  async (c) => {
    const { id, backupId } = c.req.valid('param');
    const { id: userId, sessionId } = c.get('user');
    return c.json(await backups.downloadLink({ userId, sessionId }, id, backupId), 200);
  };

/** The archive itself, streamed as it is read from the store: anyone holding the signed link. */
export const backupDownload =
  (backups: Uses<'openDownload'>): AppRouteHandler<typeof routes.backupDownload> =>
  async (c) => {
    const { fileName, body } = await backups.openDownload(c.req.valid('param').token);
    return new Response(Readable.toWeb(body) as ReadableStream, {
      status: 200,
      headers: {
        'content-type': 'application/x-tar',
        'content-disposition': `attachment; filename="${fileName}"`,
        'cache-control': 'no-store',
      },
    });
  };
