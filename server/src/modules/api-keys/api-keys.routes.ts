import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json, MessageSchema } from '../../lib/openapi-schemas.ts';
import { requireUser } from '../../middleware/auth.ts';
import {
  ApiKeyChangeSchema,
  ApiKeyListSchema,
  ApiKeyMetaSchema,
  ApiKeyParamsSchema,
  NewApiKeySchema,
} from './api-keys.schemas.ts';

const tags = ['API keys'];
// Key management uses the login token, never an API key.
const signedIn = { security: [{ bearerAuth: [] }], middleware: requireUser };
const notSignedIn = errorResponse('Not signed in');
const notPro = errorResponse('Not a Pro subscriber ("API access requires Pro plan subscription")');
const notFound = errorResponse('No such key of this user ("API key not found")');

export const list = createRoute({
  method: 'get',
  path: '/api/keys',
  operationId: 'apiKeys.list',
  tags,
  summary: 'The signed-in user’s API key (at most one): label, notes, last four characters, use',
  ...signedIn,
  responses: { 200: json(ApiKeyListSchema, 'Keys, without their secret'), 401: notSignedIn },
});

export const generate = createRoute({
  method: 'post',
  path: '/api/keys/generate',
  operationId: 'apiKeys.generate',
  tags,
  summary: 'Create the user’s API key (Pro only). The whole key is in this answer only.',
  ...signedIn,
  responses: {
    201: json(NewApiKeySchema, 'The new key (`apiKey`), shown once'),
    401: notSignedIn,
    403: notPro,
    409: errorResponse('The user has a key already: regenerate it'),
  },
});

export const regenerate = createRoute({
  method: 'post',
  path: '/api/keys/regenerate',
  operationId: 'apiKeys.regenerate',
  tags,
  summary: 'Replace the user’s API key (Pro only): the old key stops working at once',
  ...signedIn,
  responses: {
    200: json(NewApiKeySchema, 'The new key (`apiKey`), shown once; label and notes are kept'),
    401: notSignedIn,
    403: notPro,
  },
});

export const update = createRoute({
  method: 'put',
  path: '/api/keys/{id}',
  operationId: 'apiKeys.update',
  tags,
  summary: 'Set the key’s label and notes',
  ...signedIn,
  request: {
    params: ApiKeyParamsSchema,
    body: { ...json(ApiKeyMetaSchema, 'Label (up to 100) and notes (up to 1000)'), required: true },
  },
  responses: {
    200: json(ApiKeyChangeSchema, '"API key details saved"'),
    400: errorResponse('"Label too long" or "Notes too long"'),
    401: notSignedIn,
    404: notFound,
  },
});

export const remove = createRoute({
  method: 'delete',
  path: '/api/keys/{id}',
  operationId: 'apiKeys.remove',
  tags,
  summary: 'Delete the key: it stops working at once',
  ...signedIn,
  request: { params: ApiKeyParamsSchema },
  responses: { 200: json(MessageSchema, '"API key deleted"'), 401: notSignedIn, 404: notFound },
});
