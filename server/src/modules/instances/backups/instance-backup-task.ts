import type { JobHelpers } from 'graphile-worker';
import type { BackupVault } from '../../../backup-storage/backup-vault.ts';
import type { InstanceBackupRow } from '../../../db/tables/instances.ts';
import { describeError, withReference } from '../../../lib/error-reference.ts';
import { typeName } from '../instance-catalog.ts';
import { findInstanceById } from '../instances.repository.ts';
import {
  AppErrorLike,
  type BackupTaskContext,
  backupsFor,
  customerReason,
  parsePayload,
} from './instance-backup-task-context.ts';
import { findBackup, updateBackup } from './instance-backups.repository.ts';
import { backupPrefix, manifestKey } from './instance-backups.service.ts';

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

/**
 * The backup job: streams the engine's dump into the vault part by part (encrypted, hashed, read back
 * and checked), then records the parts and writes a manifest beside them; until then the backup reads
 * `running`, whatever happens to the server.
 */
export function backupTask(ctx: BackupTaskContext) {
  return (raw: unknown, helpers: JobHelpers) => runBackup(ctx, raw, helpers);
}

/** One run of a backup job (its payload `raw`): from the instance's engine, through the vault, to storage. */
async function runBackup(ctx: BackupTaskContext, raw: unknown, helpers: JobHelpers): Promise<void> {
  const { db, driver, notifications, event, progressOf, specOf, clearAttempt } = ctx;
  const payload = parsePayload(raw);
  const row = await findInstanceById(db, payload.instanceId);
  const found = row && (await findBackup(db, row.id, payload.backupId));
  if (!row || !found || found.status !== 'running') return;
  const label = `${typeName(row.type)} instance "${row.name}"`;
  try {
    if (row.status !== 'running' || row.deployed_at === null)
      throw new AppErrorLike('the instance is not running');
    const backups = backupsFor(driver, await specOf(row));
    if (!backups) throw new AppErrorLike('this type of instance has no backups');
    await clearAttempt(row.id, found.id);
    const progress = progressOf(row, found.id, 'running');
    const { size, parts, facts, completedAt } = await storeBackup(ctx.vault, backups, found, progress);
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
          completedAt: new Date(completedAt),
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
 * The engine's dump of the instance streamed into the vault part by part, then the manifest beside the
 * parts: storage holds a manifest only beside a whole, checked backup.
 */
async function storeBackup(
  vault: BackupVault,
  backups: NonNullable<ReturnType<typeof backupsFor>>,
  found: InstanceBackupRow,
  progress: ReturnType<BackupTaskContext['progressOf']>,
): Promise<BackupManifest> {
  const { archive, parts } = vault.writer(backupPrefix(found.instance_id, found.id), progress.bytes);
  progress.step('Starting');
  // The engine's dump for this type, with the spec the instance runs with.
  const facts = await backups.dump(archive, progress.step);
  const manifest: BackupManifest = {
    id: found.id,
    instanceId: found.instance_id,
    kind: found.kind,
    name: found.name,
    note: found.note,
    createdAt: found.created_at.toISOString(),
    completedAt: new Date().toISOString(),
    size: parts.reduce((sum, p) => sum + p.size, 0),
    parts,
    facts,
  };
  await vault.putJson(manifestKey(found.instance_id, found.id), manifest);
  return manifest;
}
