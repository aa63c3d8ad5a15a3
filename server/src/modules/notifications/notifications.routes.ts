import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json } from '../../lib/openapi-schemas.ts';
import { requireUser } from '../../middleware/auth.ts';
import {
  MarkReadBodySchema,
  NotificationChangeSchema,
  NotificationIdParamsSchema,
  NotificationListSchema,
  NotificationsConfigSchema,
  StreamQuerySchema,
  StreamTokenSchema,
} from './notifications.schemas.ts';

const tags = ['Notifications'];
const signedIn = { security: [{ bearerAuth: [] }], middleware: requireUser };
const notSignedIn = errorResponse('Not signed in');

export const list = createRoute({
  method: 'get',
  path: '/api/notifications',
  operationId: 'notifications.list',
  tags,
  summary: 'The newest notifications of the signed-in user and how many are unread',
  ...signedIn,
  responses: { 200: json(NotificationListSchema, 'Notifications'), 401: notSignedIn },
});

export const markRead = createRoute({
  method: 'post',
  path: '/api/notifications/mark-read',
  operationId: 'notifications.markRead',
  tags,
  summary: 'Mark all notifications read, or those listed',
  ...signedIn,
  request: { body: { ...json(MarkReadBodySchema, '{ all: true } or { ids: [...] }'), required: true } },
  responses: {
    200: json(NotificationChangeSchema, 'How many were marked, and how many stay unread'),
    400: errorResponse('Neither `all` nor `ids` given'),
    401: notSignedIn,
  },
});

export const remove = createRoute({
  method: 'delete',
  path: '/api/notifications/{id}',
  operationId: 'notifications.remove',
  tags,
  summary: 'Delete one notification',
  ...signedIn,
  request: { params: NotificationIdParamsSchema },
  responses: {
    200: json(NotificationChangeSchema, 'Deleted'),
    400: errorResponse('The id is not a notification id'),
    401: notSignedIn,
    404: errorResponse('No such notification of this user'),
  },
});

export const removeAll = createRoute({
  method: 'delete',
  path: '/api/notifications',
  operationId: 'notifications.removeAll',
  tags,
  summary: 'Delete every notification of the signed-in user',
  ...signedIn,
  responses: { 200: json(NotificationChangeSchema, 'Deleted'), 401: notSignedIn },
});

export const config = createRoute({
  method: 'get',
  path: '/api/notifications/config',
  operationId: 'notifications.config',
  tags,
  summary: 'How the client keeps notifications fresh: poll interval and live stream',
  ...signedIn,
  responses: { 200: json(NotificationsConfigSchema, 'Notification settings'), 401: notSignedIn },
});

export const streamToken = createRoute({
  method: 'post',
  path: '/api/notifications/stream-token',
  operationId: 'notifications.streamToken',
  tags,
  summary: 'A 60-second token for opening the live stream (EventSource cannot send headers)',
  ...signedIn,
  responses: { 200: json(StreamTokenSchema, 'Stream token'), 401: notSignedIn },
});

export const stream = createRoute({
  method: 'get',
  path: '/api/notifications/stream',
  operationId: 'notifications.stream',
  tags,
  security: [],
  summary: 'Live notifications and instance status changes as Server-Sent Events',
  description:
    'Sends `retry: 3000`, then `event: notification` messages (`id:` is the notification id, `data:` the Notification as JSON), `event: instance` messages when one of the user’s instances changes status (`data:` `{ id, status, statusMessage }`, status `deleted` once it is gone; no `id:` line), `event: resync` when messages may have been missed, `event: signed-out` just before the server closes the stream because the user’s password changed (their tokens are dead), and a `: ping` comment every 20 s. A reconnect with `Last-Event-ID` (header or `lastEventId`) first replays newer notifications.',
  request: { query: StreamQuerySchema },
  responses: {
    200: {
      description: 'An endless text/event-stream',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    },
    400: errorResponse('No token given'),
    401: errorResponse('The stream token is invalid or expired'),
  },
});
