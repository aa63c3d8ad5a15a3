import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { SERVER_GONE, serverGone } from '@berth/openapi/rules';
import type { BackupVault } from '../../../backup-storage/backup-vault.ts';
import type { DbOrTx } from '../../../db/database.ts';
import type { InstanceBackupRow, InstanceRow } from '../../../db/tables/instances.ts';
import { addJob } from '../../../jobs/job-queue.ts';
import { ConflictError, GoneError, NotFoundError } from '../../../lib/errors.ts';
import type { InstancesContext } from '../instances.context.ts';
import type { InstanceBackupsDeps } from '../instances.deps.ts';
import { updateInstance } from '../instances.repository.ts';
import {
  claimDownloadLink,
  deleteBackupRow,
  findBackup,
  findBackupsOf,
  insertBackup,
} from './instance-backups.repository.ts';
import type { Backup, BackupBody, BackupDownload, SiteStorage } from './instance-backups.schemas.ts';

const BACKUP_WHEN_INACTIVE = 'Your subscription is inactive. Creating backups is disabled.';
const RESTORE_WHEN_INACTIVE = 'Restoring backups is disabled.';
const DELETE_BACKUP_WHEN_INACTIVE = 'Deleting backups is disabled.';
const BACKUPS_LACKING = 'Backups are not available for this type of instance';

const STORAGE_SITES_ONLY = 'Storage use is shown for WordPress instances';
const BACKUP_BUSY = 'A backup of this instance is already in progress. Try again when it has finished.';
/** Manual backups one instance may keep at once (scheduled ones are bounded by the plan's days). */
const MAX_MANUAL_BACKUPS = 10;
const manualLimitMessage = `This instance already has ${MAX_MANUAL_BACKUPS} manual backups, the most it can keep. Delete one to make room for a new one.`;
const BACKUP_ID = /^b-[0-9a-f]{12}$/;
/** How long a download link works (once). */
const DOWNLOAD_LINK_SECONDS = 5 * 60;
const LINK_INVALID = 'This download link is invalid or has expired';
const LINK_USED = 'This download link was already used. Make a new link to download the backup again.';
const LINK_REVOKED =
  'This download link stopped working when its session was signed out or the password was changed. Make a new link.';

export const TASK_BACKUP = 'instance.backup';
export const TASK_RESTORE = 'instance.restore';
/**
 * Deploys the instance again and restores a backup: its latest after a platform recovery
 * (instance-recovery.ts), the one its owner chose when its server is gone.
 */
export const TASK_RECOVER = 'instance.recover';
/** Restores a deleted instance's backup into a new instance once its deploy has run. */
export const TASK_RESTORE_INTO_NEW = 'instance.restore-into-new';

/** What the backup jobs carry: the backup, and the request that asked (its id is the failure's reference). */
export interface BackupJobPayload {
  backupId: string;
  instanceId: string;
  requestId: string;
}

/** Where the platform keeps an instance's backup (prefix of its parts and manifest). */
export const backupPrefix = (instanceId: string, backupId: string) => `instances/${instanceId}/${backupId}`;
export const manifestKey = (instanceId: string, backupId: string) =>
  `${backupPrefix(instanceId, backupId)}/manifest.json.enc`;

const newBackupId = () => `b-${randomBytes(6).toString('hex')}`;

const LOCATION = { s3: 'Off-site storage', local: 'This server' } as const;

type ArchiveColumns =
  | 'id'
  | 'name'
  | 'note'
  | 'created_at'
  | 'completed_at'
  | 'kind'
  | 'bytes'
  | 'size'
  | 'location';

/** What every backup shows of its archive, an instance's or a deleted instance's. */
export function archiveOf(row: Pick<InstanceBackupRow, ArchiveColumns>) {
  return {
    id: row.id,
    name: row.name,
    note: row.note,
    createdAt: row.created_at.toISOString(),
    completedAt: row.completed_at?.toISOString() ?? null,
    kind: row.kind,
    bytes: Number(row.bytes),
    size: Number(row.size),
    location: LOCATION[row.location],
    offsite: row.location === 's3',
  };
}

function toBackup(row: InstanceBackupRow): Backup {
  return { ...archiveOf(row), status: row.status, step: row.step, error: row.error };
}

/** A scheduled or manual backup recorded as running and its job added, in one transaction. */
export async function enqueueBackup(
  trx: DbOrTx,
  vault: BackupVault,
  row: Pick<InstanceRow, 'id'>,
  backup: { kind: 'scheduled' | 'manual'; name: string; note: string; requestId: string; createdAt?: Date },
): Promise<InstanceBackupRow> {
  const inserted = await insertBackup(trx, {
    id: newBackupId(),
    instanceId: row.id,
    kind: backup.kind,
    name: backup.name,
    note: backup.note,
    location: vault.store.kind,
    createdAt: backup.createdAt,
  });
  const payload: BackupJobPayload = {
    backupId: inserted.id,
    instanceId: row.id,
    requestId: backup.requestId,
  };
  await addJob(trx, {
    task: TASK_BACKUP,
    payload: { ...payload },
    jobKey: `backup:${inserted.id}`,
    queueName: `instance:${row.id}`,
    maxAttempts: 3,
  });
  return inserted;
}

/** Who asks for a download link: the user, and the sign-in it asks from (absent: an API key). */
export interface LinkHolder {
  userId: string;
  /** The refresh-token family of the access token; signing that session out ends the link. */
  sessionId?: string;
}

/**
 * Backups and storage use, for the instance types whose engine has them. A backup or a restore is a
 * job in the instance's queue (so it never runs beside a deploy or a delete of the same instance): the
 * call records it and answers at once; the live stream tells its progress and its end. Backups are
 * listed from the platform's database (never from the store), so another customer's backup id answers
 * 404 like a missing one.
 */
export type InstanceBackupsService = ReturnType<typeof createInstanceBackupsService>;

export function createInstanceBackupsService(ctx: InstancesContext, deps: InstanceBackupsDeps) {
  const { db, ownDeployed, own, capabilityOf, viaDriver, refuseWhenInactive, publish } = ctx;
  const { now } = deps;

  /** The customer's backup of their instance, or 404 (also another instance's or customer's). */
  /**
   * The caller's instance and its backup (404 for either when not theirs). `whenInactive`: refused with
   * that message for a lapsed subscription before the backup is looked up, as for any id.
   */
  async function ownBackup(userId: string, id: string, backupId: string, whenInactive?: string) {
    const row = await own(userId, id);
    capabilityOf(row, 'backups', BACKUPS_LACKING);
    if (whenInactive) await refuseWhenInactive(userId, whenInactive);
    const backup = BACKUP_ID.test(backupId) ? await findBackup(db, row.id, backupId) : undefined;
    if (!backup) throw new NotFoundError('Backup not found');
    return { row, backup };
  }

  return {
    /** How much of its storage an instance uses (its disk: a site's uploads, files, sessions, logs). */
    async storage(userId: string, id: string): Promise<SiteStorage> {
      const { row, capability: storage } = await ownDeployed(userId, id, 'storage', STORAGE_SITES_ONLY);
      const use = await viaDriver('Failed to load storage use', () => storage.usage(row.id));
      if (!use) throw new ConflictError('No size is kept for this instance, so its use is not measured');
      return { usedBytes: use.usedBytes, limitBytes: use.limitBytes };
    },

    async listBackups(userId: string, id: string): Promise<Backup[]> {
      const row = await own(userId, id);
      capabilityOf(row, 'backups', BACKUPS_LACKING);
      return (await findBackupsOf(db, row.id)).map(toBackup);
    },

    /** Records a manual backup and adds its job; answers its id at once (the stream tells the rest). */
    async createBackup(userId: string, id: string, body: BackupBody, requestId: string): Promise<string> {
      const { row } = await ownDeployed(userId, id, 'backups', BACKUPS_LACKING);
      await refuseWhenInactive(userId, BACKUP_WHEN_INACTIVE);
      if (row.status !== 'running') throw new ConflictError('Backups are made while the instance runs');
      const existing = await findBackupsOf(db, row.id);
      if (existing.some((b) => b.status === 'running')) throw new ConflictError(BACKUP_BUSY);
      if (existing.filter((b) => b.kind === 'manual').length >= MAX_MANUAL_BACKUPS)
        throw new ConflictError(manualLimitMessage);
      const backup = await db.transaction().execute((trx) =>
        enqueueBackup(trx, deps.vault, row, {
          kind: 'manual',
          name: body.name,
          note: body.note ?? '',
          requestId,
        }),
      );
      return backup.id;
    },

    /**
     * Restores a complete backup exactly (the instance's data replaced): the instance shows `restoring`
     * until the job ends, then `running` again (the stream tells both). An instance whose server is gone
     * is deployed again first (on a server that answers), then restored.
     */
    async restoreBackup(userId: string, id: string, backupId: string, requestId: string): Promise<void> {
      const { row, backup } = await ownBackup(userId, id, backupId, RESTORE_WHEN_INACTIVE);
      if (row.deployed_at === null) throw new ConflictError('The instance was never deployed');
      if (backup.status !== 'complete') throw new ConflictError('Only a complete backup can be restored');
      // Its server is down (it may come back), lost for good (the driver lets go of it first), or an
      // earlier deploy elsewhere failed: it is deployed again, then restored.
      const gone = serverGone(row.status, row.status_message);
      const lost = gone && (row.status_message?.startsWith(SERVER_GONE.lost) ?? false);
      await db.transaction().execute(async (trx) => {
        const updated = await updateInstance(
          trx,
          row.id,
          {
            status: 'restoring',
            status_message: gone ? 'Being deployed again, then restored' : 'Restoring a backup',
          },
          gone ? { statusIn: ['error'] } : { statusIn: ['running'] },
        );
        if (!updated) throw new ConflictError('A backup can be restored only while the instance runs');
        const payload: BackupJobPayload & { relocate?: true } = {
          backupId,
          instanceId: row.id,
          requestId,
          ...(lost && { relocate: true }),
        };
        await addJob(trx, {
          task: gone ? TASK_RECOVER : TASK_RESTORE,
          payload: { ...payload },
          jobKey: `restore:${row.id}`,
          queueName: `instance:${row.id}`,
          // A deploy again is retried like a recovery's; a restore itself is never repeated.
          maxAttempts: gone ? 5 : 1,
        });
        await publish(trx, updated);
      });
    },

    async deleteBackup(userId: string, id: string, backupId: string): Promise<void> {
      const { row, backup } = await ownBackup(userId, id, backupId, DELETE_BACKUP_WHEN_INACTIVE);
      if (backup.status === 'running') throw new ConflictError(BACKUP_BUSY);
      await viaDriver('Failed to delete backup', () =>
        deps.vault.remove(backupPrefix(row.id, backup.id), backup.parts, [manifestKey(row.id, backup.id)]),
      );
      await deleteBackupRow(db, backup.id);
    },

    /**
     * A link that downloads the backup (its parts, decrypted, as one tar) once, for a few minutes. It is
     * a bearer credential, so it is bound to who made it: the user's token version (a password change or
     * reset ends it) and the sign-in it was made in (signing out ends it).
     */
    async downloadLink(holder: LinkHolder, id: string, backupId: string): Promise<BackupDownload> {
      const { row, backup } = await ownBackup(holder.userId, id, backupId);
      if (backup.status !== 'complete') throw new ConflictError('Only a complete backup can be downloaded');
      const tokenVersion = await deps.sessions.tokenVersion(holder.userId);
      if (tokenVersion === undefined) throw new NotFoundError('Instance not found');
      const token = await deps.tokens.signLink(
        `${holder.userId}:${row.id}:${backup.id}`,
        'backup',
        DOWNLOAD_LINK_SECONDS,
        {
          jti: randomBytes(16).toString('hex'),
          tv: tokenVersion,
          ...(holder.sessionId !== undefined && { sid: holder.sessionId }),
        },
      );
      return {
        url: `${deps.publicUrl}/api/backup-downloads/${encodeURIComponent(token)}`,
        expiresAt: new Date(now().getTime() + DOWNLOAD_LINK_SECONDS * 1000).toISOString(),
      };
    },

    /**
     * What a download link gives, once: the backup as a tar stream, while the link is fresh, its session
     * goes on (no sign-out, no password change since) and the backup still belongs to the user it was
     * made for (404 for an unknown link, 410 for one used before or whose session ended). The use is
     * recorded in the database before the first byte, so a second request, to this server process or
     * another, is refused.
     */
    async openDownload(token: string): Promise<{ fileName: string; body: Readable }> {
      const { subject, claims } = await deps.tokens.readLink(token, 'backup').catch(() => {
        throw new NotFoundError(LINK_INVALID);
      });
      const { jti, tv, sid, exp } = claims;
      if (typeof jti !== 'string' || typeof tv !== 'number' || typeof exp !== 'number')
        throw new NotFoundError(LINK_INVALID);
      const [userId = '', id = '', backupId = ''] = subject.split(':');
      if ((await deps.sessions.tokenVersion(userId)) !== tv) throw new GoneError(LINK_REVOKED);
      if (sid !== undefined && !(typeof sid === 'string' && (await deps.sessions.sessionLive(userId, sid))))
        throw new GoneError(LINK_REVOKED);
      const { row, backup } = await ownBackup(userId, id, backupId);
      if (backup.status !== 'complete') throw new NotFoundError('Backup not found');
      const first = await claimDownloadLink(
        db,
        { linkId: jti, backupId: backup.id, expiresAt: new Date(exp * 1000) },
        now(),
      );
      if (!first) throw new GoneError(LINK_USED);
      const stamp = backup.created_at.toISOString().slice(0, 16).replace(/[-:T]/g, '');
      return {
        fileName: `${row.type}-${stamp}-${backup.id}.tar`,
        body: deps.vault.download(backupPrefix(row.id, backup.id), backup.parts, backup.created_at),
      };
    },
  };
}
