import { createRoute } from '@hono/zod-openapi';
import { limitBody } from '../../lib/body-limit.ts';
import { errorResponse, json, MessageSchema } from '../../lib/openapi-schemas.ts';
import { requireAdmin, requireUser } from '../../middleware/auth.ts';
import {
  AllTicketsQuerySchema,
  AnswerBodySchema,
  SubmitTicketBodySchema,
  TicketIdParamsSchema,
  TicketListSchema,
  TicketPageSchema,
  TicketResultSchema,
  TicketStatusBodySchema,
  UploadBodySchema,
  UploadFileParamsSchema,
  UploadResultSchema,
} from './help-desk.schemas.ts';
import { UPLOAD_MAX_BYTES, UPLOAD_TOO_LARGE } from './help-desk.service.ts';

const tags = ['Help desk'];
const signedIn = { security: [{ bearerAuth: [] }], middleware: requireUser };
const adminOnly = { security: [{ bearerAuth: [] }], middleware: requireAdmin };
const notSignedIn = errorResponse('Not signed in');
const notAdmin = errorResponse('Not an admin');
/** Room for the multipart envelope around a 5 MB image; the file itself is checked exactly. */
const MULTIPART_OVERHEAD_BYTES = 16 * 1024;

export const upload = createRoute({
  method: 'post',
  path: '/api/help/upload',
  operationId: 'help.upload',
  tags,
  summary: 'Upload one image (multipart field `file`) to attach to a ticket or an answer',
  description:
    'PNG, JPEG, GIF or WebP, judged by the content, at most 5 MB. The upload stays unattached until a submit or an answer names its `url`; unattached uploads are deleted after a day.',
  security: [{ bearerAuth: [] }],
  // Sign-in first, then the size: a huge upload is refused from its Content-Length, unread.
  middleware: [
    requireUser,
    limitBody(UPLOAD_MAX_BYTES + MULTIPART_OVERHEAD_BYTES, UPLOAD_TOO_LARGE),
  ] as const,
  request: {
    body: {
      content: { 'multipart/form-data': { schema: UploadBodySchema } },
      description: 'The image',
      required: true,
    },
  },
  responses: {
    201: json(UploadResultSchema, 'The stored image'),
    400: errorResponse('No file, or not a PNG, JPEG, GIF or WebP image (judged by its content)'),
    401: notSignedIn,
    413: errorResponse('Larger than 5 MB'),
    429: errorResponse('Too many uploads in the last hour'),
  },
});

export const removeUpload = createRoute({
  method: 'delete',
  path: '/api/help/upload/{file}',
  operationId: 'help.removeUpload',
  tags,
  summary: 'Delete one of your uploads that no ticket uses yet (an attachment removed before sending)',
  ...signedIn,
  request: { params: UploadFileParamsSchema },
  responses: {
    200: json(MessageSchema, 'Deleted'),
    401: notSignedIn,
    404: errorResponse('No such unattached upload of yours'),
  },
});

export const file = createRoute({
  method: 'get',
  path: '/api/uploads/help/{file}',
  operationId: 'help.file',
  tags,
  summary: 'An attached image, for its uploader, the owner of its ticket and admins only',
  ...signedIn,
  request: { params: UploadFileParamsSchema },
  responses: {
    200: {
      description: 'The image',
      content: { 'image/*': { schema: { type: 'string', format: 'binary' } } },
    },
    401: notSignedIn,
    404: errorResponse('No such image, or not yours'),
  },
});

export const submit = createRoute({
  method: 'post',
  path: '/api/help/submit',
  operationId: 'help.submit',
  tags,
  summary: 'Send a support ticket with up to 5 uploaded images',
  ...signedIn,
  request: { body: { ...json(SubmitTicketBodySchema, 'The ticket'), required: true } },
  responses: {
    201: json(TicketResultSchema, 'The ticket'),
    400: errorResponse('Invalid fields, more than 5 images, or an attachment that is not an upload of yours'),
    401: notSignedIn,
    429: errorResponse('Too many tickets in the last hour'),
  },
});

export const mine = createRoute({
  method: 'get',
  path: '/api/help/my',
  operationId: 'help.my',
  tags,
  summary: 'Your tickets, newest first',
  ...signedIn,
  responses: { 200: json(TicketListSchema, 'Tickets'), 401: notSignedIn },
});

export const remove = createRoute({
  method: 'delete',
  path: '/api/help/{id}',
  operationId: 'help.remove',
  tags,
  summary: 'Delete one of your tickets and its images',
  ...signedIn,
  request: { params: TicketIdParamsSchema },
  responses: {
    200: json(MessageSchema, 'Deleted'),
    401: notSignedIn,
    404: errorResponse('No such ticket of yours'),
  },
});

export const all = createRoute({
  method: 'get',
  path: '/api/help/all',
  operationId: 'help.all',
  tags,
  summary: 'All tickets, newest first, filtered by status, category and a search (admin)',
  ...adminOnly,
  request: { query: AllTicketsQuerySchema },
  responses: {
    200: json(TicketPageSchema, 'One page of tickets'),
    400: errorResponse('Invalid query'),
    401: notSignedIn,
    403: notAdmin,
  },
});

export const setStatus = createRoute({
  method: 'put',
  path: '/api/help/{id}/status',
  operationId: 'help.setStatus',
  tags,
  summary: "Change a ticket's status (admin)",
  ...adminOnly,
  request: {
    params: TicketIdParamsSchema,
    body: { ...json(TicketStatusBodySchema, 'The new status'), required: true },
  },
  responses: {
    200: json(TicketResultSchema, 'The ticket'),
    400: errorResponse('Unknown status'),
    401: notSignedIn,
    403: notAdmin,
    404: errorResponse('No such ticket'),
  },
});

export const answer = createRoute({
  method: 'post',
  path: '/api/help/{id}/answer',
  operationId: 'help.answer',
  tags,
  summary: 'Answer a ticket (admin): text, up to 5 images, an in-app notification and optionally an e-mail',
  description:
    'Replaces an earlier answer (its images not listed again are deleted) and marks the ticket answered. Blank notifyTitle and notifyMessage get defaults.',
  ...adminOnly,
  request: {
    params: TicketIdParamsSchema,
    body: { ...json(AnswerBodySchema, 'The answer'), required: true },
  },
  responses: {
    200: json(TicketResultSchema, 'The ticket with its answer'),
    400: errorResponse('No text, more than 5 images, or an attachment that is not an upload of yours'),
    401: notSignedIn,
    403: notAdmin,
    404: errorResponse('No such ticket'),
  },
});
