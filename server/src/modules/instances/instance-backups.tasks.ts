import type { JobHelpers, TaskList } from 'graphile-worker';
import { ArchiveTamperedError, type BackupVault } from '../../backup-storage/backup-vault.ts';
import type { Db, DbOrTx } from '../../db/database.ts';
import type { InstanceBackupRow, InstanceRow } from '../../db/tables/instances.ts';
import type { Cipher } from '../../lib/crypto.ts';
import { describeError, withReference } from '../../lib/error-reference.ts';
import { AppError } from '../../lib/errors.ts';
import type { ProvisioningDriver } from '../../provisioning/driver.ts';
import type { BackupEvent } from '../notifications/notifications.hub.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import { deployRequestOf } from './deploy-specs.ts';
import { findBackup, updateBackup } from './instance-backups.repository.ts';
import {
  type BackupJobPayload,
  backupPrefix,
  manifestKey,
  TASK_BACKUP,
  TASK_RECOVER,
  TASK_RESTORE,
} from './instance-backups.service.ts';
import { TYPE_INFO } from './instance-catalog.ts';
import { openSecret } from './instance-secrets.ts';
import { findCredentials, findInstanceById, updateInstance } from './instances.repository.ts';

export interface BackupTaskDeps {
  db: Db;
  driver: ProvisioningDriver;
  cipher: Cipher;
  vault: BackupVault;
  notifications: Pick<NotificationsService, 'notify' | 'publishInstanceEvent'>;
}

/** What storage alone says of a backup (read by a recovery on a new machine, platform-recovery.ts). */
export interface BackupManifest {
  id: string;
  instanceId: string;
  kind: 'scheduled' | 'manual';
  name: string;
  note: string;
  createdAt: string;
  completedAt: string;
  size: number;
  parts: InstanceBackupRow['parts'];
  facts: Record<string, number>;
}

/** Progress goes to the database and the stream at most this often. */
const PROGRESS_EVERY_MS = 1_000;

function parsePayload(raw: unknown): BackupJobPayload {
  const { backupId, instanceId, requestId } = (raw ?? {}) as Partial<BackupJobPayload>;
  if (typeof backupId !== 'string' || typeof instanceId !== 'string')
    throw new Error(`Malformed backup job payload: ${JSON.stringify(raw)}`);
  return { backupId, instanceId, requestId: typeof requestId === 'string' ? requestId : backupId };
}

/** Our own errors' words; for anything else the reference under which the log holds it. */
function customerReason(error: unknown): string | undefined {
  if (error instanceof ArchiveTamperedError) return error.message;
  if (error instanceof AppError) return error.message;
  return undefined;
}

/**
 * The backup and restore jobs (instance-backups.service.ts adds them). A backup streams the engine's
 * dump into the vault part by part (encrypted, hashed, read back and checked), then records the parts
 * and writes a manifest beside them; until then it reads `running`, whatever happens to the server. A
 * restore checks every part first, then lets the engine replace the instance's data.
 */
export function createBackupTasks(deps: BackupTaskDeps): TaskList {
  const { db, driver, cipher, vault, notifications } = deps;

  const event = (trx: DbOrTx, row: InstanceRow, backup: BackupEvent, status = row.status) =>
    notifications.publishInstanceEvent(
      row.user_id,
      { id: row.id, status, statusMessage: row.status_message, backup },
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

  async function backup(raw: unknown, helpers: JobHelpers): Promise<void> {
    const payload = parsePayload(raw);
    const row = await findInstanceById(db, payload.instanceId);
    const found = row && (await findBackup(db, row.id, payload.backupId));
    if (!row || !found || found.status !== 'running') return;
    const label = `${TYPE_INFO[row.type].name} instance "${row.name}"`;
    try {
      if (row.status !== 'running' || row.deployed_at === null)
        throw new AppErrorLike('the instance is not running');
      const request = await specOf(row);
      const capability = driver.engine(request.type).backups;
      if (!capability) throw new AppErrorLike('this type of instance has no backups');
      await clearAttempt(row.id, found.id);
      const progress = progressOf(row, found.id, 'running');
      const { archive, parts } = vault.writer(backupPrefix(row.id, found.id), progress.bytes);
      progress.step('Starting');
      // The engine's dump for this type, with the spec the instance runs with.
      const facts = await (
        capability.dump as (s: typeof request.spec, ...rest: unknown[]) => Promise<Record<string, number>>
      )(request.spec, archive, progress.step);
      const size = parts.reduce((sum, p) => sum + p.size, 0);
      const completedAt = new Date();
      const manifest: BackupManifest = {
        id: found.id,
        instanceId: row.id,
        kind: found.kind,
        name: found.name,
        note: found.note,
        createdAt: found.created_at.toISOString(),
        completedAt: completedAt.toISOString(),
        size,
        parts,
        facts,
      };
      // The manifest last: storage holds a manifest only beside a whole, checked backup.
      await vault.putJson(manifestKey(row.id, found.id), manifest);
      await db.transaction().execute(async (trx) => {
        const done = await updateBackup(
          trx,
          found.id,
          {
            status: 'complete',
            step: null,
            size,
            parts,
            facts,
            completedAt,
            bytes: parts.reduce((s, p) => s + p.plainSize, 0),
          },
          { status: 'running' },
        );
        if (done)
          await event(trx, row, {
            id: found.id,
            status: 'complete',
            step: null,
            bytes: Number(done.bytes),
            error: null,
          });
      });
    } catch (error) {
      const { attempts, max_attempts: maxAttempts } = helpers.job;
      const ours = customerReason(error) ?? (error instanceof AppErrorLike ? error.message : undefined);
      if (!ours && attempts < maxAttempts) {
        helpers.logger.error(`backup ${found.id} of ${row.id}, attempt ${attempts}: ${describeError(error)}`);
        await updateBackup(db, found.id, { step: 'Trying again' }, { status: 'running' });
        throw error;
      }
      helpers.logger.error(
        `backup ${found.id} of ${row.id} failed [ref ${payload.requestId}]: ${describeError(error)}`,
      );
      const message = withReference(`Backup failed${ours ? `: ${ours}` : ''}`, payload.requestId);
      await clearAttempt(row.id, found.id).catch(() => {});
      await db.transaction().execute(async (trx) => {
        await updateBackup(
          trx,
          found.id,
          { status: 'failed', step: null, error: message },
          { status: 'running' },
        );
        await event(trx, row, { id: found.id, status: 'failed', step: null, bytes: 0, error: message });
        if (found.kind === 'manual')
          await notifications.notify(
            row.user_id,
            { type: 'instance', title: 'Backup failed', message: `Your ${label}: ${message}` },
            trx,
          );
      });
    }
  }

  /**
   * A recovery: the instance deployed again (idempotent: the tenant made anew on a new machine), then
   * marked `restoring` and restored like any restore. A deploy that fails is retried by the job.
   */
  async function recover(raw: unknown, helpers: JobHelpers): Promise<void> {
    const payload = parsePayload(raw);
    const row = await findInstanceById(db, payload.instanceId);
    if (!row || row.status === 'deleting') return;
    const request = await specOf(row);
    await (driver.engine(request.type).deploy as (s: typeof request.spec) => Promise<unknown>)(request.spec);
    const restoring = await db.transaction().execute(async (trx) => {
      const updated = await updateInstance(
        trx,
        row.id,
        { status: 'restoring', status_message: 'Restoring its latest backup' },
        { statusNot: 'deleting' },
      );
      if (updated) await publish(trx, updated);
      return updated;
    });
    if (restoring) await restore(raw, helpers);
  }

  const publish = (trx: DbOrTx, row: InstanceRow) =>
    notifications.publishInstanceEvent(
      row.user_id,
      { id: row.id, status: row.status, statusMessage: row.status_message },
      trx,
    );

  async function restore(raw: unknown, helpers: JobHelpers): Promise<void> {
    const payload = parsePayload(raw);
    const row = await findInstanceById(db, payload.instanceId);
    if (row?.status !== 'restoring') return;
    const found = await findBackup(db, row.id, payload.backupId);
    const label = `${TYPE_INFO[row.type].name} instance "${row.name}"`;
    const progress = progressOf(row, payload.backupId, 'restoring');
    let touched = false;
    try {
      if (found?.status !== 'complete') throw new AppErrorLike('the backup is gone');
      const request = await specOf(row);
      const capability = driver.engine(request.type).backups;
      if (!capability) throw new AppErrorLike('this type of instance has no backups');
      progress.step('Checking the backup');
      const opened = await vault.open(backupPrefix(row.id, found.id), found.parts);
      try {
        touched = true;
        await (capability.restore as (s: typeof request.spec, ...rest: unknown[]) => Promise<void>)(
          request.spec,
          opened.archive,
          found.facts,
          progress.step,
        );
      } finally {
        await opened.close();
      }
      await db.transaction().execute(async (trx) => {
        const updated = await updateInstance(
          trx,
          row.id,
          { status: 'running', status_message: null },
          { statusIn: ['restoring'] },
        );
        if (!updated) return;
        await event(trx, updated, {
          id: payload.backupId,
          status: 'restored',
          step: null,
          bytes: 0,
          error: null,
        });
        await notifications.notify(
          row.user_id,
          {
            type: 'instance',
            title: 'Backup restored',
            message: `Your ${label} was restored from “${found.name}”.`,
          },
          trx,
        );
      });
    } catch (error) {
      const ours = customerReason(error) ?? (error instanceof AppErrorLike ? error.message : undefined);
      helpers.logger.error(
        `restore of ${payload.backupId} into ${row.id} failed [ref ${payload.requestId}]: ${describeError(error)}`,
      );
      const message = withReference(`Restore failed${ours ? `: ${ours}` : ''}`, payload.requestId);
      // Refused before anything changed (a damaged backup): the instance runs on as it was.
      const untouched = !touched || error instanceof ArchiveTamperedError;
      await db.transaction().execute(async (trx) => {
        const updated = await updateInstance(
          trx,
          row.id,
          untouched
            ? { status: 'running', status_message: null }
            : { status: 'error', status_message: message },
          { statusIn: ['restoring'] },
        );
        if (!updated) return;
        await event(trx, updated, {
          id: payload.backupId,
          status: 'restore-failed',
          step: null,
          bytes: 0,
          error: message,
        });
        await notifications.notify(
          row.user_id,
          { type: 'instance', title: 'Restore failed', message: `Your ${label}: ${message}` },
          trx,
        );
      });
    }
  }

  return { [TASK_BACKUP]: backup, [TASK_RESTORE]: restore, [TASK_RECOVER]: recover };
}

/** A failure whose words are ours (the customer reads them as they are). */
class AppErrorLike extends Error {}
