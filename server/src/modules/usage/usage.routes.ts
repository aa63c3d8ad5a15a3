import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json } from '../../lib/openapi-schemas.ts';
import { requireAdmin, requireUser } from '../../middleware/auth.ts';
import { InstanceIdParamsSchema } from '../instances/instances.schemas.ts';
import { HostCapacitySchema, UsageQuerySchema, UsageReportSchema } from './usage.schemas.ts';

export const instanceUsage = createRoute({
  method: 'get',
  path: '/api/instances/{id}/usage',
  operationId: 'instances.usage',
  tags: ['Instances'],
  summary:
    'What one of the signed-in user’s instances used over the last hour, day or week: CPU, memory against its limit, disk against its size, requests by status class',
  security: [{ bearerAuth: [] }],
  middleware: requireUser,
  request: { params: InstanceIdParamsSchema, query: UsageQuerySchema },
  responses: {
    200: json(UsageReportSchema, 'Points oldest first, with the current and peak values and the limits'),
    400: errorResponse('An unknown range'),
    401: errorResponse('Not signed in'),
    404: errorResponse('No such instance of this user ("Instance not found")'),
    409: errorResponse(
      'This server does not measure usage of its type (the message and `details.reason` are the customer’s reason, the instance’s `features.usage` has it too)',
    ),
  },
});

export const hostCapacity = createRoute({
  method: 'get',
  path: '/api/admin/capacity',
  operationId: 'admin.capacity',
  tags: ['Admin'],
  summary:
    'The host: memory and CPU sold against what it has, its disk, and the ten busiest instances (admin)',
  security: [{ bearerAuth: [] }],
  middleware: requireAdmin,
  responses: {
    200: json(HostCapacitySchema, 'Capacity and the busiest instances'),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
    404: errorResponse('This server’s provisioning driver measures nothing'),
  },
});
