import { cpuChoice, memoryChoice } from '@berth/openapi/rules';
import { addJob } from '../../../jobs/job-queue.ts';
import { ConflictError, NotFoundError } from '../../../lib/errors.ts';
import type { DeployInstance } from '../deploy/instance-deploy.ts';
import { DEFAULT_CPU, DEFAULT_MEMORY, typeName } from '../instance-catalog.ts';
import { offerOf } from '../instance-features.ts';
import { openKeptKey } from '../instance-secrets.ts';
import type { InstancesContext } from '../instances.context.ts';
import type { InstancesDeps } from '../instances.deps.ts';
import type { DeployBody, Instance } from '../instances.schemas.ts';
import { kindOf } from '../kinds/kinds.ts';
import type { DeletedInstanceBackup, RestoreIntoNewBody } from './deleted-instance-backups.schemas.ts';
import {
  type DeletedInstanceBackupRow,
  deleteBackupRow,
  findBackupsOfDeleted,
} from './instance-backups.repository.ts';
import {
  archiveOf,
  type BackupJobPayload,
  backupPrefix,
  manifestKey,
  TASK_RESTORE_INTO_NEW,
} from './instance-backups.service.ts';

const RESTORE_WHEN_INACTIVE = 'Restoring backups is disabled.';
const DELETE_WHEN_INACTIVE = 'Deleting backups is disabled.';
const BACKUP_ID = /^b-[0-9a-f]{12}$/;
const KEY_LOST =
  'This backup cannot be restored into a new instance: the key its data is encrypted with is missing';

/**
 * The backups of a customer's deleted instances: kept (records and files) until their plan's days have
 * passed, listed for their owner only (another user's backup id answers 404 like a missing one), and
 * restorable into a new instance of the same type: a deploy like any other (plan, region and resource
 * rules), whose restore job follows the deploy's in the new instance's queue.
 */
export type DeletedInstanceBackupsService = ReturnType<typeof deletedInstanceBackups>;

export function deletedInstanceBackups(deps: InstancesDeps, ctx: InstancesContext, deploy: DeployInstance) {
  const { db, driver, cipher } = deps;
  const { vault, paymentSettings } = deps.backups;
  const { refuseWhenInactive } = ctx;

  const backupDays = async () => (await paymentSettings.read()).backupDays;

  /** The user's backup of a deleted instance, or 404. */
  async function ownDeleted(userId: string, backupId: string): Promise<DeletedInstanceBackupRow> {
    const [found] = BACKUP_ID.test(backupId)
      ? await findBackupsOfDeleted(db, userId, await backupDays(), backupId)
      : [];
    if (!found) throw new NotFoundError('Backup not found');
    return found;
  }

  /** Why the backup cannot be restored into a new instance here; undefined when it can. */
  async function cannotRestore(row: DeletedInstanceBackupRow): Promise<string | undefined> {
    const capability = (await driver.capabilities())[row.instance_type];
    if (!capability.available) return capability.reason;
    const backups = offerOf(driver.engine(row.instance_type), 'backups');
    if (backups !== true) return backups;
    if (kindOf(row.instance_type).ownKey && !row.deleted_instance.sealedKey) return KEY_LOST;
    return undefined;
  }

  function toDeletedBackup(row: DeletedInstanceBackupRow, reason: string | undefined): DeletedInstanceBackup {
    const kept = row.deleted_instance;
    return {
      ...archiveOf(row),
      keptUntil: new Date(row.kept_until).toISOString(),
      instance: {
        id: row.instance_id,
        name: kept.name,
        type: typeName(row.instance_type),
        product: row.instance_type,
        region: kept.region,
        deletedAt: kept.deletedAt,
      },
      restorable: reason === undefined,
      reason: reason ?? null,
    };
  }

  /** The deploy body of the new instance: the deleted one's type, resources and settings (its kind's fields). */
  async function deployBodyOf(row: DeletedInstanceBackupRow, body: RestoreIntoNewBody): Promise<DeployBody> {
    const kept = row.deleted_instance;
    const base: DeployBody = {
      name: body.name ?? kept.name,
      description: body.description ?? '',
      type: row.instance_type,
      region: body.region ?? (kept.region as DeployBody['region']),
      memory: memoryChoice(kept.memory) ?? DEFAULT_MEMORY,
      cpu: cpuChoice(kept.cpu) ?? DEFAULT_CPU,
    };
    return { ...base, ...(await kindOf(row.instance_type).redeployFields(kept.settings, driver)) };
  }

  return {
    async listDeletedBackups(userId: string): Promise<DeletedInstanceBackup[]> {
      const rows = await findBackupsOfDeleted(db, userId, await backupDays());
      return Promise.all(rows.map(async (row) => toDeletedBackup(row, await cannotRestore(row))));
    },

    /**
     * Deploys a new instance of the backup's type (named, placed and sized like the deleted one unless
     * the body says otherwise; refused like any deploy the plan, region or server does not allow) and
     * adds the restore of the backup behind its deploy: the instance deploys, then shows `restoring`,
     * then `running` with the backup's data.
     */
    async restoreIntoNew(
      userId: string,
      backupId: string,
      body: RestoreIntoNewBody,
      requestId: string,
    ): Promise<Instance> {
      const row = await ownDeleted(userId, backupId);
      await refuseWhenInactive(userId, RESTORE_WHEN_INACTIVE);
      const reason = await cannotRestore(row);
      if (reason) throw new ConflictError(reason);
      const sealedKey = row.deleted_instance.sealedKey;
      const keptKey =
        kindOf(row.instance_type).ownKey && sealedKey
          ? openKeptKey(cipher, row.instance_id, sealedKey)
          : undefined;
      return deploy(userId, await deployBodyOf(row, body), {
        ...(keptKey && { keptKey }),
        async afterDeploy(trx, instance) {
          const payload: BackupJobPayload = { backupId: row.id, instanceId: instance.id, requestId };
          await addJob(trx, {
            task: TASK_RESTORE_INTO_NEW,
            payload: { ...payload },
            jobKey: `restore:${instance.id}`,
            queueName: `instance:${instance.id}`,
            // Retried while the deploy before it is still being retried (its job's own deadline).
            maxAttempts: 10,
          });
        },
      });
    },

    /** Removes the backup of a deleted instance now (its files, then its record). */
    async deleteDeletedBackup(userId: string, backupId: string): Promise<void> {
      const row = await ownDeleted(userId, backupId);
      await refuseWhenInactive(userId, DELETE_WHEN_INACTIVE);
      await ctx.viaDriver('Failed to delete backup', () =>
        vault.remove(backupPrefix(row.instance_id, row.id), row.parts, [
          manifestKey(row.instance_id, row.id),
        ]),
      );
      await deleteBackupRow(db, row.id);
    },
  };
}
