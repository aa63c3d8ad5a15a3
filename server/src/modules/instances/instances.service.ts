import type { DbOrTx } from '../../db/database.ts';
import { ConflictError, NotFoundError, SubscriptionInactiveError } from '../../lib/errors.ts';
import type { InstanceType } from '../../provisioning/instance-types.ts';
import { deletedInstanceBackups } from './backups/deleted-instance-backups.service.ts';
import { createInstanceBackupsService } from './backups/instance-backups.service.ts';
import { createInstanceCredentialsService } from './credentials/instance-credentials.service.ts';
import { type DeployInstance, deployInstance } from './deploy/instance-deploy.ts';
import { createInstanceDomainsService } from './domains/instance-domains.service.ts';
import { instanceCapabilities } from './instance-capabilities.ts';
import { DEFAULT_PAGE_SIZE } from './instance-catalog.ts';
import { DEFAULT_BUDGETS, enqueueInstanceJob, type OperationBudgets } from './instance-jobs.ts';
import { instancesContext } from './instances.context.ts';
import type { InstancesDeps } from './instances.deps.ts';
import {
  countActiveInstances,
  findDeployedInstances,
  findInstancesPage,
  lockInstanceForUpdate,
  updateInstance,
  updateSuspendedOfUser,
} from './instances.repository.ts';
import type { Instance, InstanceList, ListQuery, UpdateBody } from './instances.schemas.ts';

const DELETE_WHEN_INACTIVE = 'Your subscription is inactive. Deleting instances is disabled.';
export const PREPARING = 'Preparing credentials... This may take a moment.';

export type InstancesService = ReturnType<typeof createInstancesService>;

/** An instance as the platform's background work sees it (usage sampling, the admin's capacity). */
export interface DeployedInstance {
  id: string;
  userId: string;
  type: InstanceType;
  name: string;
  /** As sold: '4GB', '2'. */
  memory: string;
  cpu: string;
  suspended: boolean;
}

/**
 * Customers' instances: their life here (list, update, delete, suspension as the subscription says),
 * and, from the parts beside this one, capabilities (instance-capabilities.ts), deploy
 * (instance-deploy.ts), custom domains and SSL
 * (instance-domains.service.ts), backups and storage (instance-backups.service.ts) and credentials
 * (instance-credentials.service.ts). Each asks the engine of the instance's type (driver.engine) for
 * what it needs; every change a job carries out is recorded first and its job added in the same
 * transaction (instance-jobs.ts, instances.tasks.ts).
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

/** An instance's life after its deploy: listed, renamed, deleted, suspended with the subscription. */
function instanceLifecycle(
  deps: InstancesDeps,
  ctx: ReturnType<typeof instancesContext>,
  budgets: OperationBudgets,
) {
  const { db } = deps;
  const { publish, own, changeUnlessDeleting, standing, toInstance } = ctx;

  return {
    /** Instances that count against the plan (all but those being deleted). */
    count: (userId: string, trx: DbOrTx = db) => countActiveInstances(trx, userId),

    /** Every deployed instance (not being deleted), as the usage sampler and the admin's view need it. */
    async listDeployed(): Promise<DeployedInstance[]> {
      return (await findDeployedInstances(db)).map((row) => ({
        id: row.id,
        userId: row.user_id,
        type: row.type,
        name: row.name,
        memory: row.memory,
        cpu: row.cpu,
        suspended: row.suspended,
      }));
    },

    async list(userId: string, query: ListQuery): Promise<InstanceList> {
      const page = query.page ?? 1;
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      const { rows, total } = await findInstancesPage(db, userId, {
        search: query.search?.trim() ?? '',
        limit,
        offset: (page - 1) * limit,
      });
      return {
        instances: rows.map(toInstance),
        total,
        pages: Math.max(1, Math.ceil(total / limit)),
        page,
        limit,
      };
    },

    async get(userId: string, id: string): Promise<Instance> {
      return toInstance(await own(userId, id));
    },

    async update(userId: string, id: string, body: UpdateBody): Promise<Instance> {
      const current = await own(userId, id);
      if (current.status === 'deleting') throw new ConflictError('The instance is being deleted');
      return toInstance(
        await changeUnlessDeleting(current.id, {
          name: body.name,
          description: body.description ?? current.description,
        }),
      );
    },

    /** Marks the instance deleting and adds its delete job; asking again while it is deleting is fine. */
    async remove(userId: string, id: string): Promise<Instance> {
      await own(userId, id);
      if ((await standing(userId)) === 'inactive') throw new SubscriptionInactiveError(DELETE_WHEN_INACTIVE);
      return db.transaction().execute(async (trx) => {
        const locked = await lockInstanceForUpdate(trx, userId, id);
        if (!locked) throw new NotFoundError('Instance not found');
        const row =
          locked.status === 'deleting'
            ? locked
            : await updateInstance(trx, id, { status: 'deleting', status_message: null });
        if (!row) throw new NotFoundError('Instance not found');
        await enqueueInstanceJob(trx, 'delete', id, budgets);
        await publish(trx, row);
        return toInstance(row);
      });
    },

    /**
     * Sets `suspended` on every instance of the user and adds the jobs that lock (or unlock) their
     * tenants, in the caller's transaction. Answers how many instances changed.
     */
    async setSuspended(userId: string, suspended: boolean, trx: DbOrTx = db): Promise<number> {
      const write = async (tx: DbOrTx) => {
        const rows = await updateSuspendedOfUser(tx, userId, suspended);
        for (const row of rows) {
          await enqueueInstanceJob(tx, 'suspension', row.id, budgets);
          await publish(tx, row);
        }
        return rows.length;
      };
      return trx.isTransaction ? write(trx) : db.transaction().execute(write);
    },
  };
}
