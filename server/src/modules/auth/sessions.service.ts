import type { DbOrTx } from '../../db/database.ts';
import { UnauthorizedError, ValidationError } from '../../lib/errors.ts';
import type { NotificationInput } from '../notifications/notifications.service.ts';
import { type AuthContext, type AuthDeps, hashSecret } from './auth.context.ts';
import type { AuthResult, ChangePasswordBody, LoginBody, SessionTokens } from './auth.schemas.ts';
import { dummyHash, hashPassword, verifyPassword } from './passwords.ts';
import {
  findRefreshToken,
  revokeRefreshFamily,
  revokeUserRefreshTokens,
  rotateRefreshToken,
} from './sessions.repository.ts';
import { bumpTokenVersion, findUserById, findUserByLogin, updateUser } from './users.repository.ts';

const INVALID_LOGIN = 'Invalid email/username or password';
const INVALID_REFRESH = 'Invalid or expired refresh token';

const PASSWORD_CHANGED: NotificationInput = {
  type: 'security',
  title: 'Password changed',
  message:
    'The password of your account was just changed. If this was not you, reset your password now and contact support.',
};

/**
 * Sessions: signing in, refreshing (rotation, with reuse detection) and signing out, and the password
 * change that ends every session of the user (also used by the password reset).
 */
export function createSessions({ db, now, versions, notifications }: AuthDeps, ctx: AuthContext) {
  /**
   * Stores a new password inside `trx` and ends every session of the user: the token version moves on
   * (earlier access tokens die, on commit every server process hears it and closes the user's streams)
   * and every refresh token is revoked. The user gets a "password changed" notification. The caller
   * calls `passwordCommitted` once `trx` has committed.
   */
  async function setPassword(trx: DbOrTx, userId: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(password);
    await updateUser(trx, userId, { password_hash: passwordHash });
    const version = await bumpTokenVersion(trx, userId);
    if (version === undefined) throw new UnauthorizedError('Account no longer exists');
    await revokeUserRefreshTokens(trx, userId, now());
    await notifications.notify(userId, PASSWORD_CHANGED, trx);
    await notifications.signalSignedOut(userId, version, trx);
  }

  /** After a committed setPassword: this process stops trusting its cached token version at once. */
  function passwordCommitted(userId: string): void {
    versions.forget(userId);
  }

  return {
    async login({ emailOrUsername, password }: LoginBody): Promise<AuthResult> {
      const row = await findUserByLogin(db, emailOrUsername);
      const ok = await verifyPassword(row?.password_hash ?? (await dummyHash()), password);
      if (!row || !ok) throw new UnauthorizedError(INVALID_LOGIN);
      return ctx.session(row);
    },

    /**
     * Changes the password given the current one. Every session of the user ends (all other devices are
     * signed out, their streams close); the answer is a fresh pair for the caller's own session.
     */
    async changePassword(userId: string, body: ChangePasswordBody): Promise<SessionTokens> {
      const row = await findUserById(db, userId);
      if (!row) throw new UnauthorizedError('Account no longer exists');
      if (!(await verifyPassword(row.password_hash, body.currentPassword))) {
        throw new ValidationError('Current password is incorrect', {
          fieldErrors: { currentPassword: ['Current password is incorrect'] },
        });
      }
      await db.transaction().execute((trx) => setPassword(trx, userId, body.newPassword));
      passwordCommitted(userId);
      // The caller's own session goes on with a new pair at the new version; every other one is over.
      const after = await findUserById(db, userId);
      if (!after) throw new UnauthorizedError('Account no longer exists');
      return ctx.issueTokens(after);
    },

    /**
     * Exchanges a refresh token for a new pair (rotation). Using a token that was already exchanged
     * revokes its whole family: whoever holds the newer tokens of that sign-in is signed out too.
     */
    async refresh(refreshToken: string): Promise<SessionTokens> {
      const tokenHash = hashSecret(refreshToken);
      const result = await db.transaction().execute(async (trx) => {
        const rotated = await rotateRefreshToken(trx, tokenHash, now());
        if (!rotated) return undefined;
        const user = await findUserById(trx, rotated.user_id);
        if (!user) return undefined;
        return ctx.issueTokens(user, rotated.family_id, trx);
      });
      if (result) return result;
      const known = await findRefreshToken(db, tokenHash);
      if (known?.rotated_at && !known.revoked_at) await revokeRefreshFamily(db, known.family_id, now());
      throw new UnauthorizedError(INVALID_REFRESH);
    },

    /** Signs one session out: its refresh token family is revoked. Unknown tokens are ignored. */
    async logout(refreshToken: string): Promise<void> {
      const known = await findRefreshToken(db, hashSecret(refreshToken));
      if (known) await revokeRefreshFamily(db, known.family_id, now());
    },

    setPassword,
    passwordCommitted,
  };
}
