import type { DbOrTx } from '../../db/database.ts';
import { UnauthorizedError } from '../../lib/errors.ts';
import type { AccessClaims, TokenService } from '../../lib/tokens.ts';
import { findTokenVersion } from './users.repository.ts';

/**
 * The current token version of each user, as cheap as possible: an in-process cache while this
 * process's LISTEN connection is up (every bump is announced over NOTIFY, see notifications.hub.ts),
 * otherwise one primary-key read per check.
 */
export interface TokenVersions {
  /** The user's current version; undefined when the account is gone. */
  current(userId: string): Promise<number | undefined>;
  /** The user's version changed (a NOTIFY, or this process's own commit): read it again next time. */
  forget(userId: string): void;
  /**
   * Whether bumps reach this process right now. Turning it on or off drops the cache (bumps may have
   * been missed while the LISTEN connection was away).
   */
  setLive(live: boolean): void;
}

/** More users than this in the cache and it starts again (keeps memory bounded). */
const MAX_CACHED = 100_000;

export function createTokenVersions(db: DbOrTx): TokenVersions {
  const cache = new Map<string, number>();
  let live = false;
  // Bumped by every forget/setLive: a read that started before one must not fill the cache after it.
  let epoch = 0;
  return {
    async current(userId) {
      if (live) {
        const cached = cache.get(userId);
        if (cached !== undefined) return cached;
      }
      const started = epoch;
      const version = await findTokenVersion(db, userId);
      if (live && version !== undefined && started === epoch) {
        if (cache.size >= MAX_CACHED) cache.clear();
        cache.set(userId, version);
      }
      return version;
    },
    forget(userId) {
      epoch += 1;
      cache.delete(userId);
    },
    setLive(value) {
      epoch += 1;
      live = value;
      cache.clear();
    },
  };
}

/**
 * The access-token check of requireUser and requireAdmin: a valid signature, and the token version the
 * token was signed at is still the user's (a password change or reset bumps it).
 */
export function createAccessVerifier(tokens: Pick<TokenService, 'verify'>, versions: TokenVersions) {
  return async (token: string): Promise<AccessClaims> => {
    const claims = await tokens.verify(token);
    const current = await versions.current(claims.id);
    if (current === undefined) throw new UnauthorizedError('Account no longer exists');
    if (current !== claims.tokenVersion) throw new UnauthorizedError('Session expired, please sign in again');
    return claims;
  };
}
