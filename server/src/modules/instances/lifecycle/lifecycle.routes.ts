import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json, MessageSchema } from '../../../lib/openapi-schemas.ts';
import { requireAdmin } from '../../../middleware/auth.ts';
import { notFound, notSignedIn, signedIn, tags, unavailableHere } from '../instance-route-responses.ts';
import {
  CapabilitiesSchema,
  ChangePasswordBodySchema,
  DatabaseAccessSchema,
  DeployBodySchema,
  InstanceChangeSchema,
  InstanceIdParamsSchema,
  InstanceListSchema,
  InstanceResultSchema,
  ListQuerySchema,
  OperatorCapabilitiesSchema,
  TypeQuerySchema,
  UpdateBodySchema,
} from '../instances.schemas.ts';

export const list = createRoute({
  method: 'get',
  path: '/api/instances',
  operationId: 'instances.list',
  tags,
  summary: 'A page of the signed-in user’s instances, newest first, optionally searched by name',
  ...signedIn,
  request: { query: ListQuerySchema },
  responses: {
    200: json(InstanceListSchema, 'Instances, how many match, and how many pages'),
    400: errorResponse('page or limit out of range'),
    401: notSignedIn,
  },
});

export const capabilities = createRoute({
  method: 'get',
  path: '/api/instances/capabilities',
  operationId: 'instances.capabilities',
  tags,
  summary: 'Which instance types this server can deploy now, and why not the others',
  ...signedIn,
  responses: { 200: json(CapabilitiesSchema, 'Every type, available or with the reason'), 401: notSignedIn },
});

export const operatorCapabilities = createRoute({
  method: 'get',
  path: '/api/admin/capabilities',
  operationId: 'admin.capabilities',
  tags: ['Admin'],
  summary:
    'Which instance types this server can deploy, with the operator’s reason and fix for the others (admin)',
  security: [{ bearerAuth: [] }],
  middleware: requireAdmin,
  responses: {
    200: json(OperatorCapabilitiesSchema, 'Every type: the customer’s reason and the operator’s detail'),
    401: notSignedIn,
    403: errorResponse('Not an admin'),
  },
});

export const deploy = createRoute({
  method: 'post',
  path: '/api/instances/deploy',
  operationId: 'instances.deploy',
  tags,
  summary: 'Deploy a new instance (asynchronous: it starts as `deploying`)',
  description:
    'Answers at once with the new instance in status `deploying`; a job creates it and the live stream sends `event: instance` when it is `running` (or `error`). Database credentials then come from GET /api/instances/{id}/access.',
  ...signedIn,
  request: { body: { ...json(DeployBodySchema, 'What to deploy, and where'), required: true } },
  responses: {
    202: json(InstanceChangeSchema, '"Instance deployment initiated"'),
    400: errorResponse('A field breaks a rule'),
    401: notSignedIn,
    403: errorResponse(
      'The plan allows no more instances, or the subscription is inactive (`plan_limit`, "Cannot create instance. Please check your subscription status.")',
    ),
    409: errorResponse('The type cannot be deployed on this server (`conflict`; `details.reason` says why)'),
  },
});

export const getOne = createRoute({
  method: 'get',
  path: '/api/instances/{id}',
  operationId: 'instances.get',
  tags,
  summary: 'One of the signed-in user’s instances',
  ...signedIn,
  request: { params: InstanceIdParamsSchema },
  responses: { 200: json(InstanceResultSchema, 'The instance'), 401: notSignedIn, 404: notFound },
});

export const update = createRoute({
  method: 'put',
  path: '/api/instances/{id}',
  operationId: 'instances.update',
  tags,
  summary: 'Rename an instance or change its description',
  ...signedIn,
  request: {
    params: InstanceIdParamsSchema,
    body: { ...json(UpdateBodySchema, 'Name and description'), required: true },
  },
  responses: {
    200: json(InstanceChangeSchema, '"Instance updated successfully"'),
    400: errorResponse('A field breaks a rule'),
    401: notSignedIn,
    404: notFound,
    409: errorResponse('The instance is being deleted'),
  },
});

export const remove = createRoute({
  method: 'delete',
  path: '/api/instances/{id}',
  operationId: 'instances.remove',
  tags,
  summary: 'Delete an instance and its data (asynchronous: it becomes `deleting`, then is gone)',
  ...signedIn,
  request: { params: InstanceIdParamsSchema, query: TypeQuerySchema },
  responses: {
    202: json(InstanceChangeSchema, '"Instance deletion initiated"'),
    401: notSignedIn,
    403: errorResponse(
      'The subscription is inactive (`subscription_inactive`, "Your subscription is inactive. Deleting instances is disabled.")',
    ),
    404: notFound,
  },
});

export const access = createRoute({
  method: 'get',
  path: '/api/instances/{id}/access',
  operationId: 'instances.access',
  tags,
  summary: 'Connection details of a database instance, or of a WordPress site’s database and SFTP login',
  description:
    '202 while the instance is still being deployed (poll again: the UI tries 10 times, 2 s apart); 200 with the credentials once it has been deployed. `sftp` is null where this server offers no SFTP (the instance’s `features.sftp` says why).',
  ...signedIn,
  request: { params: InstanceIdParamsSchema, query: TypeQuerySchema },
  responses: {
    200: json(
      DatabaseAccessSchema,
      'Host, port, database name, user, password and a connection string; for WordPress also `sftp`',
    ),
    202: json(MessageSchema, '"Preparing credentials... This may take a moment."'),
    401: notSignedIn,
    404: notFound,
    409: errorResponse('n8n, being deleted, or its deploy failed (no credentials)'),
  },
});

export const changePassword = createRoute({
  method: 'post',
  path: '/api/instances/{id}/password',
  operationId: 'instances.changePassword',
  tags,
  summary: 'Set a new password for a database instance (MySQL, PostgreSQL; MongoDB where available)',
  description:
    'Waits up to about 10 s for the change: 200 once the new password works and the old one no longer does (live sessions are closed), 202 if it is still being applied.',
  ...signedIn,
  request: {
    params: InstanceIdParamsSchema,
    body: {
      ...json(ChangePasswordBodySchema, 'The type of the instance and the new password'),
      required: true,
    },
  },
  responses: {
    200: json(MessageSchema, '"{type} password updated", e.g. "MySQL password updated"'),
    202: json(MessageSchema, '"Password change initiated": still being applied'),
    400: errorResponse('Not a database type, a different type, or the password breaks the rule'),
    401: notSignedIn,
    403: errorResponse(
      'The subscription is inactive (`subscription_inactive`, "Subscription inactive — changing passwords is disabled.")',
    ),
    404: notFound,
    409: errorResponse(
      `The instance is not deployed (yet), is being deleted, ${unavailableHere('password changes')}`,
    ),
    502: errorResponse('The database server refused the change (`operation_failed`)'),
  },
});

// The custom-domain, storage and backup routes live next to this file; instances.index.ts reads them all here.
