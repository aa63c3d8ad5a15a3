import { z } from '@hono/zod-openapi';
import { newPassword } from '../auth/auth.schemas.ts';

// Messages are the spec's; the new password follows the registration rules.
export const ResetRequestBodySchema = z
  .object({
    email: z
      .string({ error: 'Email is required' })
      .trim()
      .min(1, 'Email is required')
      .max(254, 'Email too long')
      .regex(/^\S+@\S+$/, 'Invalid email address'),
    turnstileToken: z.string().max(2048).optional(),
  })
  .openapi('PasswordResetRequest');

export const ResetBodySchema = z
  .object({
    token: z
      .string({ error: 'Reset token is required' })
      .min(1, 'Reset token is required')
      .max(200, 'Invalid or expired reset token'),
    // The registration strength rules and messages (auth.schemas.ts, @berth/openapi/rules).
    password: newPassword('Password is required'),
  })
  .openapi('PasswordReset');

export const ResetTokenParamsSchema = z.object({
  token: z.string().max(200, 'Invalid or expired reset token'),
});

export type ResetRequestBody = z.infer<typeof ResetRequestBodySchema>;
export type ResetBody = z.infer<typeof ResetBodySchema>;
