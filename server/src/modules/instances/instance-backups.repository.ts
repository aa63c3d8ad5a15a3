import { sql } from 'kysely';
import type { DbOrTx } from '../../db/database.ts';
import type { InstanceBackupRow, StoredBackupPart } from '../../db/tables/instances.ts';

/** The instance_backups table (all of its SQL). */

export async function insertBackup(
  db: DbOrTx,
  row: {
    id: string;
    instanceId: string;
    kind: 'scheduled' | 'manual';
    name: string;
    note: string;
    location: 'local' | 's3';
    createdAt?: Date;
  },
): Promise<InstanceBackupRow> {
  return db
    .insertInto('instance_backups')
    .values({
      id: row.id,
      instance_id: row.instanceId,
      kind: row.kind,
      name: row.name,
      note: row.note,
      status: 'running',
      step: 'Waiting for its turn',
      location: row.location,
      ...(row.createdAt && { created_at: row.createdAt }),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A backup recovered from storage alone (platform recovery): complete, as its manifest says. */
export async function insertRecoveredBackup(
  db: DbOrTx,
  row: Omit<InstanceBackupRow, 'bytes' | 'size' | 'parts' | 'facts' | 'step' | 'error' | 'status'> & {
    size: number;
    parts: StoredBackupPart[];
    facts: Record<string, number>;
  },
): Promise<void> {
  await db
    .insertInto('instance_backups')
    .values({
      id: row.id,
      instance_id: row.instance_id,
      kind: row.kind,
      name: row.name,
      note: row.note,
      status: 'complete',
      step: null,
      location: row.location,
      bytes: row.parts.reduce((sum, p) => sum + p.plainSize, 0),
      size: row.size,
      parts: JSON.stringify(row.parts),
      facts: JSON.stringify(row.facts),
      created_at: row.created_at,
      completed_at: row.completed_at,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** The instance's backup `id` (undefined for another instance's). */
export function findBackup(db: DbOrTx, instanceId: string, id: string) {
  return db
    .selectFrom('instance_backups')
    .selectAll()
    .where('instance_id', '=', instanceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Newest first. */
export function findBackupsOf(db: DbOrTx, instanceId: string) {
  return db
    .selectFrom('instance_backups')
    .selectAll()
    .where('instance_id', '=', instanceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export function findLatestComplete(db: DbOrTx, instanceId: string) {
  return db
    .selectFrom('instance_backups')
    .selectAll()
    .where('instance_id', '=', instanceId)
    .where('status', '=', 'complete')
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function updateBackup(
  db: DbOrTx,
  id: string,
  patch: {
    status?: InstanceBackupRow['status'];
    step?: string | null;
    error?: string | null;
    bytes?: number;
    size?: number;
    parts?: StoredBackupPart[];
    facts?: Record<string, number>;
    completedAt?: Date;
  },
  only: { status?: InstanceBackupRow['status'] } = {},
): Promise<InstanceBackupRow | undefined> {
  let query = db
    .updateTable('instance_backups')
    .set({
      ...(patch.status !== undefined && { status: patch.status }),
      ...(patch.step !== undefined && { step: patch.step }),
      ...(patch.error !== undefined && { error: patch.error }),
      ...(patch.bytes !== undefined && { bytes: patch.bytes }),
      ...(patch.size !== undefined && { size: patch.size }),
      ...(patch.parts !== undefined && { parts: JSON.stringify(patch.parts) }),
      ...(patch.facts !== undefined && { facts: JSON.stringify(patch.facts) }),
      ...(patch.completedAt !== undefined && { completed_at: patch.completedAt }),
    })
    .where('id', '=', id);
  if (only.status) query = query.where('status', '=', only.status);
  return query.returningAll().executeTakeFirst();
}

export async function deleteBackupRow(db: DbOrTx, id: string): Promise<boolean> {
  const result = await db.deleteFrom('instance_backups').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Backups still `running` with no job left to finish them (their server was killed): to clean up. */
export async function findOrphanedRunning(db: DbOrTx): Promise<InstanceBackupRow[]> {
  const { rows } = await sql<InstanceBackupRow>`
    select b.* from instance_backups b
     where b.status = 'running'
       and not exists (select 1 from graphile_worker._private_jobs j
                          join graphile_worker._private_tasks t on t.id = j.task_id
                        where t.identifier = 'instance.backup'
                          and j.payload->>'backupId' = b.id and j.attempts < j.max_attempts)`.execute(db);
  return rows;
}

/**
 * Backups past their plan's days: complete or failed ones created before `now - days` of their owner's
 * plan, except each instance's newest complete backup (an instance always keeps one to come back from).
 * `daysOf` answers the days for a plan id.
 */
export async function findExpired(
  db: DbOrTx,
  now: Date,
  days: { starter: number; pro: number },
): Promise<InstanceBackupRow[]> {
  const { rows } = await sql<InstanceBackupRow>`
    select b.* from instance_backups b
      join instances i on i.id = b.instance_id
      left join subscriptions s on s.user_id = i.user_id
     where b.status in ('complete', 'failed')
       and b.created_at < ${now}::timestamptz - make_interval(days =>
             case when s.plan = 'pro' then ${days.pro}::int else ${days.starter}::int end)
       and b.id <> coalesce((select n.id from instance_backups n
                              where n.instance_id = b.instance_id and n.status = 'complete'
                              order by n.created_at desc limit 1), '')
     order by b.created_at`.execute(db);
  return rows;
}

/** Minutes after midnight (UTC) of an instance's daily backup: spread over the day by its id. */
const SLOT = sql<number>`(('x' || substr(md5(i.id::text), 1, 8))::bit(32)::bigint % 1440)::int`;

/**
 * Deployed, running instances of `types` whose daily slot (SLOT) has passed today and that have had no
 * scheduled backup since that moment.
 */
export async function findDueForSchedule(db: DbOrTx, now: Date, types: readonly string[]) {
  const { rows } = await sql<{ id: string; user_id: string }>`
    select i.id, i.user_id from instances i
      cross join lateral (select date_trunc('day', ${now}::timestamptz, 'UTC')
                                 + make_interval(mins => ${SLOT}) as at) slot
     where i.status = 'running' and i.deployed_at is not null and i.type = any(${[...types]}::text[])
       and slot.at <= ${now}::timestamptz
       and not exists (select 1 from instance_backups b
                        where b.instance_id = i.id and b.kind = 'scheduled' and b.created_at >= slot.at)`.execute(
    db,
  );
  return rows;
}

/**
 * Records the use of a backup download link; false when it was used before (the primary key lets only
 * one of two racing uses through, whichever server process they reach). Uses of links that have expired
 * anyway are forgotten on the way.
 */
export async function claimDownloadLink(
  db: DbOrTx,
  use: { linkId: string; backupId: string; expiresAt: Date },
  now: Date,
): Promise<boolean> {
  await db.deleteFrom('backup_download_uses').where('expires_at', '<', now).execute();
  const inserted = await db
    .insertInto('backup_download_uses')
    .values({ link_id: use.linkId, backup_id: use.backupId, expires_at: use.expiresAt })
    .onConflict((oc) => oc.column('link_id').doNothing())
    .returning('link_id')
    .executeTakeFirst();
  return inserted !== undefined;
}
