import { type ExpressionBuilder, sql } from 'kysely';
import type { Database, DbOrTx } from '../../../db/database.ts';
import type {
  DeletedInstance,
  InstanceBackupRow,
  InstanceRow,
  StoredBackupPart,
} from '../../../db/tables/instances.ts';

/**
 * The instance_backups table (all of its SQL), and what the sweep of the backup store remembers
 * (backup_store_orphans, backup_store_sweeps).
 */

/** The owner and type of a backup, read from its instance as it is recorded. */
const ownerOf = (eb: ExpressionBuilder<Database, 'instance_backups'>, instanceId: string) => ({
  user_id: eb.selectFrom('instances').select('user_id').where('id', '=', instanceId),
  instance_type: eb.selectFrom('instances').select('type').where('id', '=', instanceId),
});

/** The jobs that read a backup's files (a restore, a recovery, a restore into a new instance). */
const RESTORE_TASKS = ['instance.restore', 'instance.recover', 'instance.restore-into-new'];

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
    .values((eb) => ({
      id: row.id,
      instance_id: row.instanceId,
      ...ownerOf(eb, row.instanceId),
      kind: row.kind,
      name: row.name,
      note: row.note,
      status: 'running',
      step: 'Waiting for its turn',
      location: row.location,
      ...(row.createdAt && { created_at: row.createdAt }),
    }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A backup recovered from storage alone (platform recovery): complete, as its manifest says. */
export async function insertRecoveredBackup(
  db: DbOrTx,
  row: Omit<
    InstanceBackupRow,
    | 'bytes'
    | 'size'
    | 'parts'
    | 'facts'
    | 'step'
    | 'error'
    | 'status'
    | 'user_id'
    | 'instance_type'
    | 'deleted_instance'
  > & {
    size: number;
    parts: StoredBackupPart[];
    facts: Record<string, number>;
  },
): Promise<void> {
  await db
    .insertInto('instance_backups')
    .values((eb) => ({
      id: row.id,
      instance_id: row.instance_id,
      ...ownerOf(eb, row.instance_id),
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
    }))
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

/** How long the owner's plan keeps a backup (the days the admin sets per plan). */
const keptFor = (days: { starter: number; pro: number }) =>
  sql`make_interval(days => case when s.plan = 'pro' then ${days.pro}::int else ${days.starter}::int end)`;

/**
 * Backups past their plan's days: complete or failed ones created before `now - days` of their owner's
 * plan, except each existing instance's newest complete backup (an instance always keeps one to come
 * back from); a deleted instance's backups all go once their days have passed. A backup a restore job
 * is reading (or waits to read) stays until that job is done.
 */
export async function findExpired(
  db: DbOrTx,
  now: Date,
  days: { starter: number; pro: number },
): Promise<InstanceBackupRow[]> {
  const { rows } = await sql<InstanceBackupRow>`
    select b.* from instance_backups b
      left join subscriptions s on s.user_id = b.user_id
     where b.status in ('complete', 'failed')
       and b.created_at < ${now}::timestamptz - ${keptFor(days)}
       and (not exists (select 1 from instances i where i.id = b.instance_id)
            or b.id <> coalesce((select n.id from instance_backups n
                                  where n.instance_id = b.instance_id and n.status = 'complete'
                                  order by n.created_at desc limit 1), ''))
       and not exists (select 1 from graphile_worker._private_jobs j
                          join graphile_worker._private_tasks t on t.id = j.task_id
                        where t.identifier = any(${RESTORE_TASKS}::text[])
                          and j.payload->>'backupId' = b.id and j.attempts < j.max_attempts)
     order by b.created_at`.execute(db);
  return rows;
}

/**
 * Once its instance is deleted (in the delete's transaction), its backups keep what a restore into a
 * new instance needs; they stay until their plan's days have passed.
 */
export async function keepBackupsOfDeleted(
  db: DbOrTx,
  instanceId: string,
  kept: DeletedInstance,
): Promise<void> {
  await db
    .updateTable('instance_backups')
    .set({ deleted_instance: JSON.stringify(kept) })
    .where('instance_id', '=', instanceId)
    .execute();
}

/** A complete backup of a deleted instance of the user, and when its plan's days end. */
export type DeletedInstanceBackupRow = InstanceBackupRow & {
  deleted_instance: DeletedInstance;
  kept_until: Date;
};

/** The user's complete backups of deleted instances, newest first, each with the day it goes. */
export async function findBackupsOfDeleted(
  db: DbOrTx,
  userId: string,
  days: { starter: number; pro: number },
  backupId?: string,
): Promise<DeletedInstanceBackupRow[]> {
  const { rows } = await sql<DeletedInstanceBackupRow>`
    select b.*, b.created_at + ${keptFor(days)} as kept_until
      from instance_backups b
      left join subscriptions s on s.user_id = b.user_id
     where b.user_id = ${userId} and b.deleted_instance is not null and b.status = 'complete'
       and not exists (select 1 from instances i where i.id = b.instance_id)
       ${backupId === undefined ? sql`` : sql`and b.id = ${backupId}`}
     order by b.created_at desc, b.id desc`.execute(db);
  return rows;
}

/**
 * The backup a restore into `row` reads: one of the instance itself, or a complete backup of a deleted
 * instance of the same owner and type (a restore into a new instance).
 */
export function findRestorable(db: DbOrTx, row: Pick<InstanceRow, 'id' | 'user_id' | 'type'>, id: string) {
  return db
    .selectFrom('instance_backups')
    .selectAll()
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('instance_id', '=', row.id),
        eb.and([
          eb('user_id', '=', row.user_id),
          eb('instance_type', '=', row.type),
          eb('deleted_instance', 'is not', null),
        ]),
      ]),
    )
    .executeTakeFirst();
}

/** Every backup record's place and files, for the sweep of the store. */
export function findBackupPlaces(db: DbOrTx) {
  return db.selectFrom('instance_backups').select(['id', 'instance_id', 'status', 'parts']).execute();
}

/**
 * Remembers the orphan places found now (those found before keep their first time) and forgets those
 * no longer found; answers each with when it was first found.
 */
export async function recordOrphans(
  db: DbOrTx,
  prefixes: string[],
  now: Date,
): Promise<{ prefix: string; found_at: Date }[]> {
  if (prefixes.length > 0)
    await db
      .insertInto('backup_store_orphans')
      .values(prefixes.map((prefix) => ({ prefix, found_at: now })))
      .onConflict((oc) => oc.column('prefix').doNothing())
      .execute();
  let gone = db.deleteFrom('backup_store_orphans');
  if (prefixes.length > 0) gone = gone.where('prefix', 'not in', prefixes);
  await gone.execute();
  return db.selectFrom('backup_store_orphans').selectAll().orderBy('prefix').execute();
}

export async function forgetOrphan(db: DbOrTx, prefix: string): Promise<void> {
  await db.deleteFrom('backup_store_orphans').where('prefix', '=', prefix).execute();
}

/** Whether a backup record names the instance and backup id (the check before an orphan goes). */
export async function backupRecorded(db: DbOrTx, instanceId: string, backupId: string): Promise<boolean> {
  const found = await db
    .selectFrom('instance_backups')
    .select('id')
    .where('id', '=', backupId)
    .where('instance_id', '=', instanceId)
    .executeTakeFirst();
  return found !== undefined;
}

export async function recordSweep(
  db: DbOrTx,
  sweep: { sweptAt: Date; orphans: number; missing: number; removed: number },
): Promise<void> {
  const values = {
    swept_at: sweep.sweptAt,
    orphans: sweep.orphans,
    missing: sweep.missing,
    removed: sweep.removed,
  };
  await db
    .insertInto('backup_store_sweeps')
    .values(values)
    .onConflict((oc) => oc.column('id').doUpdateSet(values))
    .execute();
}

export function findLastSweep(db: DbOrTx) {
  return db.selectFrom('backup_store_sweeps').selectAll().executeTakeFirst();
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
