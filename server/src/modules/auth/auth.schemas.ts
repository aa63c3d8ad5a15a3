import { z } from '@hono/zod-openapi';
import { SubscriptionSchema } from '../subscriptions/subscriptions.schemas.ts';
import { isStrongEnough } from './password-rules.ts';

// Field rules and messages are the spec's (customer-area §5), enforced here as well as in the UI.
const required = (message: string) => z.string({ error: message }).trim().min(1, message);

const personName = (label: 'First name' | 'Last name') =>
  required(`${label} is required`).max(50, `${label} too long`);

const Username = required('Username is required')
  .min(3, 'Username must be at least 3 characters')
  .max(30, 'Username too long')
  .regex(/^[A-Za-z0-9_-]+$/, 'Username can only contain letters, numbers, hyphens, and underscores');

const MAX_PASSWORD = 256;

export const RegisterBodySchema = z
  .object({
    accountType: z.enum(['individual', 'company'], { error: 'Please select an account type' }),
    firstName: personName('First name'),
    lastName: personName('Last name'),
    companyName: z.string().trim().max(100, 'Company name too long').nullish(),
    username: Username,
    email: required('Email is required')
      .max(254, 'Email too long')
      .regex(/^\S+@\S+$/, 'Invalid email address'),
    password: z
      .string({ error: 'Password is required' })
      .min(1, 'Password is required')
      .max(MAX_PASSWORD, 'Password too long')
      .refine(isStrongEnough, 'Password must meet all requirements below'),
    turnstileToken: z.string().max(2048).optional(),
    ref: z.string().trim().max(64).optional().openapi({ description: 'Affiliate referral code' }),
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
    newPassword: z
      .string({ error: 'New password is required' })
      .min(1, 'New password is required')
      .min(6, 'Password must be at least 6 characters')
      .max(MAX_PASSWORD, 'Password too long'),
  })
  .openapi('ChangePasswordRequest');

export const UserSchema = z
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

export const AuthResultSchema = z.object({ token: z.string(), user: UserSchema }).openapi('AuthResult');
export const UserResultSchema = z
  .object({ user: UserSchema, message: z.string().optional() })
  .openapi('UserResult');

export type RegisterBody = z.infer<typeof RegisterBodySchema>;
export type LoginBody = z.infer<typeof LoginBodySchema>;
export type UpdateProfileBody = z.infer<typeof UpdateProfileBodySchema>;
export type ChangePasswordBody = z.infer<typeof ChangePasswordBodySchema>;
export type User = z.infer<typeof UserSchema>;
export type AuthResult = z.infer<typeof AuthResultSchema>;
