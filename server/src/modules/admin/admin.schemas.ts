import { z } from '@hono/zod-openapi';
import { PLAN_IDS } from '../subscriptions/plan-rules.ts';

const positiveInt = (label: string, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${label} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, `${label} must be between 1 and ${max}`);

export const AdminUsersQuerySchema = z.object({
  page: positiveInt('page', 1_000_000).optional().openapi({ description: 'Default 1', example: '1' }),
  limit: positiveInt('limit', 100)
    .optional()
    .openapi({ description: 'Default 20, at most 100', example: '20' }),
  search: z
    .string()
    .max(200)
    .optional()
    .openapi({ description: 'Part of the username or e-mail (trimmed, any case)' }),
});

export const AdminUserIdParamsSchema = z.object({
  id: z
    .string()
    .openapi({ param: { name: 'id', in: 'path' }, example: '3f0c1f5e-8a1b-4c1e-9a3e-2d4b5c6d7e8f' }),
});

const AdminUserSchema = z
  .object({
    id: z.uuid(),
    username: z.string(),
    email: z.string(),
    role: z.enum(['user', 'admin']),
    plan: z.enum(PLAN_IDS),
    standing: z.enum(['trial', 'active', 'inactive']),
    instancesUsed: z.int(),
    createdAt: z.iso.datetime(),
  })
  .openapi('AdminUser');

export const AdminUserListSchema = z
  .object({
    users: z.array(AdminUserSchema),
    total: z.int().openapi({ description: 'Users matching the search, on all pages' }),
    pages: z.int(),
    page: z.int(),
    limit: z.int(),
  })
  .openapi('AdminUserList');

const UserSummarySchema = z
  .object({
    _id: z.uuid().openapi({ description: 'The same value as `id`' }),
    id: z.uuid(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string(),
    role: z.enum(['user', 'admin']),
  })
  .openapi('UserSummary');

export const UserSummaryListSchema = z
  .object({
    users: z.array(UserSummarySchema).openapi({ description: 'By last name, first name, e-mail' }),
    total: z.int(),
    pages: z.int(),
    page: z.int(),
    limit: z.int(),
  })
  .openapi('UserSummaryList');

export const UsersQuerySchema = z.object({
  page: positiveInt('page', 1_000_000).optional().openapi({ description: 'Default 1', example: '1' }),
  limit: positiveInt('limit', 100)
    .optional()
    .openapi({ description: 'Default 100, at most 100', example: '100' }),
  search: z
    .string()
    .max(200)
    .optional()
    .openapi({ description: 'Part of the first name, last name or e-mail (trimmed, any case)' }),
});

export const GrantPlanRequestSchema = z
  .object({
    plan: z.enum(['starter', 'pro']),
    billingCycle: z.enum(['monthly', 'yearly']),
  })
  .openapi('GrantPlanRequest');

export type AdminUser = z.infer<typeof AdminUserSchema>;
export type AdminUserList = z.infer<typeof AdminUserListSchema>;
export type UserSummaryList = z.infer<typeof UserSummaryListSchema>;
