import { Readable } from 'node:stream';
import { createRouter } from '../../lib/create-router.ts';
import * as deletedRoutes from './deleted-instance-backups.routes.ts';
import { PENDING_ACTIVATION } from './domain-verification.ts';
import * as backupRoutes from './instance-backups.routes.ts';
import { TYPE_INFO } from './instance-catalog.ts';
import * as domainRoutes from './instance-domains.routes.ts';
import * as routes from './instances.routes.ts';
import { type InstancesService, PREPARING } from './instances.service.ts';

export function createInstancesRouter(instances: InstancesService) {
  return (
    createRouter()
      .openapi(routes.list, async (c) =>
        c.json(await instances.list(c.get('user').id, c.req.valid('query')), 200),
      )
      // Before /{id}, which would otherwise take "capabilities" for an id.
      .openapi(routes.capabilities, async (c) => c.json(await instances.capabilities(), 200))
      .openapi(routes.operatorCapabilities, async (c) =>
        c.json(await instances.capabilitiesForOperator(), 200),
      )
      .openapi(routes.deploy, async (c) => {
        const instance = await instances.deploy(c.get('user').id, c.req.valid('json'));
        return c.json({ instance, message: 'Instance deployment initiated' }, 202);
      })
      .openapi(routes.getOne, async (c) =>
        c.json({ instance: await instances.get(c.get('user').id, c.req.valid('param').id) }, 200),
      )
      .openapi(routes.update, async (c) => {
        const instance = await instances.update(
          c.get('user').id,
          c.req.valid('param').id,
          c.req.valid('json'),
        );
        return c.json({ instance, message: 'Instance updated successfully' }, 200);
      })
      .openapi(routes.remove, async (c) => {
        const instance = await instances.remove(c.get('user').id, c.req.valid('param').id);
        return c.json({ instance, message: 'Instance deletion initiated' }, 202);
      })
      .openapi(routes.access, async (c) => {
        const result = await instances.access(c.get('user').id, c.req.valid('param').id);
        if ('preparing' in result) return c.json({ message: PREPARING }, 202);
        return c.json(result, 200);
      })
      .openapi(routes.changePassword, async (c) => {
        const body = c.req.valid('json');
        const outcome = await instances.changePassword(c.get('user').id, c.req.valid('param').id, body);
        if (outcome === 'pending') return c.json({ message: 'Password change initiated' }, 202);
        return c.json({ message: `${TYPE_INFO[body.type].name} password updated` }, 200);
      })
      .openapi(domainRoutes.addDomain, async (c) => {
        const { id } = c.req.valid('param');
        const instance = await instances.addDomain(c.get('user').id, id, c.req.valid('json').domain);
        return c.json({ instance, message: 'Custom domain added successfully' }, 200);
      })
      .openapi(domainRoutes.verifyDomain, async (c) => {
        const instance = await instances.verifyDomain(c.get('user').id, c.req.valid('param').id);
        const verification = instance.customDomain?.verification;
        const message =
          verification?.status === 'attached'
            ? 'Domain verified and attached'
            : (verification?.message ?? PENDING_ACTIVATION);
        return c.json({ instance, message }, 200);
      })
      .openapi(domainRoutes.removeDomain, async (c) => {
        const instance = await instances.removeDomain(c.get('user').id, c.req.valid('param').id);
        return c.json({ instance, message: 'Custom domain removed successfully' }, 200);
      })
      .openapi(domainRoutes.getSsl, async (c) =>
        c.json(await instances.sslStatus(c.get('user').id, c.req.valid('param').id), 200),
      )
      .openapi(domainRoutes.requestSsl, async (c) => {
        const result = await instances.requestSsl(c.get('user').id, c.req.valid('param').id);
        return c.json({ ...result, message: 'Requested SSL. It may take a moment to activate.' }, 200);
      })
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
      })
  );
}
