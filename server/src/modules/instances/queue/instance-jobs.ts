import type { Db, DbOrTx } from '../../../db/database.ts';
import { addJob, queueHasJobs } from '../../../jobs/job-queue.ts';
import { findInstancesToReconcile } from '../instances.repository.ts';

/**
 * The jobs that bring an instance's tenant in line with its row. Each is added in the transaction that
 * changes the row, runs in the instance's own queue (so the jobs of one instance run one at a time, in
 * order), is keyed per instance and operation (adding it again replaces a waiting one), reads the row
 * when it runs (so running it twice does no harm), and has a deadline: past it the instance ends in
 * `error` with a message instead of waiting forever.
 */
const INSTANCE_OPERATIONS = ['deploy', 'delete', 'suspension', 'password'] as const;
export type InstanceOperation = (typeof INSTANCE_OPERATIONS)[number];

export const TASK_OF: Record<InstanceOperation, string> = {
  deploy: 'instance.deploy',
  delete: 'instance.delete',
  suspension: 'instance.suspension',
  password: 'instance.password',
};

/** How long each operation may take from the moment it is asked for, retries included. */
export type OperationBudgets = Record<InstanceOperation, number>;

export const DEFAULT_BUDGETS: OperationBudgets = {
  deploy: 180_000,
  delete: 120_000,
  suspension: 120_000,
  password: 60_000,
};

export interface InstanceJobPayload {
  instanceId: string;
  /** ISO time after which the job gives up (wall clock, not the app's injectable business clock). */
  deadline: string;
  /**
   * ISO time the operation was asked for: time from then on spent waiting for the provisioning driver to
   * start is added to the deadline (driver-startup.ts). Absent in jobs added before it existed.
   */
  askedAt?: string;
}

/** Whether a job of the instance is waiting or running (its queue is `instance:<id>`). */
export function instanceHasJobs(db: DbOrTx, instanceId: string): Promise<boolean> {
  return queueHasJobs(db, `instance:${instanceId}`);
}

export async function enqueueInstanceJob(
  db: DbOrTx,
  operation: InstanceOperation,
  instanceId: string,
  budgets: OperationBudgets = DEFAULT_BUDGETS,
): Promise<void> {
  const askedAt = Date.now();
  const payload: InstanceJobPayload = {
    instanceId,
    deadline: new Date(askedAt + budgets[operation]).toISOString(),
    askedAt: new Date(askedAt).toISOString(),
  };
  await addJob(db, {
    task: TASK_OF[operation],
    payload: { ...payload },
    jobKey: `instance:${instanceId}:${operation}`,
    queueName: `instance:${instanceId}`,
  });
}

/**
 * At start-up: every instance whose tenant should exist is deployed again (idempotent, with its stored
 * password; the deploy job also applies its suspension), and every one being deleted is deleted. Fresh
 * deadlines, so time spent while no server ran does not count. Answers how many jobs it added.
 */
export async function reconcileInstances(
  db: Db,
  budgets: OperationBudgets = DEFAULT_BUDGETS,
): Promise<{ deploy: number; delete: number }> {
  const rows = await findInstancesToReconcile(db);
  const counts = { deploy: 0, delete: 0 };
  for (let i = 0; i < rows.length; i += 100) {
    await db.transaction().execute(async (trx) => {
      for (const row of rows.slice(i, i + 100)) {
        const operation = row.status === 'deleting' ? 'delete' : 'deploy';
        await enqueueInstanceJob(trx, operation, row.id, budgets);
        counts[operation] += 1;
      }
    });
  }
  return counts;
}
