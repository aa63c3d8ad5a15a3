import type { DbOrTx } from '../../../db/database.ts';
import { ConflictError, NotFoundError, SubscriptionInactiveError } from '../../../lib/errors.ts';
import type { InstanceType } from '../../../provisioning/instance-types.ts';
import { DEFAULT_PAGE_SIZE } from '../instance-catalog.ts';
import type { instancesContext } from '../instances.context.ts';
import type { InstancesDeps } from '../instances.deps.ts';
import {
  countActiveInstances,
  findDeployedInstances,
  findInstancesPage,
  lockInstanceForUpdate,
  updateInstance,
  updateSuspendedOfUser,
} from '../instances.repository.ts';
import type { Instance, InstanceList, ListQuery, UpdateBody } from '../instances.schemas.ts';
import { enqueueInstanceJob, type OperationBudgets } from '../queue/instance-jobs.ts';

const DELETE_WHEN_INACTIVE = 'Your subscription is inactive. Deleting instances is disabled.';

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

export type LifecycleService = ReturnType<typeof instanceLifecycle>;

/** An instance's life after its deploy: listed, renamed, deleted, suspended with the subscription. */
export function instanceLifecycle(
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
