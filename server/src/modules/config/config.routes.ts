import { createRoute } from '@hono/zod-openapi';
import { json } from '../../lib/openapi-schemas.ts';
import { PublicConfigSchema } from './config.schemas.ts';

export const get = createRoute({
  method: 'get',
  path: '/api/config',
  operationId: 'config.get',
  tags: ['Config'],
  security: [],
  summary: 'Public settings: bot-check site key, sign-in options and plan prices',
  responses: { 200: json(PublicConfigSchema, 'Public configuration') },
});
