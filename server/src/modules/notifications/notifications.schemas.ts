import { z } from '@hono/zod-openapi';

const NotificationSchema = z
  .object({
    _id: z.uuid().openapi({ description: 'The same value as `id`' }),
    id: z.uuid(),
    type: z.string().openapi({ example: 'trial', description: 'e.g. welcome, security, trial, helpdesk' }),
    title: z.string(),
    message: z.string(),
    createdAt: z.iso.datetime(),
    read: z.boolean(),
  })
  .openapi('Notification');

export const NotificationListSchema = z
  .object({
    items: z.array(NotificationSchema).openapi({ description: 'Newest first, at most 50' }),
    unread: z.int().openapi({ description: 'Unread notifications in all' }),
  })
  .openapi('NotificationList');

export const MarkReadBodySchema = z
  .object({
    all: z.literal(true).optional(),
    ids: z
      .array(z.uuid({ error: 'Unknown notification id' }))
      .max(500, 'Too many ids')
      .optional(),
  })
  .refine((body) => body.all === true || (body.ids?.length ?? 0) > 0, 'Send { all: true } or { ids: [...] }')
  .openapi('MarkNotificationsReadRequest');

export const NotificationChangeSchema = z
  .object({
    count: z.int().openapi({ description: 'Notifications marked read or deleted' }),
    unread: z.int().openapi({ description: 'Unread notifications left' }),
  })
  .openapi('NotificationChange');

export const NotificationIdParamsSchema = z.object({ id: z.uuid({ error: 'Notification not found' }) });

export const NotificationsConfigSchema = z
  .object({
    pollIntervalMs: z.int().openapi({ example: 60000 }),
    streamUrl: z.string().openapi({ example: '/api/notifications/stream' }),
    streamTokenUrl: z.string().openapi({ example: '/api/notifications/stream-token' }),
    smtpEnabled: z.boolean().openapi({ description: 'Whether the server sends real e-mail' }),
  })
  .openapi('NotificationsConfig');

export const StreamTokenSchema = z
  .object({
    token: z.string(),
    expiresIn: z.int().openapi({ description: 'Seconds the token stays valid for opening a stream' }),
  })
  .openapi('StreamToken');

export const StreamQuerySchema = z.object({
  token: z.string().openapi({ description: 'A stream token from POST /api/notifications/stream-token' }),
  lastEventId: z.string().optional().openapi({
    description: 'Replay notifications after this id (the Last-Event-ID header does the same)',
  }),
});

export type Notification = z.infer<typeof NotificationSchema>;
export type NotificationList = z.infer<typeof NotificationListSchema>;
export type MarkReadBody = z.infer<typeof MarkReadBodySchema>;
export type NotificationChange = z.infer<typeof NotificationChangeSchema>;
