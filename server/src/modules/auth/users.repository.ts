import type { Transaction } from 'kysely';
import { sql } from 'kysely';
import type { Database, DbOrTx } from '../../db/database.ts';
import { preparedQuery } from '../../db/prepared-query.ts';
import type { NewUserRow, UserRow, UserRowUpdate } from '../../db/tables/users.ts';

// Read on every profile answer: built and compiled once (db/prepared-query.ts).
const userById = preparedQuery((db, id: string) => db.selectFrom('users').selectAll().where('id', '=', id));

export async function findUserById(db: DbOrTx, id: string): Promise<UserRow | undefined> {
  return (await userById(db, id))[0];
}

/** A user row with the user's affiliate status: the affiliate profile's status, or null without one. */
export type UserWithAffiliateStatus = UserRow & { affiliate_status: 'active' | 'suspended' | null };

// The profile answer's read: the user and the affiliate status (affiliates.service's statusOf: the
// status of the user's one affiliate profile) in one round trip, built and compiled once.
const userWithAffiliateStatus = preparedQuery((db, id: string) =>
  db
    .selectFrom('users')
    .selectAll('users')
    .select((eb) =>
      eb
        .selectFrom('affiliates')
        .select('affiliates.status')
        .whereRef('affiliates.user_id', '=', 'users.id')
        .as('affiliate_status'),
    )
    .where('users.id', '=', id),
);

export async function findUserWithAffiliateStatus(
  db: DbOrTx,
  id: string,
): Promise<UserWithAffiliateStatus | undefined> {
  return (await userWithAffiliateStatus(db, id))[0];
}

/** Locks the user's row until the transaction ends (read-then-write without races). */
export async function lockUserForUpdate(
  trx: Transaction<Database>,
  id: string,
): Promise<UserRow | undefined> {
  return trx.selectFrom('users').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Case-insensitive match on e-mail. */
export async function findUserByEmail(db: DbOrTx, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

/** Case-insensitive match on e-mail or username. */
export async function findUserByLogin(db: DbOrTx, emailOrUsername: string): Promise<UserRow | undefined> {
  const login = emailOrUsername.toLowerCase();
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb.or([eb(sql`lower(email)`, '=', login), eb(sql`lower(username)`, '=', login)]))
    .executeTakeFirst();
}

/** Which of the given identity fields another user already holds. */
export async function findTakenIdentity(
  db: DbOrTx,
  identity: { username: string; email?: string },
  exceptUserId?: string,
): Promise<{ username: boolean; email: boolean }> {
  const rows = await db
    .selectFrom('users')
    .select(['username', 'email'])
    .where((eb) => {
      const same = [eb(sql`lower(username)`, '=', identity.username.toLowerCase())];
      if (identity.email) same.push(eb(sql`lower(email)`, '=', identity.email.toLowerCase()));
      const match = eb.or(same);
      return exceptUserId ? eb.and([match, eb('id', '<>', exceptUserId)]) : match;
    })
    .execute();
  return {
    username: rows.some((r) => r.username.toLowerCase() === identity.username.toLowerCase()),
    email: rows.some((r) => r.email.toLowerCase() === identity.email?.toLowerCase()),
  };
}

export async function insertUser(db: DbOrTx, user: NewUserRow): Promise<UserRow> {
  return db.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
}

export async function updateUser(db: DbOrTx, id: string, patch: UserRowUpdate): Promise<UserRow | undefined> {
  return db
    .updateTable('users')
    .set({ ...patch, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function setRoleByLogin(db: DbOrTx, emailOrUsername: string, role: 'user' | 'admin') {
  const user = await findUserByLogin(db, emailOrUsername);
  if (!user) return undefined;
  return updateUser(db, user.id, { role });
}

/** The user's token version (primary-key read); undefined when the user is gone. */
// Read on every signed-in request while the token-version cache is off (modules/auth/token-versions.ts).
const tokenVersionById = preparedQuery((db, id: string) =>
  db.selectFrom('users').select('token_version').where('id', '=', id),
);

export async function findTokenVersion(db: DbOrTx, id: string): Promise<number | undefined> {
  return (await tokenVersionById(db, id))[0]?.token_version;
}

/** Bumps the user's token version (every earlier access token dies) and answers the new one. */
export async function bumpTokenVersion(db: DbOrTx, id: string): Promise<number | undefined> {
  const row = await db
    .updateTable('users')
    .set((eb) => ({ token_version: eb('token_version', '+', 1), updated_at: new Date() }))
    .where('id', '=', id)
    .returning('token_version')
    .executeTakeFirst();
  return row?.token_version;
}

/** Whether any account is an admin. */
export async function adminExists(db: DbOrTx): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('role', '=', 'admin')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
