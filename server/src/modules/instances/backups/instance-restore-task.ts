import type { JobHelpers } from 'graphile-worker';
import { ArchiveTamperedError } from '../../../backup-storage/backup-vault.ts';
import type { InstanceRow, InstanceRowUpdate } from '../../../db/tables/instances.ts';
import { describeError, withReference } from '../../../lib/error-reference.ts';
import type { Deployment } from '../../../provisioning/engine.ts';
import { recordRedeployment } from '../deploy/deployment-record.ts';
import { typeName } from '../instance-catalog.ts';
import { findInstanceById, updateInstance } from '../instances.repository.ts';
import { NOT_DEPLOYED_AGAIN } from '../server-words.ts';
import {
  AppErrorLike,
  type BackupTaskContext,
  backupsFor,
  customerReason,
  parsePayload,
} from './instance-backup-task-context.ts';
import { findRestorable } from './instance-backups.repository.ts';
import { backupPrefix } from './instance-backups.service.ts';

/**
 * The restore job (every part checked first, then the engine replaces the instance's data), and the
 * recovery job that deploys an instance again before restoring it.
 */
export function restoreTasks(ctx: BackupTaskContext) {
  return {
    restore: (raw: unknown, helpers: JobHelpers) => restore(ctx, raw, helpers),
    recover: (raw: unknown, helpers: JobHelpers) => recover(ctx, raw, helpers),
    restoreIntoNew: (raw: unknown, helpers: JobHelpers) => restoreIntoNew(ctx, raw, helpers),
  };
}

/**
 * A recovery: the instance deployed again (idempotent: the tenant made anew on a new machine), then
 * marked `restoring` and restored like any restore. A deploy that fails is retried by the job.
 */
async function recover(ctx: BackupTaskContext, raw: unknown, helpers: JobHelpers): Promise<void> {
  const { db, driver, cipher, notifications, publish, specOf } = ctx;
  const payload = parsePayload(raw);
  const row = await findInstanceById(db, payload.instanceId);
  if (!row || row.status === 'deleting') return;
  let deployment: Deployment;
  try {
    const request = await specOf(row);
    // Its server was lost: the driver lets go of it, so that the deploy places it on one that is up.
    if (payload.relocate) await driver.live?.relocate(row.id);
    deployment = await driver.engine(request.type).deploy(request.spec);
  } catch (error) {
    const { attempts, max_attempts: maxAttempts } = helpers.job;
    if (attempts < maxAttempts) throw error;
    // The last attempt: the instance must not read `restoring` (or `deploying`) forever.
    helpers.logger.error(
      `deploy of ${row.id} before its restore failed [ref ${payload.requestId}]: ${describeError(error)}`,
    );
    const ours = customerReason(error);
    const message = withReference(`${NOT_DEPLOYED_AGAIN}${ours ? ` (${ours})` : ''}`, payload.requestId);
    await failBeforeRestore(ctx, row, payload.backupId, message);
    return;
  }
  // Where it is reached may have changed (another server): recorded, and the customer told.
  await recordRedeployment(db, { cipher, notifications }, row, deployment);
  const restoring = await db.transaction().execute(async (trx) => {
    const updated = await updateInstance(
      trx,
      row.id,
      { status: 'restoring', status_message: 'Restoring a backup' },
      { statusNot: 'deleting' },
    );
    if (updated) await publish(trx, updated);
    return updated;
  });
  if (restoring) await restore(ctx, raw, helpers);
}

/** Ends a restore that could not begin: the instance in `error` with why, its owner told. */
async function failBeforeRestore(
  ctx: BackupTaskContext,
  row: InstanceRow,
  backupId: string,
  message: string,
): Promise<void> {
  await markRestoreFailed(
    ctx,
    row,
    backupId,
    message,
    { status: 'error', status_message: message },
    {
      statusNot: 'deleting',
    },
  );
}

/**
 * A restore of `backupId` that failed, in one transaction: the instance as `change` says (unless
 * `onlyIf` no longer holds: then nothing), the backup's event on the stream, and its owner told why.
 */
async function markRestoreFailed(
  ctx: BackupTaskContext,

  row: InstanceRow,
  backupId: string,
  message: string,
  change: InstanceRowUpdate,
  onlyIf: Parameters<typeof updateInstance>[3],
): Promise<void> {
  const { db, notifications, event } = ctx;
  const label = `${typeName(row.type)} instance "${row.name}"`;
  await db.transaction().execute(async (trx) => {
    const updated = await updateInstance(trx, row.id, change, onlyIf);
    if (!updated) return;
    await event(trx, updated, {
      id: backupId,
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

/**
 * A deleted instance's backup restored into a new instance: its job waits behind the deploy's in the
 * instance's queue; once the instance runs it is marked `restoring` and restored like any restore. A
 * deploy still being retried makes this job try again later; a deploy that failed leaves the new
 * instance in its error, and the owner is told the backup was not restored.
 */
async function restoreIntoNew(ctx: BackupTaskContext, raw: unknown, helpers: JobHelpers): Promise<void> {
  const { db, notifications, publish } = ctx;
  const payload = parsePayload(raw);
  const row = await findInstanceById(db, payload.instanceId);
  if (!row || row.status === 'deleting') return;
  const { attempts, max_attempts: maxAttempts } = helpers.job;
  if (row.status === 'deploying' && attempts < maxAttempts)
    throw new Error(`instance ${row.id} is still deploying; its restore waits`);
  const restoring =
    row.status === 'running' && row.deployed_at !== null
      ? await db.transaction().execute(async (trx) => {
          const updated = await updateInstance(
            trx,
            row.id,
            { status: 'restoring', status_message: 'Restoring a backup' },
            { statusIn: ['running'] },
          );
          if (updated) await publish(trx, updated);
          return updated;
        })
      : undefined;
  if (restoring) return restore(ctx, raw, helpers);
  const label = `${typeName(row.type)} instance "${row.name}"`;
  const message = withReference('Restore failed: the new instance is not running', payload.requestId);
  helpers.logger.error(`restore of ${payload.backupId} into new ${row.id} not started: ${row.status}`);
  await notifications.notify(row.user_id, {
    type: 'instance',
    title: 'Restore failed',
    message: `Your ${label}: ${message}`,
  });
}

async function restore(ctx: BackupTaskContext, raw: unknown, helpers: JobHelpers): Promise<void> {
  const { db, driver, vault, notifications, event, progressOf, specOf } = ctx;
  const payload = parsePayload(raw);
  const row = await findInstanceById(db, payload.instanceId);
  if (row?.status !== 'restoring') return;
  // The instance's own backup, or (a restore into a new instance) a deleted instance's of its owner.
  const found = await findRestorable(db, row, payload.backupId);
  const label = `${typeName(row.type)} instance "${row.name}"`;
  const progress = progressOf(row, payload.backupId, 'restoring');
  let touched = false;
  try {
    if (found?.status !== 'complete') throw new AppErrorLike('the backup is gone');
    const backups = backupsFor(driver, await specOf(row));
    if (!backups) throw new AppErrorLike('this type of instance has no backups');
    progress.step('Checking the backup');
    const opened = await vault.open(backupPrefix(found.instance_id, found.id), found.parts);
    try {
      touched = true;
      await backups.restore(opened.archive, found.facts, progress.step);
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
    await markRestoreFailed(
      ctx,
      row,
      payload.backupId,
      message,
      untouched ? { status: 'running', status_message: null } : { status: 'error', status_message: message },
      { statusIn: ['restoring'] },
    );
  }
}
