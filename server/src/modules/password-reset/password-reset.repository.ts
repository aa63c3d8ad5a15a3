import type { DbOrTx } from '../../db/database.ts';
import type {
  NewPasswordResetTokenRow,
  PasswordResetTokenRow,
} from '../../db/tables/password-reset-tokens.ts';

export async function insertResetToken(db: DbOrTx, row: NewPasswordResetTokenRow): Promise<void> {
  await db.insertInto('password_reset_tokens').values(row).execute();
}

/** The token with this hash if it is neither used nor expired at `now`. */
export async function findUsableResetToken(
  db: DbOrTx,
  tokenHash: string,
  now: Date,
): Promise<PasswordResetTokenRow | undefined> {
  return db
    .selectFrom('password_reset_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/**
 * Marks a usable token used and answers its user; undefined when it was used, expired or unknown. The
 * UPDATE's row lock makes it single-use even when two resets race.
 */
export async function claimResetToken(db: DbOrTx, tokenHash: string, now: Date): Promise<string | undefined> {
  const row = await db
    .updateTable('password_reset_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id;
}

/** Makes every outstanding token of the user unusable. */
export async function revokeResetTokens(db: DbOrTx, userId: string, now: Date): Promise<void> {
  await db
    .updateTable('password_reset_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}
