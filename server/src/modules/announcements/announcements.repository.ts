import { type SelectQueryBuilder, sql } from 'kysely';
import type { Database, DbOrTx } from '../../db/database.ts';
import type { AnnouncementRow, AnnouncementTable } from '../../db/tables/help-desk.ts';

type Audience = Pick<AnnouncementTable, 'scope' | 'plan' | 'user_id'>;

/**
 * The users an announcement goes to: everyone, those with an active subscription of the plan, or one
 * user; only users who existed when it was sent (`until`).
 */
function audience(db: DbOrTx, who: Audience, until: Date): SelectQueryBuilder<Database, 'users', object> {
  let query = db.selectFrom('users').where('users.created_at', '<=', until);
  if (who.scope === 'single')
    query = query.where('users.id', '=', who.user_id ?? '00000000-0000-0000-0000-000000000000');
  if (who.scope === 'plan')
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('subscriptions')
          .select(sql`1`.as('one'))
          .whereRef('subscriptions.user_id', '=', 'users.id')
          .where('subscriptions.plan', '=', (who.plan ?? 'none') as 'starter')
          .where('subscriptions.status', '=', 'active'),
      ),
    );
  return query;
}

export async function countAudience(db: DbOrTx, who: Audience, until: Date): Promise<number> {
  const { n } = await audience(db, who, until)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** The next `limit` recipients after `cursor`, in id order. */
export async function nextRecipients(
  db: DbOrTx,
  who: Audience,
  until: Date,
  cursor: string | null,
  limit: number,
): Promise<{ id: string; email: string; first_name: string }[]> {
  let query = audience(db, who, until).select(['users.id', 'users.email', 'users.first_name']);
  if (cursor) query = query.where('users.id', '>', cursor);
  return query.orderBy('users.id').limit(limit).execute();
}

export async function insertAnnouncement(
  db: DbOrTx,
  row: Omit<AnnouncementRow, 'id' | 'created_at' | 'delivered' | 'cursor' | 'completed_at'>,
): Promise<AnnouncementRow> {
  return db.insertInto('announcements').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function lockAnnouncement(db: DbOrTx, id: string): Promise<AnnouncementRow | undefined> {
  return db.selectFrom('announcements').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function recordBatch(
  db: DbOrTx,
  id: string,
  batch: { cursor: string | null; delivered: number; done: boolean },
): Promise<void> {
  await db
    .updateTable('announcements')
    .set((eb) => ({
      cursor: batch.cursor,
      delivered: eb('delivered', '+', batch.delivered),
      completed_at: batch.done ? new Date() : null,
    }))
    .where('id', '=', id)
    .execute();
}

export async function userExists(db: DbOrTx, id: string): Promise<boolean> {
  return (await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}
