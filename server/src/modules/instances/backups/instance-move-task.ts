import { REGIONS } from '@berth/openapi/rules';
import type { JobHelpers } from 'graphile-worker';
import type { Db } from '../../../db/database.ts';
import type { InstanceRow } from '../../../db/tables/instances.ts';
import { addJob } from '../../../jobs/job-queue.ts';
import { describeError, newReference, withReference } from '../../../lib/error-reference.ts';
import type { Deployment } from '../../../provisioning/engine.ts';
import { recordRedeployment } from '../deploy/deployment-record.ts';
import { findInstanceById, updateInstance } from '../instances.repository.ts';
import { label } from '../queue/instance-task-context.ts';
import { type BackupTaskContext, customerReason } from './instance-backup-task-context.ts';

/**
 * Moving instances off a drained server (Admin → Server): the driver stops each one, copies its data to
 * another server of its region and starts it there (`live.move`); the instance is then deployed again
 * with its own spec, which answers where it is reached now (a database's host), recorded like any
 * deploy's. Its owner is told before and after. A move that cannot be done leaves the instance where it
 * was, running as before; its owner and the admins are told why.
 */

export const TASK_MOVE = 'instance.move';

const MOVING = 'Moving to another server';

interface MovePayload {
  instanceId: string;
  requestId: string;
}

/** Queues a move for each instance (after whatever its queue holds); answers how many were queued. */
export async function queueMoves(db: Db, ids: readonly string[]): Promise<number> {
  let queued = 0;
  for (const id of ids) {
    const row = await findInstanceById(db, id);
    if (!row || row.status === 'deleting') continue;
    const payload: MovePayload = { instanceId: id, requestId: newReference() };
    await addJob(db, {
      task: TASK_MOVE,
      payload: { ...payload },
      jobKey: `move:${id}`,
      queueName: `instance:${id}`,
      maxAttempts: 3,
    });
    queued += 1;
  }
  return queued;
}

const regionName = (row: InstanceRow) => REGIONS.find((region) => region.id === row.region)?.label;

export function moveTask(ctx: BackupTaskContext) {
  const { db, driver, cipher, notifications, publish, specOf } = ctx;

  /** The row's status and message, its owner told (and the stream) in the same transaction. */
  async function settle(
    row: InstanceRow,
    patch: { status: InstanceRow['status']; status_message: string | null },
    told?: { title: string; message: string },
  ): Promise<void> {
    await db.transaction().execute(async (trx) => {
      const updated = await updateInstance(trx, row.id, patch, { statusNot: 'deleting' });
      if (!updated) return;
      await publish(trx, updated);
      if (told) await notifications.notify(row.user_id, { type: 'instance', ...told }, trx);
    });
  }

  return async (raw: unknown, helpers: JobHelpers): Promise<void> => {
    const { instanceId, requestId } = (raw ?? {}) as Partial<MovePayload>;
    const row = instanceId ? await findInstanceById(db, instanceId) : undefined;
    // Not deployed yet: its deploy places it on a server in service anyway.
    if (!row || row.status === 'deleting' || row.deployed_at === null || !driver.live) return;
    const resting = row.suspended ? 'suspended' : 'running';
    if (helpers.job.attempts === 1) {
      await settle(
        row,
        { status: 'deploying', status_message: MOVING },
        {
          title: MOVING,
          message: `Your ${label(row)} is being moved to another server${regionName(row) ? ` of ${regionName(row)}` : ''}. It is unavailable for a minute or two and keeps all its data.`,
        },
      );
    }
    let deployment: Deployment;
    try {
      await driver.live.move(row.id);
      const request = await specOf(row);
      const engine = driver.engine(request.type);
      deployment = await engine.deploy(request.spec);
      if (row.suspended) await engine.suspend(row.id);
    } catch (error) {
      if (helpers.job.attempts < helpers.job.max_attempts) throw error;
      const reference = requestId ?? newReference();
      helpers.logger.error(`move of ${row.id} failed [ref ${reference}]: ${describeError(error)}`);
      const ours = customerReason(error);
      const why = withReference(
        `It could not be moved${ours ? ` (${ours})` : ''}, and runs where it was`,
        reference,
      );
      await settle(
        row,
        { status: resting, status_message: null },
        { title: 'Move failed', message: `Your ${label(row)}: ${why}` },
      );
      await notifications.notifyAdmins({
        type: 'instance',
        title: 'An instance could not be moved',
        message: `The ${label(row)} of user ${row.user_id} stays on its drained server: ${ours ?? (error instanceof Error ? error.message : String(error))} (ref ${reference}). Put the server back in service, or free room on another one and drain it again (Admin Panel → Server).`,
      });
      return;
    }
    // A database's host is the new server's address: recorded, and the customer told.
    await recordRedeployment(db, { cipher, notifications }, row, deployment);
    await settle(
      row,
      { status: resting, status_message: null },
      { title: 'Moved', message: `Your ${label(row)} runs on another server now, with all its data.` },
    );
  };
}
