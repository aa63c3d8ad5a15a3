import { EMAIL_PATTERN, SUPPORT_RESPONSE_HOURS } from '@berth/openapi/rules';
import { z } from '@hono/zod-openapi';
import { TICKET_STATUSES } from '../../db/tables/help-desk.ts';
import { CONTACT_CATEGORIES, requiredText } from '../contact/contact.schemas.ts';

// Limits and messages of the support form and the admin's answer.
const TICKET_CATEGORIES = CONTACT_CATEGORIES;
const MAX_ATTACHMENTS = 5;

const AttachmentSchema = z
  .object({
    url: z.string().openapi({
      example: '/uploads/help/3f0c1f5e8a1b4c1e9a3e2d4b5c6d7e8f.png',
      description: 'Served (to the ticket owner and admins, signed in) under the /api prefix',
    }),
    name: z.string().openapi({ example: 'screenshot.png' }),
  })
  .openapi('HelpAttachment');

/** Attachments sent with a submit or an answer: the `url`s of one's own uploads. */
const AttachmentRefsSchema = z
  .array(z.object({ url: z.string().max(300), name: z.string().max(300).optional() }))
  .max(MAX_ATTACHMENTS, `At most ${MAX_ATTACHMENTS} images`)
  .optional();

export const UploadResultSchema = z.object({ file: AttachmentSchema }).openapi('HelpUploadResult');

export const UploadBodySchema = z.object({
  file: z
    .instanceof(File, { error: 'Choose an image to upload' })
    .openapi({ type: 'string', format: 'binary', description: 'One PNG, JPEG, GIF or WebP image' }),
});

export const UploadFileParamsSchema = z.object({
  file: z.string().openapi({ param: { name: 'file', in: 'path' }, example: '3f0c…7e8f.png' }),
});

export const SubmitTicketBodySchema = z
  .object({
    name: requiredText('Name', 120),
    email: requiredText('Email', 200).regex(EMAIL_PATTERN, 'Invalid email'),
    category: z.enum(TICKET_CATEGORIES, { error: 'Please select a valid category' }),
    subject: requiredText('Subject', 200),
    message: requiredText('Message', 5000),
    path: z
      .string()
      .trim()
      .max(500, 'Path is too long')
      .optional()
      .openapi({ description: 'Page sent from' }),
    attachments: AttachmentRefsSchema,
    shareContext: z.boolean().optional().openapi({
      description:
        '(Default true) Attach a snapshot of the plan, standing and instances (type, status, last error, SSL) for support',
    }),
  })
  .openapi('SubmitTicketRequest');

const TicketContextSchema = z
  .object({
    plan: z.string(),
    standing: z.string(),
    instances: z.array(
      z.object({
        name: z.string(),
        type: z.string(),
        status: z.string(),
        lastError: z.string().nullable(),
        ssl: z.string().nullable(),
      }),
    ),
  })
  .openapi('TicketContext');

const TicketSchema = z
  .object({
    _id: z.uuid().openapi({ description: 'The same value as `id`' }),
    id: z.uuid(),
    name: z.string(),
    email: z.string(),
    category: z.enum(TICKET_CATEGORIES),
    subject: z.string(),
    message: z.string(),
    path: z.string().nullable(),
    status: z.enum(TICKET_STATUSES),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    plan: z.enum(['free', 'starter', 'pro']).openapi({
      description: 'The sender’s plan when it was sent (`free`: a trial or a lapsed plan)',
    }),
    dueAt: z.iso.datetime().openapi({
      description: `When support promised to answer: ${SUPPORT_RESPONSE_HOURS.pro} hours after it was sent on Pro, ${SUPPORT_RESPONSE_HOURS.starter} hours otherwise`,
    }),
    overdue: z.boolean().openapi({ description: 'Still open after its due time' }),
    attachments: z.array(AttachmentSchema),
    adminResponse: z
      .object({
        text: z.string(),
        respondedAt: z.iso.datetime(),
        attachments: z.array(AttachmentSchema),
      })
      .nullable(),
    context: TicketContextSchema.nullable().openapi({
      description: 'What the customer agreed to share at submit time; null without consent',
    }),
  })
  .openapi('Ticket');

export const TicketResultSchema = z.object({ item: TicketSchema }).openapi('TicketResult');
export const TicketListSchema = z.object({ items: z.array(TicketSchema) }).openapi('TicketList');

const positiveInt = (label: string, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${label} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, `${label} must be between 1 and ${max}`);

export const AllTicketsQuerySchema = z.object({
  q: z.string().max(200).optional().openapi({ description: 'Part of the subject, message, name or e-mail' }),
  status: z.enum(TICKET_STATUSES).optional(),
  category: z.enum(TICKET_CATEGORIES).optional(),
  sort: z.enum(['due', 'newest'], { error: 'Sort must be due or newest' }).optional().openapi({
    description:
      '`due` (default): open tickets first, the one due soonest on top, then the others newest first; `newest`: newest first',
  }),
  page: positiveInt('page', 1_000_000).optional().openapi({ description: 'Default 1', example: '1' }),
  limit: positiveInt('limit', 100).optional().openapi({ description: 'Default 20, at most 100' }),
});

export const TicketPageSchema = z
  .object({
    items: z.array(TicketSchema),
    total: z.int().openapi({ description: 'Tickets matching, on all pages' }),
    page: z.int(),
    pages: z.int(),
    limit: z.int(),
  })
  .openapi('TicketPage');

export const TicketIdParamsSchema = z.object({
  id: z
    .string()
    .openapi({ param: { name: 'id', in: 'path' }, example: '3f0c1f5e-8a1b-4c1e-9a3e-2d4b5c6d7e8f' }),
});

export const TicketStatusBodySchema = z
  .object({ status: z.enum(TICKET_STATUSES, { error: 'Status must be open, answered or closed' }) })
  .openapi('TicketStatusRequest');

export const AnswerBodySchema = z
  .object({
    text: z
      .string({ error: 'Response text is required' })
      .trim()
      .min(1, 'Response text is required')
      .max(10_000, 'Response text is too long'),
    attachments: AttachmentRefsSchema,
    notify: z
      .boolean()
      .optional()
      .openapi({ description: 'Send the customer an in-app notification (default true)' }),
    notifyTitle: z.string().trim().max(200, 'Title is too long').optional(),
    notifyMessage: z.string().trim().max(1000, 'Message is too long').optional(),
    notifyEmail: z.boolean().optional().openapi({ description: 'Also e-mail the customer (default false)' }),
  })
  .openapi('AnswerTicketRequest');

export type SubmitTicketBody = z.infer<typeof SubmitTicketBodySchema>;
export type AnswerBody = z.infer<typeof AnswerBodySchema>;
export type Ticket = z.infer<typeof TicketSchema>;
export type Attachment = z.infer<typeof AttachmentSchema>;
export type TicketPage = z.infer<typeof TicketPageSchema>;
export type AllTicketsQuery = z.infer<typeof AllTicketsQuerySchema>;
