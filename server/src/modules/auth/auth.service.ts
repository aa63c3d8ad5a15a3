import { sql } from 'kysely';
import type { Db, DbOrTx } from '../../db/database.ts';
import type { UserRow } from '../../db/tables/users.ts';
import { ConflictError, NotFoundError, UnauthorizedError, ValidationError } from '../../lib/errors.ts';
import type { TokenService } from '../../lib/tokens.ts';
import type { NotificationInput, NotificationsService } from '../notifications/notifications.service.ts';
import type { Subscription } from '../subscriptions/subscriptions.schemas.ts';
import type { SubscriptionsService } from '../subscriptions/subscriptions.service.ts';
import type {
  AuthResult,
  ChangePasswordBody,
  LoginBody,
  RegisterBody,
  UpdateProfileBody,
  User,
} from './auth.schemas.ts';
import { dummyHash, hashPassword, verifyPassword } from './passwords.ts';
import {
  findTakenIdentity,
  findUserByEmail,
  findUserById,
  findUserByLogin,
  insertUser,
  lockUserForUpdate,
  updateUser,
} from './users.repository.ts';

export interface AuthDeps {
  db: Db;
  tokens: Pick<TokenService, 'sign'>;
  subscriptions: Pick<SubscriptionsService, 'startTrial' | 'get'>;
  notifications: Pick<NotificationsService, 'notify'>;
}

export type AuthService = ReturnType<typeof createAuthService>;

const INVALID_LOGIN = 'Invalid email/username or password';

export const WELCOME: NotificationInput = {
  type: 'welcome',
  title: 'Welcome to Berth!',
  message: 'Your 60-minute free trial has started. Deploy your first instance from the dashboard.',
};

export const PASSWORD_CHANGED: NotificationInput = {
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

export function createAuthService({ db, tokens, subscriptions, notifications }: AuthDeps) {
  async function toUser(row: UserRow, known?: Subscription): Promise<User> {
    const subscription = known ?? (await subscriptions.get(row.id));
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
      affiliateStatus: null,
      isAffiliate: false,
      subscription,
      instancesUsed: subscription.instancesUsed,
      instancesCount: subscription.instancesUsed,
    };
  }

  async function session(row: UserRow): Promise<AuthResult> {
    return { token: await tokens.sign({ id: row.id, role: row.role }), user: await toUser(row) };
  }

  /** Stores a new password and tells the user with a notification, both inside `trx`. */
  async function setPassword(trx: DbOrTx, userId: string, password: string): Promise<void> {
    const passwordHash = await hashPassword(password);
    await updateUser(trx, userId, { password_hash: passwordHash });
    await notifications.notify(userId, PASSWORD_CHANGED, trx);
  }

  return {
    /** Creates the account, opens its 60-minute trial, and signs it in. The first account is the admin. */
    async register(body: RegisterBody): Promise<AuthResult> {
      const conflict = takenError(await findTakenIdentity(db, body));
      if (conflict) throw conflict;
      const passwordHash = await hashPassword(body.password);
      try {
        const row = await db.transaction().execute(async (trx) => {
          // Serialises sign-ups so exactly one account can be the first.
          await sql`select pg_advisory_xact_lock(hashtext('berth:first-admin'))`.execute(trx);
          const anyUser = await trx.selectFrom('users').select('id').limit(1).executeTakeFirst();
          const user = await insertUser(trx, {
            username: body.username,
            email: body.email,
            password_hash: passwordHash,
            first_name: body.firstName,
            last_name: body.lastName,
            account_type: body.accountType,
            company_name: body.accountType === 'company' ? (body.companyName ?? null) : null,
            role: anyUser ? 'user' : 'admin',
            avatar_url: null,
            referral_code: body.ref ? body.ref.toUpperCase() : null,
          });
          await subscriptions.startTrial(trx, user.id);
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
      const [row, subscription] = await Promise.all([
        findUserById(db, userId),
        subscriptions.get(userId).catch((err: unknown) => {
          if (err instanceof NotFoundError) return undefined;
          throw err;
        }),
      ]);
      if (!row || !subscription) throw new UnauthorizedError('Account no longer exists');
      return toUser(row, subscription);
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

    async changePassword(userId: string, body: ChangePasswordBody): Promise<void> {
      const row = await findUserById(db, userId);
      if (!row) throw new UnauthorizedError('Account no longer exists');
      if (!(await verifyPassword(row.password_hash, body.currentPassword))) {
        throw new ValidationError('Current password is incorrect', {
          fieldErrors: { currentPassword: ['Current password is incorrect'] },
        });
      }
      await db.transaction().execute((trx) => setPassword(trx, userId, body.newPassword));
    },

    setPassword,

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
