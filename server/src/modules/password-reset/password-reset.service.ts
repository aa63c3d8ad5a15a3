import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { ValidationError } from '../../lib/errors.ts';
import { type Mailer, type MailMessage, sendInBackground } from '../../lib/mailer.ts';
import type { AuthService } from '../auth/auth.service.ts';
import {
  claimResetToken,
  findUsableResetToken,
  insertResetToken,
  revokeResetTokens,
} from './password-reset.repository.ts';
import type { ResetBody } from './password-reset.schemas.ts';

export interface PasswordResetDeps {
  db: Db;
  now: () => Date;
  mailer: Mailer;
  /** Origin of the web app; the e-mailed link is `${publicUrl}/reset-password?token=…`. */
  publicUrl: string;
  users: Pick<AuthService, 'findByEmail' | 'setPassword' | 'passwordCommitted'>;
}

export type PasswordResetService = ReturnType<typeof createPasswordResetService>;

const RESET_TOKEN_TTL_MINUTES = 60;
const INVALID_TOKEN = 'Invalid or expired reset token';
const REQUEST_ANSWER = 'If an account exists for that email, a password reset link has been sent to it.';

/** Only the hash is stored: a database leak reveals no usable link. */
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

function resetMail(to: string, firstName: string, link: string): MailMessage {
  return {
    to,
    subject: 'Reset your Berth password',
    text: [
      `Hello ${firstName},`,
      '',
      `Someone (hopefully you) asked to reset the password of your Berth account. Open this link within ${RESET_TOKEN_TTL_MINUTES} minutes to choose a new password:`,
      '',
      link,
      '',
      'If you did not ask for this, ignore this e-mail: your password stays as it is.',
      '',
      'The Berth team',
    ].join('\n'),
  };
}

export function createPasswordResetService({ db, now, mailer, publicUrl, users }: PasswordResetDeps) {
  return {
    /** Mails a single-use link valid for an hour. Answers the same whether or not the e-mail is known. */
    async request(email: string): Promise<{ success: true; message: string }> {
      const user = await users.findByEmail(email);
      if (user) {
        const token = randomBytes(32).toString('base64url');
        await insertResetToken(db, {
          user_id: user.id,
          token_hash: hashToken(token),
          expires_at: new Date(now().getTime() + RESET_TOKEN_TTL_MINUTES * 60_000),
        });
        const link = `${publicUrl}/reset-password?token=${token}`;
        sendInBackground(mailer, resetMail(user.email, user.firstName, link));
      }
      return { success: true, message: REQUEST_ANSWER };
    },

    async verify(token: string): Promise<{ success: true; message: string }> {
      if (!(await findUsableResetToken(db, hashToken(token), now())))
        throw new ValidationError(INVALID_TOKEN);
      return { success: true, message: 'Reset link is valid' };
    },

    /**
     * Sets the new password, uses up the token and every other outstanding one of the user, and ends
     * every session of the user (setPassword).
     */
    async reset({ token, password }: ResetBody): Promise<{ success: true; message: string }> {
      const tokenHash = hashToken(token);
      if (!(await findUsableResetToken(db, tokenHash, now()))) throw new ValidationError(INVALID_TOKEN);
      const userId = await db.transaction().execute(async (trx) => {
        const claimed = await claimResetToken(trx, tokenHash, now());
        if (!claimed) throw new ValidationError(INVALID_TOKEN);
        await users.setPassword(trx, claimed, password);
        await revokeResetTokens(trx, claimed, now());
        return claimed;
      });
      users.passwordCommitted(userId);
      return { success: true, message: 'Password has been reset successfully. You can now sign in.' };
    },
  };
}
