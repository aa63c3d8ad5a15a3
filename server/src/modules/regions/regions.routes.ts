import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json } from '../../lib/openapi-schemas.ts';
import { requireAdmin } from '../../middleware/auth.ts';
import { AdminRegionsSchema } from './regions.schemas.ts';

export const adminRegions = createRoute({
  method: 'get',
  path: '/api/admin/regions',
  operationId: 'admin.regions',
  tags: ['Admin'],
  summary: 'Each region, whether customers can deploy there, and its servers with what they hold (admin)',
  security: [{ bearerAuth: [] }],
  middleware: requireAdmin,
  responses: {
    200: json(AdminRegionsSchema, 'Every region customers can pick, with its nodes where a swarm runs it'),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
  },
});
