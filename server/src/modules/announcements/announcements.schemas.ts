import { z } from '@hono/zod-openapi';

export const SendAnnouncementBodySchema = z
  .object({
    scope: z.enum(['all', 'plan', 'single'], { error: 'Scope must be all, plan or single' }),
    title: z.string({ error: 'Title and message are required' }).trim().max(200, 'Title is too long'),
    message: z.string({ error: 'Title and message are required' }).trim().max(2000, 'Message is too long'),
    type: z
      .string()
      .trim()
      .regex(/^[a-z][a-z0-9-]{0,30}$/, 'Type must be a short lower-case word')
      .default('announcement')
      .openapi({ description: "The notification type; the admin panel always sends 'announcement'" }),
    plan: z.enum(['starter', 'pro'], { error: 'Plan must be starter or pro' }).optional(),
    userId: z.string().optional(),
    sendEmail: z.boolean().optional().openapi({ description: 'Also e-mail each recipient (default false)' }),
  })
  .superRefine((body, ctx) => {
    if (!body.title || !body.message)
      ctx.addIssue({ code: 'custom', message: 'Title and message are required', path: ['title'] });
    if (body.scope === 'plan' && !body.plan)
      ctx.addIssue({ code: 'custom', message: 'Please select a plan', path: ['plan'] });
    if (body.scope === 'single' && !body.userId)
      ctx.addIssue({ code: 'custom', message: 'Please select a user', path: ['userId'] });
  })
  .openapi('SendNotificationRequest');

export const SendAnnouncementResultSchema = z
  .object({
    count: z.int().openapi({ description: 'How many users the notification goes to' }),
    id: z.uuid().openapi({ description: 'The announcement (its delivery runs in the background)' }),
    message: z.string(),
  })
  .openapi('SendNotificationResult');

export type SendAnnouncementBody = z.infer<typeof SendAnnouncementBodySchema>;
