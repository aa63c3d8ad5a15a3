import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json, MessageSchema } from '../../lib/openapi-schemas.ts';
import { requireUser } from '../../middleware/auth.ts';
import {
  AuthResultSchema,
  ChangePasswordBodySchema,
  LoginBodySchema,
  RegisterBodySchema,
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
  request: { body: { ...json(RegisterBodySchema, 'New account'), required: true } },
  responses: {
    201: json(AuthResultSchema, 'Account created; the token signs the user in'),
    400: errorResponse(
      'A field breaks a rule (`details.fieldErrors` lists every message), or the bot check failed (`captcha_failed`)',
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
    429: errorResponse('Too many attempts'),
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
  ...signedIn,
  request: { body: { ...json(ChangePasswordBodySchema, 'Current and new password'), required: true } },
  responses: {
    200: json(MessageSchema, 'Password changed'),
    400: errorResponse('A field breaks a rule, or the current password is wrong'),
    401: errorResponse('Not signed in'),
  },
});
