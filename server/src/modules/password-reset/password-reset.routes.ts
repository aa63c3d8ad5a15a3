import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json, SuccessSchema } from '../../lib/openapi-schemas.ts';
import { ResetBodySchema, ResetRequestBodySchema, ResetTokenParamsSchema } from './password-reset.schemas.ts';

const tags = ['Password reset'];

export const request = createRoute({
  method: 'post',
  path: '/api/password-reset/request',
  operationId: 'passwordReset.request',
  tags,
  security: [],
  summary: 'E-mail a password-reset link (valid 1 hour, single use)',
  description: 'Answers the same whether or not an account has this e-mail.',
  request: { body: { ...json(ResetRequestBodySchema, 'The account e-mail'), required: true } },
  responses: {
    200: json(SuccessSchema, 'Request taken'),
    400: errorResponse('Invalid e-mail, or the bot check failed (`captcha_failed`)'),
    429: errorResponse('Too many requests from this address or for this e-mail'),
  },
});

export const verify = createRoute({
  method: 'get',
  path: '/api/password-reset/verify/{token}',
  operationId: 'passwordReset.verify',
  tags,
  security: [],
  summary: 'Whether a reset link can still be used',
  request: { params: ResetTokenParamsSchema },
  responses: {
    200: json(SuccessSchema, 'The token is valid'),
    400: errorResponse('Invalid or expired reset token'),
  },
});

export const reset = createRoute({
  method: 'post',
  path: '/api/password-reset/reset',
  operationId: 'passwordReset.reset',
  tags,
  security: [],
  summary: 'Set a new password with a reset token',
  request: { body: { ...json(ResetBodySchema, 'Token and new password'), required: true } },
  responses: {
    200: json(SuccessSchema, 'Password changed; sign in with it'),
    400: errorResponse('Password fails the strength rules, or invalid or expired reset token'),
  },
});
