import { sql } from 'kysely';
import type { DbOrTx } from '../../db/database.ts';

/** The admin panel's reads of users (the admin module writes no table of its own). */

/** An ILIKE pattern matching `search` literally anywhere (% _ and \ escaped). */
const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

export async function userExists(db: DbOrTx, id: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

export async function findRole(db: DbOrTx, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('users').select('role').where('id', '=', userId).executeTakeFirst();
  return row?.role;
}

/**
 * One page of users with their subscription and how many instances count against it, newest first;
 * `search` matches user name or e-mail literally (% _ and \ are escaped).
 */
export async function findUsersPage(db: DbOrTx, options: { search: string; limit: number; offset: number }) {
  const pattern = likePattern(options.search);
  let base = db.selectFrom('users').innerJoin('subscriptions', 'subscriptions.user_id', 'users.id');
  if (options.search) {
    base = base.where((eb) =>
      eb.or([eb(sql`users.username`, 'ilike', pattern), eb(sql`users.email`, 'ilike', pattern)]),
    );
  }
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    base
      .selectAll('subscriptions')
      .select((eb) => [
        'users.id',
        'users.username',
        'users.email',
        'users.role',
        'users.created_at as user_created_at',
        eb
          .selectFrom('instances')
          .select((ib) => ib.fn.countAll<string>().as('c'))
          .whereRef('instances.user_id', '=', 'users.id')
          .where('instances.status', '<>', 'deleting')
          .as('instances_used'),
      ])
      .orderBy('users.created_at', 'desc')
      .orderBy('users.id')
      .limit(options.limit)
      .offset(options.offset)
      .execute(),
  ]);
  return { rows, total: Number(count.n) };
}

/** One page of users' names and e-mails, sorted by name; `search` matches names or e-mail literally. */
export async function findUserSummariesPage(
  db: DbOrTx,
  options: { search: string; limit: number; offset: number },
) {
  const pattern = likePattern(options.search);
  let base = db.selectFrom('users');
  if (options.search) {
    base = base.where((eb) =>
      eb.or([
        eb('first_name', 'ilike', pattern),
        eb('last_name', 'ilike', pattern),
        eb('email', 'ilike', pattern),
      ]),
    );
  }
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    base
      .select(['id', 'first_name', 'last_name', 'email', 'role'])
      .orderBy('last_name')
      .orderBy('first_name')
      .orderBy('email')
      .limit(options.limit)
      .offset(options.offset)
      .execute(),
  ]);
  return { rows, total: Number(count.n) };
}
