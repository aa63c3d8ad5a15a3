import { createRouter } from '../../lib/create-router.ts';
import { createDeletedInstanceBackupsRouter } from './backups/deleted-instance-backups.index.ts';
import { createInstanceBackupsRouter } from './backups/instance-backups.index.ts';
import { createInstanceDomainsRouter } from './domains/instance-domains.index.ts';
import { typeName } from './instance-catalog.ts';
import * as routes from './instances.routes.ts';
import { type InstancesService, PREPARING } from './instances.service.ts';

/**
 * Customers' instances over /api: their life here (list, deploy, update, delete, credentials and
 * password) in this router, and their domains, backups and deleted instances' backups in the routers
 * beside it, each given only the part of the service it calls.
 */
export function createInstancesRouter(instances: InstancesService) {
  return createRouter()
    .route('/', createLifecycleRouter(instances))
    .route('/', createInstanceDomainsRouter(instances))
    .route('/', createInstanceBackupsRouter(instances))
    .route('/', createDeletedInstanceBackupsRouter(instances));
}

type LifecycleHandlers = Pick<
  InstancesService,
  | 'list'
  | 'capabilities'
  | 'capabilitiesForOperator'
  | 'deploy'
  | 'get'
  | 'update'
  | 'remove'
  | 'access'
  | 'changePassword'
>;

function createLifecycleRouter(instances: LifecycleHandlers) {
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
        return c.json({ message: `${typeName(body.type)} password updated` }, 200);
      })
  );
}
