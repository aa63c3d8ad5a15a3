import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json } from '../../lib/openapi-schemas.ts';
import { requireUser } from '../../middleware/auth.ts';
import { CanCreateInstanceSchema, SubscriptionStatusSchema } from './subscriptions.schemas.ts';

export const status = createRoute({
  method: 'get',
  path: '/api/subscriptions/status',
  operationId: 'subscriptions.status',
  tags: ['Subscriptions'],
  summary: 'Standing of the signed-in user: trial, active or inactive, with plan and limits',
  security: [{ bearerAuth: [] }],
  middleware: requireUser,
  responses: {
    200: json(SubscriptionStatusSchema, 'Subscription standing, prices and payment methods'),
    401: errorResponse('Not signed in'),
  },
});

export const canCreateInstance = createRoute({
  method: 'get',
  path: '/api/subscriptions/can-create-instance',
  operationId: 'subscriptions.canCreateInstance',
  tags: ['Subscriptions'],
  summary: 'Whether the signed-in user may deploy one more instance now, and why not',
  security: [{ bearerAuth: [] }],
  middleware: requireUser,
  responses: {
    200: json(CanCreateInstanceSchema, 'canCreate, with the reason when false'),
    401: errorResponse('Not signed in'),
  },
});
