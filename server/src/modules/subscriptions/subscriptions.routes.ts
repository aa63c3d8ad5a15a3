import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json } from '../../lib/openapi-schemas.ts';
import { requireUser } from '../../middleware/auth.ts';
import { SubscriptionStatusSchema } from './subscriptions.schemas.ts';

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
