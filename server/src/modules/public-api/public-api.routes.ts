import { createRoute } from '@hono/zod-openapi';
import {
  ChangePasswordBodySchema,
  ListQuerySchema,
  TypeQuerySchema,
} from '../instances/instances.schemas.ts';
import { UsageQuerySchema } from '../usage/usage.schemas.ts';
import {
  base,
  common,
  conflict,
  failure,
  idempotencyHeader,
  invalid,
  notFound,
  ok,
  upstream,
} from './public-api.responses.ts';
import {
  InstanceIdParams,
  PublicAccessSchema,
  PublicCreateInstanceSchema,
  PublicDeletedSchema,
  PublicInstanceIdSchema,
  PublicInstanceListSchema,
  PublicInstanceSchema,
  PublicPendingSchema,
  PublicUsageSchema,
} from './public-api.schemas.ts';

// The 15 routes of the public API, each calling the same
// instances service as /api. Authentication, rate limit and idempotency are middleware (public-api.index.ts).
// Here: the instances themselves and usage; the domain, SSL and backup routes are in
// public-api-sites.routes.ts, and this file hands them on (public-api.index.ts reads one module).

export const list = createRoute({
  ...base,
  method: 'get',
  path: '/api/v1/instances',
  operationId: 'v1.instances.list',
  tags: ['Instance Management'],
  summary: 'List your instances',
  description:
    'A page of your instances, newest first, with how many there are and how many the plan allows.',
  request: { query: ListQuerySchema },
  responses: {
    200: ok(PublicInstanceListSchema, 'Instances, `total` and `maxInstances`'),
    400: invalid('page or limit out of range'),
    ...common,
  },
});

export const getOne = createRoute({
  ...base,
  method: 'get',
  path: '/api/v1/instances/{instanceId}',
  operationId: 'v1.instances.get',
  tags: ['Instance Management'],
  summary: 'Get one instance',
  request: { params: InstanceIdParams },
  responses: { 200: ok(PublicInstanceSchema, 'The instance'), ...common, 404: notFound },
});

export const create = createRoute({
  ...base,
  method: 'post',
  path: '/api/v1/instances',
  operationId: 'v1.instances.create',
  tags: ['Instance Management'],
  summary: 'Deploy an instance',
  description:
    'Answers 201 at once with the instance in status `deploying`; poll GET /api/v1/instances/{instanceId} until it is `running` (or `error`). Database credentials then come from GET …/access. Honours `Idempotency-Key`.',
  request: {
    headers: idempotencyHeader,
    body: { content: { 'application/json': { schema: PublicCreateInstanceSchema } }, required: true },
  },
  responses: {
    201: ok(PublicInstanceSchema, '"Instance deployment initiated"'),
    400: invalid('A field breaks a rule (`details.fieldErrors`)'),
    ...common,
    409: failure(
      'The type cannot be deployed on this server; or the Idempotency-Key was used with another body, or its first request is still running',
      'conflict',
      'This Idempotency-Key was used with a different request. Use a new key for a new request.',
      409,
    ),
  },
});

export const remove = createRoute({
  ...base,
  method: 'delete',
  path: '/api/v1/instances/{instanceId}',
  operationId: 'v1.instances.delete',
  tags: ['Instance Management'],
  summary: 'Delete an instance and its data',
  description: 'Asynchronous: the instance becomes `deleting`, then is gone.',
  request: { params: InstanceIdParams },
  responses: { 200: ok(PublicDeletedSchema, '"Instance deletion initiated"'), ...common, 404: notFound },
});

export const password = createRoute({
  ...base,
  method: 'post',
  path: '/api/v1/instances/{instanceId}/password',
  operationId: 'v1.instances.password',
  tags: ['Database Management'],
  summary: 'Set a new database password',
  description:
    '200 once the new password works and the old one no longer does; 202 if it is still being applied (a few seconds).',
  request: {
    params: InstanceIdParams,
    body: { content: { 'application/json': { schema: ChangePasswordBodySchema } }, required: true },
  },
  responses: {
    200: ok(PublicInstanceIdSchema, '"MySQL password updated" (the type’s name)'),
    202: ok(PublicInstanceIdSchema, '"Password change initiated": still being applied'),
    400: invalid('Not a database, another type, or the password breaks the rule (8 to 128 characters)'),
    ...common,
    404: notFound,
    409: conflict(
      'The instance is not deployed yet or is being deleted, or this server does not offer password changes (`details.reason`, as in the instance’s `features`)',
    ),
    502: upstream('The database server refused the change'),
  },
});

export const access = createRoute({
  ...base,
  method: 'get',
  path: '/api/v1/instances/{instanceId}/access',
  operationId: 'v1.instances.access',
  tags: ['Files and Database Access'],
  summary: 'Database credentials (and SFTP login for WordPress)',
  description: '202 "Credentials not ready yet" while the instance is still being deployed: poll again.',
  request: { params: InstanceIdParams, query: TypeQuerySchema },
  responses: {
    200: ok(
      PublicAccessSchema,
      'Host, port, database, user, password, connection string; `sftp` for WordPress',
    ),
    202: ok(PublicPendingSchema, '"Credentials not ready yet"'),
    ...common,
    404: notFound,
    409: conflict('n8n, being deleted, or its deploy failed'),
  },
});

export const usage = createRoute({
  ...base,
  method: 'get',
  path: '/api/v1/instances/{instanceId}/usage',
  operationId: 'v1.instances.usage',
  tags: ['Instance Management'],
  summary: 'What an instance used over the last hour, day or week',
  description:
    'CPU, memory against its limit, disk against its size and requests by status class: the numbers of the Usage tab. `range=1h` has a point per 15 s, `24h` per 5 minutes, `7d` per 30 minutes; points oldest first.',
  request: { params: InstanceIdParams, query: UsageQuerySchema },
  responses: {
    200: ok(
      PublicUsageSchema,
      'The report: points, current and peak values, limits, last out-of-memory time',
    ),
    400: failure('An unknown range', 'validation_error', 'range must be one of 1h, 24h, 7d', 400),
    ...common,
    404: notFound,
    409: failure(
      'This server does not measure usage of its type (`details.reason`, as in the instance’s `features.usage`)',
      'conflict',
      'This server does not measure usage yet',
      409,
    ),
  },
});
