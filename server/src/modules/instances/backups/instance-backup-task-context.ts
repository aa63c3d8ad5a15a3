import { ArchiveTamperedError, type BackupVault } from '../../../backup-storage/backup-vault.ts';
import type { Db, DbOrTx } from '../../../db/database.ts';
import type { InstanceRow } from '../../../db/tables/instances.ts';
import type { Cipher } from '../../../lib/crypto.ts';
import { AppError } from '../../../lib/errors.ts';
import type { ProvisioningDriver } from '../../../provisioning/driver.ts';
import type {
  ArchiveReader,
  ArchiveWriter,
  BackupFacts,
  BackupProgress,
  SpecOf,
} from '../../../provisioning/engine.ts';
import type { InstanceType } from '../../../provisioning/instance-types.ts';
import type { BackupEvent } from '../../notifications/notifications.hub.ts';
import type { NotificationsService } from '../../notifications/notifications.service.ts';
import { deployRequestOf } from '../deploy/deploy-specs.ts';
import { openSecret } from '../instance-secrets.ts';
import { findCredentials } from '../instances.repository.ts';
import { updateBackup } from './instance-backups.repository.ts';
import { type BackupJobPayload, backupPrefix } from './instance-backups.service.ts';

// The parts the backup jobs share (instance-backup-task.ts, instance-restore-task.ts).

export interface BackupTaskDeps {
  db: Db;
  driver: ProvisioningDriver;
  cipher: Cipher;
  vault: BackupVault;
  notifications: Pick<NotificationsService, 'notify' | 'notifyAdmins' | 'publishInstanceEvent'>;
}

/** Progress goes to the database and the stream at most this often. */
const PROGRESS_EVERY_MS = 1_000;

export function parsePayload(raw: unknown): BackupJobPayload & { relocate: boolean } {
  const { backupId, instanceId, requestId, relocate } = (raw ?? {}) as Partial<
    BackupJobPayload & { relocate: boolean }
  >;
  if (typeof backupId !== 'string' || typeof instanceId !== 'string')
    throw new Error(`Malformed backup job payload: ${JSON.stringify(raw)}`);
  return {
    backupId,
    instanceId,
    requestId: typeof requestId === 'string' ? requestId : backupId,
    // A recovery after its server was lost: the driver lets go of that server first.
    relocate: relocate === true,
  };
}

/** Our own errors' words; for anything else the reference under which the log holds it. */
export function customerReason(error: unknown): string | undefined {
  if (error instanceof ArchiveTamperedError) return error.message;
  if (error instanceof AppError) return error.message;
  return undefined;
}

/**
 * The backups of the engine a request names, bound to that request's spec. One generic step keeps the
 * type and its spec paired, so the jobs call the engine without a cast; undefined when the type has none.
 */
export function backupsFor<T extends InstanceType>(
  driver: ProvisioningDriver,
  request: { type: T; spec: SpecOf[T] },
) {
  const capability = driver.engine(request.type).backups;
  if (!capability) return undefined;
  return {
    dump: (archive: ArchiveWriter, progress?: BackupProgress) =>
      capability.dump(request.spec, archive, progress),
    restore: (archive: ArchiveReader, facts: BackupFacts, progress?: BackupProgress) =>
      capability.restore(request.spec, archive, facts, progress),
  };
}

/** A failure whose words are ours (the customer reads them as they are). */
export class AppErrorLike extends Error {}

/** What the backup, restore and recovery jobs share: the services, the events they send, progress. */
export type BackupTaskContext = ReturnType<typeof backupTaskContext>;

export function backupTaskContext(deps: BackupTaskDeps) {
  const { db, cipher, vault, notifications } = deps;

  const event = (trx: DbOrTx, row: InstanceRow, backup: BackupEvent, status = row.status) =>
    notifications.publishInstanceEvent(
      row.user_id,
      { id: row.id, status, statusMessage: row.status_message, backup },
      trx,
    );

  const publish = (trx: DbOrTx, row: InstanceRow) =>
    notifications.publishInstanceEvent(
      row.user_id,
      { id: row.id, status: row.status, statusMessage: row.status_message },
      trx,
    );

  /** Reports progress, at most once a second (and always for a new step). */
  function progressOf(row: InstanceRow, backupId: string, status: 'running' | 'restoring') {
    let last = 0;
    let step: string | null = null;
    let bytes = 0;
    const send = async (force: boolean) => {
      const now = Date.now();
      if (!force && now - last < PROGRESS_EVERY_MS) return;
      last = now;
      if (status === 'running') await updateBackup(db, backupId, { step, bytes }, { status: 'running' });
      await event(db, row, { id: backupId, status, step, bytes, error: null });
    };
    return {
      step(next: string) {
        step = next;
        void send(true).catch(() => {});
      },
      bytes(total: number) {
        bytes = total;
        void send(false).catch(() => {});
      },
    };
  }

  async function specOf(row: InstanceRow) {
    const stored = await findCredentials(db, row.id);
    if (!stored) throw new Error('its credentials are missing');
    return deployRequestOf(row, openSecret(cipher, row.id, stored.secret));
  }

  /** Removes whatever an earlier attempt of this backup stored. */
  async function clearAttempt(instanceId: string, backupId: string) {
    const prefix = backupPrefix(instanceId, backupId);
    await vault.store.removeUnfinished(`${prefix}/`);
    for (const key of await vault.store.list(`${prefix}/`)) await vault.store.remove(key);
  }

  return { ...deps, event, publish, progressOf, specOf, clearAttempt };
}
