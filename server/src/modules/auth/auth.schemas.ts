import { FIELD_LIMITS, isStrongEnough, PASSWORD_RULES_MESSAGE } from '@berth/openapi/rules';
import { z } from '@hono/zod-openapi';
import { SubscriptionSchema } from '../subscriptions/subscriptions.schemas.ts';

// Field limits and password checks come from @berth/openapi/rules, which the UI's validation uses too.
const required = (message: string) => z.string({ error: message }).trim().min(1, message);

const personName = (label: 'First name' | 'Last name') =>
  required(`${label} is required`).max(FIELD_LIMITS.personName, `${label} too long`);

const Username = required('Username is required')
  .min(FIELD_LIMITS.username.min, 'Username must be at least 3 characters')
  .max(FIELD_LIMITS.username.max, 'Username too long')
  .regex(/^[A-Za-z0-9_-]+$/, 'Username can only contain letters, numbers, hyphens, and underscores');

const MAX_PASSWORD = FIELD_LIMITS.accountPassword;

/** A new password (registration, change, reset): the same five checks and message everywhere. */
export const newPassword = (requiredMessage: string) =>
  z
    .string({ error: requiredMessage })
    .min(1, requiredMessage)
    .max(MAX_PASSWORD, 'Password too long')
    .refine(isStrongEnough, PASSWORD_RULES_MESSAGE);

export const RegisterBodySchema = z
  .object({
    accountType: z.enum(['individual', 'company'], { error: 'Please select an account type' }),
    firstName: personName('First name'),
    lastName: personName('Last name'),
    companyName: z.string().trim().max(FIELD_LIMITS.companyName.max, 'Company name too long').nullish(),
    username: Username,
    email: required('Email is required')
      .max(FIELD_LIMITS.email, 'Email too long')
      .regex(/^\S+@\S+$/, 'Invalid email address'),
    password: newPassword('Password is required'),
    turnstileToken: z.string().max(2048).optional(),
    ref: z.string().trim().max(64).optional().openapi({ description: 'Affiliate referral code' }),
    setupToken: z.string().trim().max(200, 'Invalid or used setup token').optional().openapi({
      description:
        'The one-time token the server prints at start while no admin exists: the account becomes the admin',
    }),
  })
  .superRefine((body, ctx) => {
    if (body.accountType !== 'company') return;
    const company = body.companyName ?? '';
    if (company.length === 0)
      ctx.addIssue({ code: 'custom', path: ['companyName'], message: 'Company name is required' });
    else if (company.length < 2)
      ctx.addIssue({
        code: 'custom',
        path: ['companyName'],
        message: 'Company name must be at least 2 characters',
      });
  })
  .openapi('RegisterRequest');

export const LoginBodySchema = z
  .object({
    emailOrUsername: required('Email or username is required')
      .min(3, 'Must be at least 3 characters')
      .max(254),
    password: z.string({ error: 'Password is required' }).min(1, 'Password is required').max(MAX_PASSWORD),
    turnstileToken: z.string().max(2048).optional(),
  })
  .openapi('LoginRequest');

export const UpdateProfileBodySchema = z
  .object({
    firstName: personName('First name'),
    lastName: personName('Last name'),
    username: Username,
  })
  .openapi('UpdateProfileRequest');

export const ChangePasswordBodySchema = z
  .object({
    currentPassword: z
      .string({ error: 'Current password is required' })
      .min(1, 'Current password is required'),
    newPassword: newPassword('New password is required'),
  })
  .openapi('ChangePasswordRequest');

const RefreshToken = z
  .string({ error: 'Refresh token is required' })
  .min(1, 'Refresh token is required')
  .max(200, 'Invalid refresh token');

export const RefreshBodySchema = z.object({ refreshToken: RefreshToken }).openapi('RefreshRequest');

export const LogoutBodySchema = z.object({ refreshToken: RefreshToken }).openapi('LogoutRequest');

export const SessionTokensSchema = z
  .object({
    token: z.string().openapi({ description: 'Access token (Bearer), valid `expiresIn` seconds' }),
    expiresIn: z.int().openapi({ description: 'Seconds the access token stays valid', example: 900 }),
    refreshToken: z.string().openapi({
      description: 'Single use: POST /api/auth/refresh exchanges it for a new pair',
    }),
    refreshTokenExpiresAt: z.iso.datetime(),
  })
  .openapi('SessionTokens');

const UserSchema = z
  .object({
    id: z.uuid(),
    username: z.string(),
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    accountType: z.enum(['individual', 'company']),
    companyName: z.string().nullable(),
    role: z.enum(['user', 'admin']),
    avatarUrl: z.string().nullable(),
    createdAt: z.iso.datetime(),
    affiliateStatus: z.string().nullable(),
    isAffiliate: z.boolean(),
    subscription: SubscriptionSchema,
    instancesUsed: z.int(),
    instancesCount: z.int(),
  })
  .openapi('User');

export const AuthResultSchema = SessionTokensSchema.extend({ user: UserSchema }).openapi('AuthResult');
export const ChangePasswordResultSchema = SessionTokensSchema.extend({ message: z.string() }).openapi(
  'ChangePasswordResult',
);
export const UserResultSchema = z
  .object({ user: UserSchema, message: z.string().optional() })
  .openapi('UserResult');

export type RegisterBody = z.infer<typeof RegisterBodySchema>;
export type LoginBody = z.infer<typeof LoginBodySchema>;
export type UpdateProfileBody = z.infer<typeof UpdateProfileBodySchema>;
export type ChangePasswordBody = z.infer<typeof ChangePasswordBodySchema>;
export type User = z.infer<typeof UserSchema>;
export type AuthResult = z.infer<typeof AuthResultSchema>;
export type SessionTokens = z.infer<typeof SessionTokensSchema>;
