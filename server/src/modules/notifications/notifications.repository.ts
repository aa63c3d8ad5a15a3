import { sql } from 'kysely';
import type { DbOrTx } from '../../db/database.ts';
import type { NewNotificationRow, NotificationRow } from '../../db/tables/notifications.ts';
import {
  type InstanceSignal,
  NOTIFICATIONS_CHANNEL,
  type NotificationSignal,
  type SessionSignal,
  type UsageSignal,
} from './notifications.hub.ts';

export async function insertNotification(db: DbOrTx, row: NewNotificationRow): Promise<NotificationRow> {
  return db.insertInto('notifications').values(row).returningAll().executeTakeFirstOrThrow();
}

/**
 * One notification for each of `userIds`, each signalled to the listeners (on commit when inside a
 * transaction): one statement whatever the number of users. Answers how many were created.
 */
export async function insertNotificationsFor(
  db: DbOrTx,
  userIds: readonly string[],
  input: Omit<NewNotificationRow, 'user_id'>,
): Promise<number> {
  if (userIds.length === 0) return 0;
  const { rows } = await sql<{ n: string }>`
    with created as (
      insert into notifications (user_id, type, title, message)
      select u, ${input.type}, ${input.title}, ${input.message} from unnest(${userIds}::uuid[]) as u
      returning id, user_id
    )
    select count(pg_notify(${NOTIFICATIONS_CHANNEL}, json_build_object('userId', user_id, 'id', id)::text)) as n
    from created`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** Wakes every server process's listener; inside a transaction it fires on commit. */
export async function signalNotification(
  db: DbOrTx,
  signal: NotificationSignal | InstanceSignal | SessionSignal | UsageSignal,
): Promise<void> {
  await sql`select pg_notify(${NOTIFICATIONS_CHANNEL}, ${JSON.stringify(signal)})`.execute(db);
}

/** Newest first. */
export async function findNotifications(
  db: DbOrTx,
  userId: string,
  limit: number,
): Promise<NotificationRow[]> {
  return db
    .selectFrom('notifications')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function findNotification(
  db: DbOrTx,
  userId: string,
  id: string,
): Promise<NotificationRow | undefined> {
  return db
    .selectFrom('notifications')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The user's notifications after `afterId` in (created_at, id) order, oldest first: a stream replay. */
export async function findNotificationsAfter(
  db: DbOrTx,
  userId: string,
  afterId: string,
  limit: number,
): Promise<NotificationRow[]> {
  return db
    .selectFrom('notifications')
    .selectAll()
    .where('user_id', '=', userId)
    .where(
      sql<boolean>`(created_at, id) > (select created_at, id from notifications where id = ${afterId} and user_id = ${userId})`,
    )
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
}

export async function countUnread(db: DbOrTx, userId: string): Promise<number> {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('read', '=', false)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Marks the user's unread notifications read: all of them, or those of `ids` (others' ids are ignored). */
export async function updateNotificationsRead(
  db: DbOrTx,
  userId: string,
  ids: string[] | 'all',
): Promise<number> {
  let query = db
    .updateTable('notifications')
    .set({ read: true })
    .where('user_id', '=', userId)
    .where('read', '=', false);
  if (ids !== 'all') query = query.where('id', 'in', ids);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Deletes one of the user's notifications (`id`) or all of them; answers how many went. */
export async function deleteNotifications(db: DbOrTx, userId: string, id?: string): Promise<number> {
  let query = db.deleteFrom('notifications').where('user_id', '=', userId);
  if (id) query = query.where('id', '=', id);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The ids of the platform's admins (who hear of what needs the operator). */
export async function findAdminIds(db: DbOrTx): Promise<string[]> {
  const rows = await db.selectFrom('users').select('id').where('role', '=', 'admin').execute();
  return rows.map((row) => row.id);
}
