import type { JobHelpers, TaskList } from 'graphile-worker';
import type { DeletedInstance, InstanceRow } from '../../../db/tables/instances.ts';
import { ConflictError } from '../../../lib/errors.ts';
import { ProvisioningUnavailableError } from '../../../provisioning/driver.ts';
import { keepBackupsOfDeleted } from '../backups/instance-backups.repository.ts';
import { deployStep } from '../deploy/deploy-task.ts';
import { typeName } from '../instance-catalog.ts';
import { openPendingPassword, openSecret, sealKeptKey, sealSecret } from '../instance-secrets.ts';
import {
  deleteInstanceRow,
  findCredentials,
  findInstanceById,
  updateCredentials,
  updateInstance,
} from '../instances.repository.ts';
import { kindOf } from '../kinds/kinds.ts';
import { NOTHING_STARTING } from '../queue/driver-startup.ts';
import { afterDriverStart, attempt, isFinal, parsePayload } from '../queue/instance-job-attempts.ts';
import { type InstanceOperation, TASK_OF } from '../queue/instance-jobs.ts';
import {
  FAILED,
  type InstanceTaskDeps,
  instanceTaskContext,
  type Step,
} from '../queue/instance-task-context.ts';

/**
 * The graphile-worker tasks of the instance engine (see queue/instance-jobs.ts). Each reads the instance when
 * it runs and does what the row asks for; a missing row (deleted meanwhile) ends it quietly. Status
 * changes, notifications and the live-stream signal are written in one transaction.
 */
export function createInstanceTasks(deps: InstanceTaskDeps): TaskList {
  const { db, driver, cipher, notifications, startup = NOTHING_STARTING } = deps;
  const context = instanceTaskContext(deps);
  const { publish, giveUp, failureMessage } = context;

  /** What the backups of a deleted instance keep of it (its own key sealed, n8n's; none when unreadable). */
  async function keptOfDeleted(row: InstanceRow): Promise<DeletedInstance> {
    const stored = kindOf(row.type).ownKey ? await findCredentials(db, row.id) : undefined;
    let key: string | undefined;
    try {
      key = stored && openSecret(cipher, row.id, stored.secret).n8nKey;
    } catch {
      key = undefined;
    }
    return {
      name: row.name,
      region: row.region,
      memory: row.memory,
      cpu: row.cpu,
      settings: row.settings,
      sealedKey: key ? sealKeptKey(cipher, row.id, key) : null,
      deletedAt: new Date().toISOString(),
    };
  }

  /**
   * One task: loads the row (none: nothing to do), runs the step, and turns an error the step did not
   * handle (the database, a secret that no longer decrypts) into a retry, or, once retrying cannot help
   * any more, into the operation's failure: never an instance waiting forever.
   */
  const task =
    (operation: InstanceOperation, step: Step) =>
    async (raw: unknown, helpers: JobHelpers): Promise<void> => {
      const payload = await afterDriverStart(startup, parsePayload(raw), helpers);
      const row = await findInstanceById(db, payload.instanceId);
      if (!row) return;
      try {
        await step(row, payload, helpers);
      } catch (error) {
        if (!isFinal(error, payload, helpers)) throw error;
        await giveUp(operation, row, failureMessage(FAILED[operation], error, { operation, row, helpers }));
      }
    };

  const tasks: Record<InstanceOperation, Step> = {
    deploy: deployStep(deps, context),

    /** Drops the tenant, then the row (its credentials go with it). */
    async delete(row, payload, helpers) {
      if (row.status !== 'deleting') return;
      const outcome = await attempt(payload, helpers, async () => {
        try {
          await driver.engine(row.type).delete(row.id);
        } catch (error) {
          // A type that cannot be provisioned here never got a tenant unless a deploy once succeeded.
          if (!(error instanceof ProvisioningUnavailableError && row.deployed_at === null)) throw error;
        }
      });
      if (!outcome.ok) {
        const message = failureMessage(FAILED.delete, outcome.error, { operation: 'delete', row, helpers });
        await giveUp('delete', row, message);
        return outcome.lingering;
      }
      const kept = await keptOfDeleted(row);
      await db.transaction().execute(async (trx) => {
        const deleted = await deleteInstanceRow(trx, row.id);
        if (!deleted) return;
        // Its backups stay until their plan's days have passed: restorable into a new instance.
        await keepBackupsOfDeleted(trx, row.id, kept);
        await notifications.publishInstanceEvent(
          row.user_id,
          { id: row.id, status: 'deleted', statusMessage: null },
          trx,
        );
      });
    },

    /** Locks the tenant's logins out or lets them in again, as `suspended` says. */
    async suspension(row, payload, helpers) {
      // Before the first successful deploy the deploy job applies suspension itself.
      if (row.status === 'deleting' || row.deployed_at === null) return;
      const outcome = await attempt(payload, helpers, async () => {
        const engine = driver.engine(row.type);
        if (row.suspended) await engine.suspend(row.id);
        else await engine.resume(row.id);
      });
      if (!outcome.ok) {
        const failed = `${row.suspended ? 'Suspending' : 'Resuming'} failed`;
        const message = failureMessage(failed, outcome.error, { operation: 'suspension', row, helpers });
        await giveUp('suspension', row, message);
        return outcome.lingering;
      }
      await db.transaction().execute(async (trx) => {
        const updated = await updateInstance(
          trx,
          row.id,
          { status: row.suspended ? 'suspended' : 'running', status_message: null },
          { statusIn: ['running', 'suspended'] },
        );
        if (updated) await publish(trx, updated);
      });
    },

    /** Applies the pending password (closing live sessions) and makes it the stored one. */
    async password(row, payload, helpers) {
      if (row.status === 'deleting') return;
      const stored = await findCredentials(db, row.id);
      const pending = stored?.pending_password;
      if (!stored || !pending) return;
      const password = openPendingPassword(cipher, row.id, pending);
      const outcome = await attempt(payload, helpers, async () => {
        if (row.deployed_at === null) throw new ConflictError('the instance has not been deployed');
        const change = driver.engine(row.type).password;
        if (!change) throw new ConflictError(`${typeName(row.type)} instances have no password to change`);
        await change.change(row.id, password);
      });
      if (!outcome.ok) {
        const message = failureMessage(FAILED.password, outcome.error, {
          operation: 'password',
          row,
          helpers,
        });
        await giveUp('password', row, message, pending);
        return outcome.lingering;
      }
      await db.transaction().execute(async (trx) => {
        // The tenant has this password now, whatever was asked for meanwhile (its own job follows).
        const secret = { ...openSecret(cipher, row.id, stored.secret), password };
        await updateCredentials(trx, row.id, { secret: sealSecret(cipher, row.id, secret) });
        await updateCredentials(trx, row.id, { pending_password: null, password_error: null }, pending);
      });
    },
  };

  return Object.fromEntries(
    (Object.keys(tasks) as InstanceOperation[]).map((operation) => [
      TASK_OF[operation],
      task(operation, tasks[operation]),
    ]),
  );
}
