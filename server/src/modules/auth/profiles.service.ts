import { ConflictError, NotFoundError, UnauthorizedError } from '../../lib/errors.ts';
import { type AuthContext, type AuthDeps, isUniqueViolation, takenError } from './auth.context.ts';
import type { UpdateProfileBody, User } from './auth.schemas.ts';
import {
  findTakenIdentity,
  findUserByEmail,
  findUserWithAffiliateStatus,
  lockUserForUpdate,
  updateUser,
} from './users.repository.ts';

/**
 * The signed-in user's profile: reading it (a token whose account is gone is no longer a session),
 * changing the name and username, the avatar's URL, and finding an account by e-mail (password reset).
 */
export function createProfiles({ db, subscriptions, affiliates }: AuthDeps, ctx: AuthContext) {
  return {
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
      return ctx.toUser(row, subscription, affiliates ? row.affiliate_status : null);
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
        return ctx.toUser(row);
      } catch (err) {
        if (isUniqueViolation(err))
          throw new ConflictError('Username is already taken', { field: 'username' });
        throw err;
      }
    },

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
      return { user: await ctx.toUser(row), previous };
    },
  };
}
