import { createRoute } from '@hono/zod-openapi';
import { limitBody } from '../../lib/body-limit.ts';
import { errorResponse, json } from '../../lib/openapi-schemas.ts';
import { requireUser } from '../../middleware/auth.ts';
import { UserResultSchema } from '../auth/auth.schemas.ts';
import { AvatarFileParamsSchema, AvatarUploadBodySchema } from './avatars.schemas.ts';
import { AVATAR_MAX_BYTES, AVATAR_TOO_LARGE } from './avatars.service.ts';

const tags = ['Auth'];
/** Room for the multipart envelope around a 2 MB file; the file itself is checked exactly. */
const MULTIPART_OVERHEAD_BYTES = 16 * 1024;

export const upload = createRoute({
  method: 'post',
  path: '/api/auth/avatar',
  operationId: 'avatars.upload',
  tags,
  summary: 'Upload a new profile picture (multipart field `avatar`)',
  security: [{ bearerAuth: [] }],
  // Sign-in first, then the size: a huge upload is refused from its Content-Length, unread.
  middleware: [
    requireUser,
    limitBody(AVATAR_MAX_BYTES + MULTIPART_OVERHEAD_BYTES, AVATAR_TOO_LARGE),
  ] as const,
  request: {
    body: {
      content: { 'multipart/form-data': { schema: AvatarUploadBodySchema } },
      description: 'The image',
      required: true,
    },
  },
  responses: {
    200: json(UserResultSchema, 'The user with the new avatarUrl'),
    400: errorResponse('Not a PNG, JPG, GIF or WEBP image (judged by its content), or no file'),
    401: errorResponse('Not signed in'),
    413: errorResponse('Larger than 2 MB'),
  },
});

export const remove = createRoute({
  method: 'delete',
  path: '/api/auth/avatar',
  operationId: 'avatars.remove',
  tags,
  summary: 'Remove the profile picture',
  security: [{ bearerAuth: [] }],
  middleware: requireUser,
  responses: {
    200: json(UserResultSchema, 'The user, avatarUrl null'),
    401: errorResponse('Not signed in'),
  },
});

export const file = createRoute({
  method: 'get',
  path: '/api/avatars/{file}',
  operationId: 'avatars.get',
  tags,
  security: [],
  summary: 'An avatar image (the `avatarUrl` of a user); cached for a year, names never change',
  request: { params: AvatarFileParamsSchema },
  responses: {
    200: {
      description: 'The image',
      content: { 'image/*': { schema: { type: 'string', format: 'binary' } } },
    },
    404: errorResponse('No such avatar'),
  },
});
