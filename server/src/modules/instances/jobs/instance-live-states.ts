import type { Db } from '../../../db/database.ts';
import type { InstanceRow, InstanceRowUpdate } from '../../../db/tables/instances.ts';
import { addJob } from '../../../jobs/job-queue.ts';
import { type LogLine, newReference } from '../../../lib/error-reference.ts';
import type { InstanceStatus, ProvisioningDriver } from '../../../provisioning/driver.ts';
import type { NotificationsService } from '../../notifications/notifications.service.ts';
import { findLatestComplete } from '../backups/instance-backups.repository.ts';
import { type BackupJobPayload, TASK_RECOVER } from '../backups/instance-backups.service.ts';
import { typeName } from '../instance-catalog.ts';
import { findInstanceById, updateInstance } from '../instances.repository.ts';
import { instanceHasJobs } from '../queue/instance-jobs.ts';
import { NODE_DOWN, SERVER_LOST } from '../server-words.ts';

/**
 * Carries what a driver sees happen to running instances between operations (the swarm driver: a node
 * down, a task failing or killed by its memory limit, then back) to the instance rows and, through the
 * live stream, to the customer's open pages. The jobs own every change they make themselves: while an
 * operation of the instance is queued or running, or the row is not a deployed, running (or failed)
 * instance, a live state is not applied. Drivers without live states (the local driver) have nothing
 * to carry. Started and stopped with the other background work (background.ts).
 */

/** "28 Nov, 14:02 UTC": when the backup an instance comes back from was made. */
function formatBackupTime(at: Date): string {
  return `${at.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' })}, ${at.toISOString().slice(11, 16)} UTC`;
}

/** The row's status and message for a live state; undefined when the row should not change. */
function patchOf(status: InstanceStatus): InstanceRowUpdate | undefined {
  switch (status.state) {
    case 'running':
      return { status: 'running', status_message: null };
    case 'starting':
      return { status: 'running', status_message: status.message ?? 'Starting' };
    case 'node-down':
      return { status: 'error', status_message: NODE_DOWN };
    case 'unreachable':
      // It serves its customers; only the platform cannot manage it for now.
      return { status: 'running', status_message: status.message ?? null };
    case 'error':
      return { status: 'error', status_message: status.message ?? 'It stopped running' };
    default:
      // stopped: a suspension, which its own job records
      return undefined;
  }
}

export function createInstanceLiveStates(deps: {
  db: Db;
  driver: Pick<ProvisioningDriver, 'live'>;
  notifications: Pick<NotificationsService, 'notify' | 'notifyAdmins' | 'publishInstanceEvent'>;
}) {
  const { db, notifications } = deps;
  let unsubscribe: (() => void) | undefined;

  /**
   * Its server is lost (the driver says it will not come back there): with a backup, a recovery job lets
   * go of the lost server, deploys it again elsewhere (same id, name, domain and passwords) and restores
   * the latest backup; without one, the customer and the admins are told what is left to do.
   */
  async function lost(row: InstanceRow): Promise<InstanceRow | undefined> {
    const latest = await findLatestComplete(db, row.id);
    const name = `${typeName(row.type)} instance "${row.name}"`;
    return db.transaction().execute(async (trx) => {
      const at = latest?.completed_at ?? latest?.created_at;
      const message = at
        ? `${SERVER_LOST}: it is being restored on another server from the backup of ${formatBackupTime(at)}`
        : `${SERVER_LOST}, and it has no backup to come back from`;
      const updated = await updateInstance(
        trx,
        row.id,
        { status: latest ? 'deploying' : 'error', status_message: message },
        { statusIn: ['running', 'error'] },
      );
      if (!updated) return row;
      if (latest) {
        const payload: BackupJobPayload & { relocate: true } = {
          backupId: latest.id,
          instanceId: row.id,
          requestId: newReference(),
          relocate: true,
        };
        await addJob(trx, {
          task: TASK_RECOVER,
          payload: { ...payload },
          jobKey: `recover:${row.id}`,
          queueName: `instance:${row.id}`,
          maxAttempts: 5,
        });
      } else {
        await notifications.notifyAdmins(
          {
            type: 'instance',
            title: 'An instance cannot come back',
            message: `The ${name} of user ${row.user_id} was on a server that is lost, and it has no backup. Delete it, or deploy it again empty (Admin Panel → Server).`,
          },
          trx,
        );
      }
      await notifications.notify(
        row.user_id,
        { type: 'instance', title: 'Server lost', message: `Your ${name}: ${message}.` },
        trx,
      );
      await notifications.publishInstanceEvent(
        updated.user_id,
        { id: updated.id, status: updated.status, statusMessage: updated.status_message },
        trx,
      );
      return updated;
    });
  }

  /** Applies one live state to its row (and says so on the stream); answers the row as it is now. */
  async function apply(status: InstanceStatus): Promise<InstanceRow | undefined> {
    const row = await findInstanceById(db, status.id);
    if (!row || row.deployed_at === null || row.suspended) return row;
    if (!['running', 'error'].includes(row.status) || (await instanceHasJobs(db, row.id))) return row;
    if (status.state === 'lost') return lost(row);
    const patch = patchOf(status);
    const changes =
      patch !== undefined &&
      (patch.status !== row.status || (patch.status_message ?? null) !== row.status_message);
    if (!changes) {
      // A notice with the state unchanged: a process of it was killed by its memory limit.
      if (status.message && status.state === 'running') {
        await notifications.notify(row.user_id, {
          type: 'instance',
          title: 'Instance restarted',
          message: `Your ${typeName(row.type)} instance "${row.name}": ${status.message}`,
        });
      }
      return row;
    }
    return db.transaction().execute(async (trx) => {
      const updated = await updateInstance(trx, row.id, patch, { statusIn: ['running', 'error'] });
      if (!updated) return row;
      await notifications.publishInstanceEvent(
        updated.user_id,
        { id: updated.id, status: updated.status, statusMessage: updated.status_message },
        trx,
      );
      return updated;
    });
  }

  return {
    apply,
    start(log: LogLine) {
      unsubscribe ??= deps.driver.live?.watch((status) => {
        apply(status).catch((error: unknown) =>
          log(
            `live state of ${status.id} not recorded: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
      });
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = undefined;
    },
  };
}
