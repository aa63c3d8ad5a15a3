import type { DbOrTx } from '../../db/database.ts';
import type { NewRefreshTokenRow, RefreshTokenRow } from '../../db/tables/sessions.ts';

export async function insertRefreshToken(db: DbOrTx, row: NewRefreshTokenRow): Promise<void> {
  await db.insertInto('refresh_tokens').values(row).execute();
}

/**
 * Marks a live refresh token rotated and answers it; undefined when it is unknown, rotated, revoked or
 * expired. The UPDATE's row lock lets only one of two racing refreshes through.
 */
export async function rotateRefreshToken(
  db: DbOrTx,
  tokenHash: string,
  now: Date,
): Promise<Pick<RefreshTokenRow, 'user_id' | 'family_id'> | undefined> {
  return db
    .updateTable('refresh_tokens')
    .set({ rotated_at: now })
    .where('token_hash', '=', tokenHash)
    .where('rotated_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['user_id', 'family_id'])
    .executeTakeFirst();
}

export async function findRefreshToken(db: DbOrTx, tokenHash: string): Promise<RefreshTokenRow | undefined> {
  return db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Revokes every token of one sign-in (its family). */
export async function revokeRefreshFamily(db: DbOrTx, familyId: string, now: Date): Promise<void> {
  await db
    .updateTable('refresh_tokens')
    .set({ revoked_at: now })
    .where('family_id', '=', familyId)
    .where('revoked_at', 'is', null)
    .execute();
}

/**
 * Whether a sign-in (a refresh-token family of the user) goes on: one of its refresh tokens is neither
 * revoked (sign-out, password change, reuse) nor expired.
 */
export async function isSessionLive(
  db: DbOrTx,
  userId: string,
  familyId: string,
  now: Date,
): Promise<boolean> {
  const row = await db
    .selectFrom('refresh_tokens')
    .select('id')
    .where('family_id', '=', familyId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Revokes every refresh token of the user (password change or reset). */
export async function revokeUserRefreshTokens(db: DbOrTx, userId: string, now: Date): Promise<void> {
  await db
    .updateTable('refresh_tokens')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Forgets the user's refresh tokens that expired (kept until then to recognise reuse). */
export async function deleteExpiredRefreshTokens(db: DbOrTx, userId: string, now: Date): Promise<void> {
  await db
    .deleteFrom('refresh_tokens')
    .where('user_id', '=', userId)
    .where('expires_at', '<=', now)
    .execute();
}

export async function insertSetupToken(db: DbOrTx, tokenHash: string): Promise<void> {
  await db.insertInto('setup_tokens').values({ token_hash: tokenHash }).execute();
}

/** Uses up a setup token; false when there is none with this hash. */
export async function claimSetupToken(db: DbOrTx, tokenHash: string): Promise<boolean> {
  const row = await db
    .deleteFrom('setup_tokens')
    .where('token_hash', '=', tokenHash)
    .returning('token_hash')
    .executeTakeFirst();
  return row !== undefined;
}

export async function deleteSetupTokens(db: DbOrTx): Promise<void> {
  await db.deleteFrom('setup_tokens').execute();
}
