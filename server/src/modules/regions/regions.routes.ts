import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json, MessageSchema } from '../../lib/openapi-schemas.ts';
import { requireAdmin } from '../../middleware/auth.ts';
import { AdminRegionsSchema, DrainResultSchema, NodeIdParamsSchema } from './regions.schemas.ts';

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

export const drainNode = createRoute({
  method: 'post',
  path: '/api/admin/regions/nodes/{nodeId}/drain',
  operationId: 'admin.drainNode',
  tags: ['Admin'],
  summary:
    'Drains a server: nothing new is placed on it, and each instance on it is moved with its data to another server of its region (its owner is told) (admin)',
  request: { params: NodeIdParamsSchema },
  security: [{ bearerAuth: [] }],
  middleware: requireAdmin,
  responses: {
    202: json(DrainResultSchema, 'Drained; its instances are being moved'),
    400: errorResponse('Invalid server id'),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
    404: errorResponse('No such server'),
    409: errorResponse('One server runs everything here, or it is the last one in service in its region'),
  },
});

export const activateNode = createRoute({
  method: 'post',
  path: '/api/admin/regions/nodes/{nodeId}/activate',
  operationId: 'admin.activateNode',
  tags: ['Admin'],
  summary: 'Puts a drained server back in service: new instances may be placed on it again (admin)',
  request: { params: NodeIdParamsSchema },
  security: [{ bearerAuth: [] }],
  middleware: requireAdmin,
  responses: {
    200: json(MessageSchema, 'Back in service'),
    400: errorResponse('Invalid server id'),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
    404: errorResponse('No such server'),
    409: errorResponse('One server runs everything here'),
  },
});
