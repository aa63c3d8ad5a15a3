import { createRoute, z } from '@hono/zod-openapi';
import { json } from '../../lib/openapi-schemas.ts';

const HealthSchema = z
  .object({
    status: z.enum(['ok', 'error']),
    database: z.enum(['ok', 'error']),
    version: z.string(),
  })
  .openapi('Health');

export const health = createRoute({
  method: 'get',
  path: '/api/health',
  operationId: 'health.get',
  tags: ['Health'],
  security: [],
  summary: 'Whether the server and its database answer',
  responses: {
    200: json(HealthSchema, 'Healthy'),
    503: json(HealthSchema, 'The database does not answer'),
  },
});
