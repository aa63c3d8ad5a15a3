import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json, SuccessSchema } from '../../lib/openapi-schemas.ts';
import { ContactBodySchema } from './contact.schemas.ts';

export const submit = createRoute({
  method: 'post',
  path: '/api/contact/submit',
  operationId: 'contact.submit',
  tags: ['Contact'],
  security: [],
  summary: 'Send a message to support from the help page',
  request: { body: { ...json(ContactBodySchema, 'The message'), required: true } },
  responses: {
    200: json(SuccessSchema, 'Message stored and mailed to support'),
    400: errorResponse('A field breaks a rule, or the bot check failed (`captcha_failed`)'),
    429: errorResponse('Too many messages from this address'),
  },
});
