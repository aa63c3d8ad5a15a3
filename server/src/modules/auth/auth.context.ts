import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Db, DbOrTx } from '../../db/database.ts';
import type { UserRow } from '../../db/tables/users.ts';
import { ConflictError } from '../../lib/errors.ts';
import { ACCESS_TOKEN_TTL_SECONDS, type TokenService } from '../../lib/tokens.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { Subscription } from '../subscriptions/subscriptions.schemas.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import type { AuthResult, SessionTokens, User } from './auth.schemas.ts';
import { deleteExpiredRefreshTokens, insertRefreshToken } from './sessions.repository.ts';
import type { TokenVersions } from './token-versions.ts';

export interface AuthDeps {
  db: Db;
  now: () => Date;
  tokens: Pick<TokenService, 'sign'>;
  /** This process's token versions: told of its own bumps at once (others hear them over NOTIFY). */
  versions: Pick<TokenVersions, 'forget'>;
  subscriptions: Pick<SubscriptionsService, 'startTrial' | 'get'>;
  notifications: Pick<NotificationsService, 'notify' | 'signalSignedOut'>;
  /** The affiliate programme: referral attribution at sign-up, the profile's affiliate status. */
  affiliates?: AffiliateHooks;
}

/** What registration and profiles need of the affiliate programme (modules/affiliates implements it). */
interface AffiliateHooks {
  /** Inside the registration's transaction: records who referred the new user (cookie click or code). */
  attributeSignup(trx: DbOrTx, userId: string, referral: { ref?: string; clickId?: string }): Promise<void>;
  statusOf(userId: string): Promise<AffiliateStatus>;
}

/** The user's affiliate profile status; null without a profile. */
type AffiliateStatus = 'active' | 'suspended' | null;

/** A refresh token lives this long from its last use (each refresh gives a new one). */
const REFRESH_TOKEN_TTL_DAYS = 30;

/** Only hashes of refresh and setup tokens are stored: a database leak reveals no usable token. */
export const hashSecret = (token: string) => createHash('sha256').update(token).digest('hex');

/** The conflict a taken e-mail or username answers (the e-mail first), if either is taken. */
export function takenError(taken: { username: boolean; email: boolean }): ConflictError | undefined {
  if (taken.email) return new ConflictError('Email is already registered', { field: 'email' });
  if (taken.username) return new ConflictError('Username is already taken', { field: 'username' });
  return undefined;
}

/** Unique-index violations that slipped past the pre-check (two sign-ups racing). */
export function isUniqueViolation(err: unknown): err is { code: string; constraint?: string } {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === '23505';
}

/**
 * What the auth services share (registration.service.ts, sessions.service.ts, profiles.service.ts): the
 * user as the API shows it, and the token pair a sign-in, a refresh or a password change hands out.
 */
export function authContext({ db, now, tokens, subscriptions, affiliates }: AuthDeps) {
  /** The user as the API shows it; the subscription and affiliate status are read unless given. */
  async function toUser(
    row: UserRow,
    known?: Subscription,
    knownAffiliateStatus?: AffiliateStatus,
  ): Promise<User> {
    const [subscription, affiliateStatus] =
      known && knownAffiliateStatus !== undefined
        ? [known, knownAffiliateStatus]
        : await Promise.all([
            known ?? subscriptions.get(row.id),
            knownAffiliateStatus !== undefined
              ? knownAffiliateStatus
              : (affiliates?.statusOf(row.id) ?? null),
          ]);
    return {
      id: row.id,
      username: row.username,
      email: row.email,
      firstName: row.first_name,
      lastName: row.last_name,
      accountType: row.account_type,
      companyName: row.company_name,
      role: row.role,
      avatarUrl: row.avatar_url,
      createdAt: row.created_at.toISOString(),
      affiliateStatus,
      isAffiliate: affiliateStatus !== null,
      subscription,
      instancesUsed: subscription.instancesUsed,
      instancesCount: subscription.instancesUsed,
    };
  }

  /**
   * An access token at the user's token version and a refresh token of `familyId` (a new family: a new
   * sign-in). Only the refresh token's hash is stored.
   */
  async function issueTokens(
    user: { id: string; role: 'user' | 'admin'; token_version: number },
    familyId: string = randomUUID(),
    trx: DbOrTx = db,
  ): Promise<SessionTokens> {
    const refreshToken = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now().getTime() + REFRESH_TOKEN_TTL_DAYS * 86_400_000);
    await insertRefreshToken(trx, {
      user_id: user.id,
      family_id: familyId,
      token_hash: hashSecret(refreshToken),
      expires_at: expiresAt,
    });
    const token = await tokens.sign({
      id: user.id,
      role: user.role,
      tokenVersion: user.token_version,
      sessionId: familyId,
    });
    return {
      token,
      expiresIn: ACCESS_TOKEN_TTL_SECONDS,
      refreshToken,
      refreshTokenExpiresAt: expiresAt.toISOString(),
    };
  }

  return {
    toUser,
    issueTokens,

    /** A new sign-in: a fresh token pair and the user (the user's expired refresh tokens go first). */
    async session(row: UserRow): Promise<AuthResult> {
      await deleteExpiredRefreshTokens(db, row.id, now());
      return { ...(await issueTokens(row)), user: await toUser(row) };
    },
  };
}

export type AuthContext = ReturnType<typeof authContext>;
