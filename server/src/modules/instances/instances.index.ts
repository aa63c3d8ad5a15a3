import { createRouter } from '../../lib/create-router.ts';
import { createDeletedInstanceBackupsRouter } from './backups/deleted-instance-backups.index.ts';
import { createInstanceBackupsRouter } from './backups/instance-backups.index.ts';
import { createInstanceDomainsRouter } from './domains/instance-domains.index.ts';
import type { InstancesService } from './instances.service.ts';
import { createLifecycleRouter } from './lifecycle/lifecycle.index.ts';

/**
 * Customers' instances over /api: their life (lifecycle/), their domains (domains/), backups and
 * deleted instances' backups (backups/), each router given only the part of the service it calls.
 */
export function createInstancesRouter(instances: InstancesService) {
  return createRouter()
    .route('/', createLifecycleRouter(instances))
    .route('/', createInstanceDomainsRouter(instances))
    .route('/', createInstanceBackupsRouter(instances))
    .route('/', createDeletedInstanceBackupsRouter(instances));
}
