import type { DbOrTx } from '../../db/database.ts';
import { isSessionLive } from './sessions.repository.ts';
import type { TokenVersions } from './token-versions.ts';

/**
 * Whether something handed out to a signed-in user (a backup download link) still holds: the user's
 * token version is still the one it was made at (a password change or reset moves it on), and the
 * sign-in it was made in was not signed out (signing out revokes that sign-in's refresh tokens; so does
 * a password change). Every server process answers alike: both are read from the database (token
 * versions through the cache that NOTIFY keeps current).
 */
export interface SessionChecks {
  /** The user's current token version; undefined when the account is gone. */
  tokenVersion(userId: string): Promise<number | undefined>;
  /** Whether the sign-in (a refresh-token family) still has a refresh token that is not revoked. */
  sessionLive(userId: string, sessionId: string): Promise<boolean>;
}

export function createSessionChecks(
  db: DbOrTx,
  versions: Pick<TokenVersions, 'current'>,
  now: () => Date,
): SessionChecks {
  return {
    tokenVersion: (userId) => versions.current(userId),
    sessionLive: (userId, sessionId) => isSessionLive(db, userId, sessionId, now()),
  };
}
