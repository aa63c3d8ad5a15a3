import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json, MessageSchema } from '../../lib/openapi-schemas.ts';
import { requireUser } from '../../middleware/auth.ts';
import {
  AuthResultSchema,
  ChangePasswordBodySchema,
  ChangePasswordResultSchema,
  LoginBodySchema,
  LogoutBodySchema,
  RefreshBodySchema,
  RegisterBodySchema,
  SessionTokensSchema,
  UpdateProfileBodySchema,
  UserResultSchema,
} from './auth.schemas.ts';

const tags = ['Auth'];
const signedIn = { security: [{ bearerAuth: [] }], middleware: requireUser };

export const register = createRoute({
  method: 'post',
  path: '/api/auth/register',
  operationId: 'auth.register',
  tags,
  security: [],
  summary: 'Create an account (starts the 60-minute free trial) and sign in',
  description:
    'While no admin exists, the account becomes the admin when registered from the server machine itself (loopback, not through a proxy) or with the one-time `setupToken` the server prints at start; otherwise it is a normal user.',
  request: { body: { ...json(RegisterBodySchema, 'New account'), required: true } },
  responses: {
    201: json(AuthResultSchema, 'Account created; the token signs the user in'),
    400: errorResponse(
      'A field breaks a rule (`details.fieldErrors` lists every message), the setup token is invalid or used, or the bot check failed (`captcha_failed`)',
    ),
    409: errorResponse('E-mail or username already in use'),
    429: errorResponse('Too many sign-ups from this address'),
  },
});

export const login = createRoute({
  method: 'post',
  path: '/api/auth/login',
  operationId: 'auth.login',
  tags,
  security: [],
  summary: 'Sign in with e-mail or username and password',
  request: { body: { ...json(LoginBodySchema, 'Credentials'), required: true } },
  responses: {
    200: json(AuthResultSchema, 'Signed in'),
    400: errorResponse('A field breaks a rule, or the bot check failed (`captcha_failed`)'),
    401: errorResponse('Wrong e-mail/username or password'),
    429: errorResponse('Too many attempts from this address or for this account'),
  },
});

export const refresh = createRoute({
  method: 'post',
  path: '/api/auth/refresh',
  operationId: 'auth.refresh',
  tags,
  security: [],
  summary: 'Exchange a refresh token for a new access token and refresh token',
  description:
    'Each refresh token works once. Presenting one that was already exchanged revokes every token of that sign-in (the client must sign in again). A password change or reset and a logout revoke them too.',
  request: { body: { ...json(RefreshBodySchema, 'The refresh token'), required: true } },
  responses: {
    200: json(SessionTokensSchema, 'A new pair; the old refresh token is used up'),
    400: errorResponse('No refresh token given'),
    401: errorResponse('The refresh token is unknown, expired, revoked or already used'),
  },
});

export const logout = createRoute({
  method: 'post',
  path: '/api/auth/logout',
  operationId: 'auth.logout',
  tags,
  security: [],
  summary: 'Sign this session out: its refresh tokens are revoked',
  description:
    'Answers the same for an unknown token. The access token still works until it expires (minutes).',
  request: { body: { ...json(LogoutBodySchema, 'The refresh token of the session'), required: true } },
  responses: {
    200: json(MessageSchema, 'Signed out'),
    400: errorResponse('No refresh token given'),
  },
});

export const profile = createRoute({
  method: 'get',
  path: '/api/auth/profile',
  operationId: 'auth.profile',
  tags,
  summary: 'The signed-in user',
  ...signedIn,
  responses: {
    200: json(UserResultSchema, 'The user'),
    401: errorResponse('Not signed in, or the session expired'),
  },
});

export const updateProfile = createRoute({
  method: 'put',
  path: '/api/auth/profile',
  operationId: 'auth.updateProfile',
  tags,
  summary: 'Change first name, last name and username',
  ...signedIn,
  request: { body: { ...json(UpdateProfileBodySchema, 'New personal information'), required: true } },
  responses: {
    200: json(UserResultSchema, 'Updated user'),
    400: errorResponse('A field breaks a rule'),
    401: errorResponse('Not signed in'),
    409: errorResponse('Username already taken'),
  },
});

export const changePassword = createRoute({
  method: 'put',
  path: '/api/auth/change-password',
  operationId: 'auth.changePassword',
  tags,
  summary: 'Change the password, given the current one',
  description:
    'The new password follows the registration rules. Every session of the user ends (earlier access and refresh tokens stop working, open notification streams close); the answer carries a new pair for this session.',
  ...signedIn,
  request: { body: { ...json(ChangePasswordBodySchema, 'Current and new password'), required: true } },
  responses: {
    200: json(ChangePasswordResultSchema, 'Password changed; the new tokens replace the old ones'),
    400: errorResponse('A field breaks a rule, or the current password is wrong'),
    401: errorResponse('Not signed in'),
  },
});
