import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, DbOrTx } from '../../db/database.ts';
import type { UserRow } from '../../db/tables/users.ts';
import { ConflictError, NotFoundError, UnauthorizedError, ValidationError } from '../../lib/errors.ts';
import { ACCESS_TOKEN_TTL_SECONDS, type TokenService } from '../../lib/tokens.ts';
import type { NotificationInput, NotificationsService } from '../notifications/notifications.service.ts';
import type { Subscription } from '../subscriptions/subscriptions.schemas.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import type {
  AuthResult,
  ChangePasswordBody,
  LoginBody,
  RegisterBody,
  SessionTokens,
  UpdateProfileBody,
  User,
} from './auth.schemas.ts';
import { dummyHash, hashPassword, verifyPassword } from './passwords.ts';
import {
  claimSetupToken,
  deleteExpiredRefreshTokens,
  deleteSetupTokens,
  findRefreshToken,
  insertRefreshToken,
  revokeRefreshFamily,
  revokeUserRefreshTokens,
  rotateRefreshToken,
} from './sessions.repository.ts';
import type { TokenVersions } from './token-versions.ts';
import {
  adminExists,
  bumpTokenVersion,
  findTakenIdentity,
  findUserByEmail,
  findUserById,
  findUserByLogin,
  findUserWithAffiliateStatus,
  insertUser,
  lockUserForUpdate,
  updateUser,
} from './users.repository.ts';

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
export type AffiliateStatus = 'active' | 'suspended' | null;

/** Where a registration comes from, as the HTTP layer tells it. */
export interface RegistrationOrigin {
  /** The socket's peer is loopback and no proxy forwarded the request: someone on the server itself. */
  local: boolean;
  /** The referral cookie (the visitor's last referral click), if any. */
  referralClick?: string;
}

/** A refresh token lives this long from its last use (each refresh gives a new one). */
const REFRESH_TOKEN_TTL_DAYS = 30;
const INVALID_REFRESH = 'Invalid or expired refresh token';
const INVALID_SETUP_TOKEN = 'Invalid or used setup token';

/** Only hashes of refresh and setup tokens are stored: a database leak reveals no usable token. */
export const hashSecret = (token: string) => createHash('sha256').update(token).digest('hex');

export type AuthService = ReturnType<typeof createAuthService>;

const INVALID_LOGIN = 'Invalid email/username or password';

const WELCOME: NotificationInput = {
  type: 'welcome',
  title: 'Welcome to Berth!',
  message: 'Your 60-minute free trial has started. Deploy your first instance from the dashboard.',
};

const PASSWORD_CHANGED: NotificationInput = {
  type: 'security',
  title: 'Password changed',
  message:
    'The password of your account was just changed. If this was not you, reset your password now and contact support.',
};

function takenError(taken: { username: boolean; email: boolean }): ConflictError | undefined {
  if (taken.email) return new ConflictError('Email is already registered', { field: 'email' });
  if (taken.username) return new ConflictError('Username is already taken', { field: 'username' });
  return undefined;
}

/** Unique-index violations that slipped past the pre-check (two sign-ups racing). */
function isUniqueViolation(err: unknown): err is { code: string; constraint?: string } {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === '23505';
}

export function createAuthService({
  db,
  now,
  tokens,
  versions,
  subscriptions,
  notifications,
  affiliates,
}: AuthDeps) {
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
    const token = await tokens.sign({ id: user.id, role: user.role, tokenVersion: user.token_version });
    return {
      token,
      expiresIn: ACCESS_TOKEN_TTL_SECONDS,
      refreshToken,
      refreshTokenExpiresAt: expiresAt.toISOString(),
    };
  }

  async function session(row: UserRow): Promise<AuthResult> {
    await deleteExpiredRefreshTokens(db, row.id, now());
    return { ...(await issueTokens(row)), user: await toUser(row) };
  }

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
    /**
     * Creates the account, opens its 60-minute trial, and signs it in. While no admin exists, the account
     * becomes the admin when it is registered from the server itself (`origin.local`) or carries a valid
     * setup token (which is then used up); otherwise it is a normal user. A setup token that is not valid
     * (unknown, used, or an admin exists) is refused.
     */
    async register(body: RegisterBody, origin: RegistrationOrigin = { local: false }): Promise<AuthResult> {
      const conflict = takenError(await findTakenIdentity(db, body));
      if (conflict) throw conflict;
      const passwordHash = await hashPassword(body.password);
      try {
        const row = await db.transaction().execute(async (trx) => {
          // Serialises sign-ups so exactly one account can be the first.
          await sql`select pg_advisory_xact_lock(hashtext('berth:first-admin'))`.execute(trx);
          const firstAdmin = !(await adminExists(trx));
          if (body.setupToken && !(firstAdmin && (await claimSetupToken(trx, hashSecret(body.setupToken)))))
            throw new ValidationError(INVALID_SETUP_TOKEN, {
              fieldErrors: { setupToken: [INVALID_SETUP_TOKEN] },
            });
          const admin = firstAdmin && (origin.local || Boolean(body.setupToken));
          // Setup tokens die once an admin exists.
          if (admin) await deleteSetupTokens(trx);
          const user = await insertUser(trx, {
            username: body.username,
            email: body.email,
            password_hash: passwordHash,
            first_name: body.firstName,
            last_name: body.lastName,
            account_type: body.accountType,
            company_name: body.accountType === 'company' ? (body.companyName ?? null) : null,
            role: admin ? 'admin' : 'user',
            avatar_url: null,
            referral_code: body.ref ? body.ref.toUpperCase() : null,
          });
          await subscriptions.startTrial(trx, user.id);
          await affiliates?.attributeSignup(trx, user.id, { ref: body.ref, clickId: origin.referralClick });
          await notifications.notify(user.id, WELCOME, trx);
          return user;
        });
        return session(row);
      } catch (err) {
        if (isUniqueViolation(err)) {
          const taken = takenError(await findTakenIdentity(db, body));
          if (taken) throw taken;
        }
        throw err;
      }
    },

    async login({ emailOrUsername, password }: LoginBody): Promise<AuthResult> {
      const row = await findUserByLogin(db, emailOrUsername);
      const ok = await verifyPassword(row?.password_hash ?? (await dummyHash()), password);
      if (!row || !ok) throw new UnauthorizedError(INVALID_LOGIN);
      return session(row);
    },

    /** The signed-in user; a token whose account is gone is no longer a session. */
    async profile(userId: string): Promise<User> {
      // Both reads at once; a deleted account has no subscription either (UnauthorizedError below).
      // The affiliate status comes with the user's row (one round trip less on every profile answer).
      const [row, subscription] = await Promise.all([
        findUserWithAffiliateStatus(db, userId),
        subscriptions.get(userId).catch((err: unknown) => {
          if (err instanceof NotFoundError) return undefined;
          throw err;
        }),
      ]);
      if (!row || !subscription) throw new UnauthorizedError('Account no longer exists');
      return toUser(row, subscription, affiliates ? row.affiliate_status : null);
    },

    async updateProfile(userId: string, body: UpdateProfileBody): Promise<User> {
      const conflict = takenError(await findTakenIdentity(db, { username: body.username }, userId));
      if (conflict) throw conflict;
      try {
        const row = await updateUser(db, userId, {
          first_name: body.firstName,
          last_name: body.lastName,
          username: body.username,
        });
        if (!row) throw new UnauthorizedError('Account no longer exists');
        return toUser(row);
      } catch (err) {
        if (isUniqueViolation(err))
          throw new ConflictError('Username is already taken', { field: 'username' });
        throw err;
      }
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
      return issueTokens(after);
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
        return issueTokens(user, rotated.family_id, trx);
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

    /** The account with this e-mail (any case), if one exists. */
    async findByEmail(email: string): Promise<{ id: string; email: string; firstName: string } | undefined> {
      const row = await findUserByEmail(db, email);
      return row && { id: row.id, email: row.email, firstName: row.first_name };
    },

    /** Sets (or with null removes) the avatar URL; answers the user and the URL it replaced. */
    async replaceAvatar(
      userId: string,
      avatarUrl: string | null,
    ): Promise<{ user: User; previous: string | null }> {
      const { row, previous } = await db.transaction().execute(async (trx) => {
        const before = await lockUserForUpdate(trx, userId);
        if (!before) throw new UnauthorizedError('Account no longer exists');
        const after = await updateUser(trx, userId, { avatar_url: avatarUrl });
        return { row: after ?? before, previous: before.avatar_url };
      });
      return { user: await toUser(row), previous };
    },
  };
}
