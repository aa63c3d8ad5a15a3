import { deletedInstanceBackups } from './backups/deleted-instance-backups.service.ts';
import { createInstanceBackupsService } from './backups/instance-backups.service.ts';
import { createInstanceCredentialsService } from './credentials/instance-credentials.service.ts';
import { type DeployInstance, deployInstance } from './deploy/instance-deploy.ts';
import { createInstanceDomainsService } from './domains/instance-domains.service.ts';
import { instanceCapabilities } from './instance-capabilities.ts';
import { instancesContext } from './instances.context.ts';
import type { InstancesDeps } from './instances.deps.ts';
import { instanceLifecycle } from './lifecycle/lifecycle.service.ts';
import { DEFAULT_BUDGETS } from './queue/instance-jobs.ts';

export type InstancesService = ReturnType<typeof createInstancesService>;

/**
 * Customers' instances, gathered from the concerns beside this file: their life (lifecycle/: list,
 * update, delete, suspension as the subscription says), capabilities (instance-capabilities.ts),
 * deploy (deploy/), custom domains and SSL (domains/), backups and storage (backups/) and
 * credentials (credentials/). Each asks the engine of the instance's type (driver.engine) for
 * what it needs; every change a job carries out is recorded first and its job added in the same
 * transaction (queue/, jobs/).
 */
export function createInstancesService(deps: InstancesDeps) {
  const ctx = instancesContext(deps);
  const budgets = deps.budgets ?? DEFAULT_BUDGETS;
  const deploy: DeployInstance = (userId, body, restoring) =>
    deployInstance({ deps, ctx, budgets }, userId, body, restoring);
  return {
    ...instanceLifecycle(deps, ctx, budgets),
    ...instanceCapabilities(deps),
    deploy,
    ...deletedInstanceBackups(deps, ctx, deploy),
    ...createInstanceDomainsService(deps, ctx),
    ...createInstanceBackupsService(ctx, deps.backups),
    ...createInstanceCredentialsService(
      { db: deps.db, cipher: deps.cipher, budgets, passwordWaitMs: deps.passwordWaitMs ?? 10_000 },
      ctx,
    ),
  };
}
