import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json } from '../../lib/openapi-schemas.ts';
import { requireAdmin } from '../../middleware/auth.ts';
import { SubscriptionSchema } from '../subscriptions/subscriptions.schemas.ts';
import {
  AdminUserIdParamsSchema,
  AdminUserListSchema,
  AdminUsersQuerySchema,
  GrantPlanRequestSchema,
  UserSummaryListSchema,
  UsersQuerySchema,
} from './admin.schemas.ts';

export const listUserSummaries = createRoute({
  method: 'get',
  path: '/api/users',
  operationId: 'users.list',
  tags: ['Admin'],
  summary: 'Users by name and e-mail, for picking one (admin; e.g. the single-user notification)',
  request: { query: UsersQuerySchema },
  security: [{ bearerAuth: [] }],
  middleware: requireAdmin,
  responses: {
    200: json(UserSummaryListSchema, 'One page of users'),
    400: errorResponse('Invalid query'),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
  },
});

export const listUsers = createRoute({
  method: 'get',
  path: '/api/admin/users',
  operationId: 'admin.listUsers',
  tags: ['Admin'],
  summary: 'Users with their plan, standing and instances, newest first (search by username or e-mail)',
  request: { query: AdminUsersQuerySchema },
  security: [{ bearerAuth: [] }],
  middleware: requireAdmin,
  responses: {
    200: json(AdminUserListSchema, 'One page of users'),
    400: errorResponse('Invalid query'),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
  },
});

export const grantPlan = createRoute({
  method: 'post',
  path: '/api/admin/users/{id}/plan',
  operationId: 'admin.grantPlan',
  tags: ['Admin'],
  summary:
    "Grants a plan by hand, at once, for one month or one year (no payment, no invoice); resumes the user's suspended instances",
  request: {
    params: AdminUserIdParamsSchema,
    body: { content: { 'application/json': { schema: GrantPlanRequestSchema } }, required: true },
  },
  security: [{ bearerAuth: [] }],
  middleware: requireAdmin,
  responses: {
    200: json(SubscriptionSchema, "The user's subscription after the grant"),
    400: errorResponse('Invalid body'),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
    404: errorResponse('No such user'),
    409: errorResponse('Starter with more instances than it allows: the user must delete some first'),
  },
});

export const revokePlan = createRoute({
  method: 'delete',
  path: '/api/admin/users/{id}/plan',
  operationId: 'admin.revokePlan',
  tags: ['Admin'],
  summary: "Revokes the user's plan at once and suspends their instances",
  request: { params: AdminUserIdParamsSchema },
  security: [{ bearerAuth: [] }],
  middleware: requireAdmin,
  responses: {
    200: json(SubscriptionSchema, "The user's subscription after the revocation (inactive)"),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
    404: errorResponse('No such user'),
    502: errorResponse('The payment provider could not cancel the renewing subscription'),
  },
});
