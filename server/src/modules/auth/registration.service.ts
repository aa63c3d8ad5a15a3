import { sql } from 'kysely';
import { ValidationError } from '../../lib/errors.ts';
import type { NotificationInput } from '../notifications/notifications.service.ts';
import {
  type AuthContext,
  type AuthDeps,
  hashSecret,
  isUniqueViolation,
  takenError,
} from './auth.context.ts';
import type { AuthResult, RegisterBody } from './auth.schemas.ts';
import { hashPassword } from './passwords.ts';
import { claimSetupToken, deleteSetupTokens } from './sessions.repository.ts';
import { adminExists, findTakenIdentity, insertUser } from './users.repository.ts';

/** Where a registration comes from, as the HTTP layer tells it. */
export interface RegistrationOrigin {
  /** The socket's peer is loopback and no proxy forwarded the request: someone on the server itself. */
  local: boolean;
  /** The referral cookie (the visitor's last referral click), if any. */
  referralClick?: string;
}

const INVALID_SETUP_TOKEN = 'Invalid or used setup token';

const WELCOME: NotificationInput = {
  type: 'welcome',
  title: 'Welcome to Berth!',
  message: 'Your 60-minute free trial has started. Deploy your first instance from the dashboard.',
};

/**
 * Sign-up: the account, its 60-minute trial, the referral that brought it, the welcome notification and
 * a first session; and the first admin, who registers from the server itself or with the setup token
 * the server printed (first-admin.ts).
 */
export function createRegistration(
  { db, subscriptions, notifications, affiliates }: AuthDeps,
  ctx: AuthContext,
) {
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
        return ctx.session(row);
      } catch (err) {
        if (isUniqueViolation(err)) {
          const taken = takenError(await findTakenIdentity(db, body));
          if (taken) throw taken;
        }
        throw err;
      }
    },
  };
}
