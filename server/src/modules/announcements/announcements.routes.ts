import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json } from '../../lib/openapi-schemas.ts';
import { requireAdmin } from '../../middleware/auth.ts';
import { SendAnnouncementBodySchema, SendAnnouncementResultSchema } from './announcements.schemas.ts';

export const send = createRoute({
  method: 'post',
  path: '/api/notifications/send',
  operationId: 'notifications.send',
  tags: ['Notifications'],
  summary: 'Send a notification to all users, the users of a plan, or one user (admin)',
  description:
    'Answers at once with the number of recipients; the notifications (and e-mails, when `sendEmail`) are delivered by a background job in batches, e-mails retried when the mail server fails. By plan: users with an active subscription of that plan.',
  security: [{ bearerAuth: [] }],
  middleware: requireAdmin,
  request: {
    body: { ...json(SendAnnouncementBodySchema, 'The notification and its audience'), required: true },
  },
  responses: {
    202: json(SendAnnouncementResultSchema, 'Queued for delivery'),
    400: errorResponse('Missing title or message, plan, or user'),
    401: errorResponse('Not signed in'),
    403: errorResponse('Not an admin'),
    404: errorResponse('No such user'),
  },
});
