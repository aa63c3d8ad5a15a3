import { createRoute, z } from '@hono/zod-openapi';
import { BackupBodySchema } from '../instances/instance-backups.schemas.ts';
import { DomainBodySchema } from '../instances/instance-domains.schemas.ts';
import {
  ChangePasswordBodySchema,
  ListQuerySchema,
  TypeQuerySchema,
} from '../instances/instances.schemas.ts';
import { UsageQuerySchema } from '../usage/usage.schemas.ts';
import {
  BackupIdParams,
  InstanceIdParams,
  PUBLIC_ERROR_NAMES,
  PublicAccessSchema,
  PublicBackupDownloadSchema,
  PublicBackupIdSchema,
  PublicBackupListSchema,
  PublicCreateInstanceSchema,
  PublicDeletedSchema,
  PublicErrorSchema,
  PublicInstanceIdSchema,
  PublicInstanceListSchema,
  PublicInstanceSchema,
  PublicPendingSchema,
  PublicSslSchema,
  PublicUsageSchema,
} from './public-api.schemas.ts';

// The 15 routes of the public API, each calling the same
// instances service as /api. Authentication, rate limit and idempotency are middleware (public-api.index.ts).

/** Sent on every answer to a request with a key (and, counted per address, on those without one). */
const RATE_HEADERS = {
  'RateLimit-Limit': {
    description: 'Requests allowed per window: 150',
    schema: { type: 'integer' as const },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window',
    schema: { type: 'integer' as const },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window starts again',
    schema: { type: 'integer' as const },
  },
  'RateLimit-Policy': {
    description: 'The rule: `150;w=60` (150 requests per 60 s)',
    schema: { type: 'string' as const },
  },
};

function ok<T extends z.ZodType>(schema: T, description: string) {
  return { content: { 'application/json': { schema } }, description, headers: RATE_HEADERS };
}

function failure(
  description: string,
  code: string,
  message: string,
  status: keyof typeof PUBLIC_ERROR_NAMES,
) {
  const example = { error: PUBLIC_ERROR_NAMES[status], message, details: { code } };
  return {
    content: { 'application/json': { schema: PublicErrorSchema, example } },
    description,
    headers: RATE_HEADERS,
  };
}

const common = {
  401: failure('No key, or not a current key', 'unauthorized', 'Invalid or missing API key', 401),
  403: failure(
    'The key’s owner has no running Pro plan; or the plan or subscription refuses the change',
    'forbidden',
    'API access requires Pro plan subscription',
    403,
  ),
  429: {
    ...failure(
      'More than 150 requests in the key’s current minute',
      'rate_limited',
      'Rate limit exceeded. Please try again later.',
      429,
    ),
    headers: {
      ...RATE_HEADERS,
      'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' as const } },
    },
  },
};
const notFound = failure('No such instance of the key’s owner', 'not_found', 'Instance not found', 404);
const invalid = (what: string) => failure(what, 'validation_error', 'Instance name is required', 400);
const conflict = (what: string) => failure(what, 'conflict', 'The instance is being deleted', 409);
const upstream = (what: string) =>
  failure(what, 'operation_failed', 'Failed to create backup. Please try again.', 502);

const security: Record<string, string[]>[] = [{ ApiKeyHeader: [] }, { ApiKeyBearer: [] }];
const base = { security };
const idempotencyHeader = z.object({
  'Idempotency-Key': z.string().optional().openapi({
    description:
      'Any unique string up to 255 characters. The same key with the same body within 24 hours answers the first success again (header `Idempotent-Replayed: true`) instead of doing it twice; with another body, 409.',
    example: '6f1c3a5e-deploy-orders-db',
  }),
});

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
    409: conflict('The instance is not deployed yet or is being deleted'),
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

export const addDomain = createRoute({
  ...base,
  method: 'post',
  path: '/api/v1/instances/{instanceId}/domain',
  operationId: 'v1.instances.addDomain',
  tags: ['Domain Management'],
  summary: 'Add a custom domain to a WordPress site',
  description:
    'Pending until the DNS TXT record in `customDomain.verification.record` proves ownership; then attached.',
  request: {
    params: InstanceIdParams,
    body: { content: { 'application/json': { schema: DomainBodySchema } }, required: true },
  },
  responses: {
    200: ok(PublicInstanceSchema, '"Custom domain added successfully"'),
    400: invalid('"Domain is required", "Please enter a valid domain name", or not WordPress'),
    ...common,
    404: notFound,
    409: conflict('The domain belongs to another account, or the instance is not deployed'),
    502: upstream('The host failed the change'),
  },
});

export const removeDomain = createRoute({
  ...base,
  method: 'delete',
  path: '/api/v1/instances/{instanceId}/domain',
  operationId: 'v1.instances.removeDomain',
  tags: ['Domain Management'],
  summary: 'Remove the custom domain',
  request: { params: InstanceIdParams },
  responses: {
    200: ok(PublicInstanceSchema, '"Custom domain removed successfully"'),
    400: invalid('Not WordPress, or no custom domain'),
    ...common,
    404: notFound,
    409: conflict('The instance is not deployed or is being deleted'),
    502: upstream('The host failed the change'),
  },
});

export const enableSsl = createRoute({
  ...base,
  method: 'post',
  path: '/api/v1/instances/{instanceId}/ssl/enable',
  operationId: 'v1.instances.enableSsl',
  tags: ['SSL Management'],
  summary: 'Have a new certificate issued for the custom domain',
  request: { params: InstanceIdParams },
  responses: {
    200: ok(PublicSslSchema, '"Requested SSL. It may take a moment to activate."'),
    400: invalid('"SSL is only available for custom domains"'),
    ...common,
    404: notFound,
    409: conflict('The domain is not verified yet, or the instance is not deployed'),
  },
});

export const sslStatus = createRoute({
  ...base,
  method: 'get',
  path: '/api/v1/instances/{instanceId}/ssl/status',
  operationId: 'v1.instances.sslStatus',
  tags: ['SSL Management'],
  summary: 'The custom domain’s certificate: Active, Pending or FAILED',
  request: { params: InstanceIdParams },
  responses: {
    200: ok(PublicSslSchema, 'The status, checked now; `none` without a custom domain'),
    400: invalid('"SSL is only available for custom domains"'),
    ...common,
    404: notFound,
    409: conflict('The instance is not deployed'),
    502: upstream('The check failed on the host'),
  },
});

export const listBackups = createRoute({
  ...base,
  method: 'get',
  path: '/api/v1/instances/{instanceId}/backups',
  operationId: 'v1.instances.backups',
  tags: ['Backup Management'],
  summary: 'List an instance’s backups (scheduled and manual, with where each is kept)',
  request: { params: InstanceIdParams },
  responses: {
    200: ok(PublicBackupListSchema, 'Backups, newest first'),
    400: invalid('"Backups are not available for this type of instance"'),
    ...common,
    404: notFound,
    409: conflict('The instance is not deployed'),
    502: upstream('The host failed to list them'),
  },
});

export const createBackup = createRoute({
  ...base,
  method: 'post',
  path: '/api/v1/instances/{instanceId}/backups/new',
  operationId: 'v1.instances.createBackup',
  tags: ['Backup Management'],
  summary: 'Back up an instance now (WordPress, MySQL, PostgreSQL, n8n)',
  description:
    'Records the backup and starts it; list the backups to follow it (`running`, then `complete` or `failed`). Honours `Idempotency-Key`.',
  request: {
    params: InstanceIdParams,
    headers: idempotencyHeader,
    body: { content: { 'application/json': { schema: BackupBodySchema } }, required: true },
  },
  responses: {
    201: ok(PublicBackupIdSchema, '"Backup creation started"'),
    400: invalid('"Backup name is required", or a type without backups'),
    ...common,
    404: notFound,
    409: conflict('Not deployed, suspended, or the Idempotency-Key was used with another body'),
    502: upstream('The host failed the backup'),
  },
});

export const restoreBackup = createRoute({
  ...base,
  method: 'post',
  path: '/api/v1/instances/{instanceId}/backups/{backupId}/restore',
  operationId: 'v1.instances.restoreBackup',
  tags: ['Backup Management'],
  summary: 'Restore a backup (the instance’s data is replaced)',
  description: 'The instance reads `restoring` until the restore ends, then `running` (or `error`).',
  request: { params: BackupIdParams },
  responses: {
    202: ok(PublicBackupIdSchema, '"Restore initiated"'),
    400: invalid('"Backups are not available for this type of instance"'),
    ...common,
    404: failure(
      'No such instance of the key’s owner, or no such backup',
      'not_found',
      'Instance not found',
      404,
    ),
    409: conflict('The instance is not deployed'),
    502: upstream('The host failed the restore'),
  },
});

export const deleteBackup = createRoute({
  ...base,
  method: 'delete',
  path: '/api/v1/instances/{instanceId}/backups/{backupId}',
  operationId: 'v1.instances.deleteBackup',
  tags: ['Backup Management'],
  summary: 'Delete a backup',
  request: { params: BackupIdParams },
  responses: {
    200: ok(PublicBackupIdSchema, '"Backup deleted"'),
    400: invalid('"Backups are not available for this type of instance"'),
    ...common,
    404: failure(
      'No such instance of the key’s owner, or no such backup',
      'not_found',
      'Instance not found',
      404,
    ),
    409: conflict('The instance is not deployed'),
    502: upstream('The host failed the deletion'),
  },
});

export const backupDownloadLink = createRoute({
  ...base,
  method: 'post',
  path: '/api/v1/instances/{instanceId}/backups/{backupId}/download',
  operationId: 'v1.instances.backupDownloadLink',
  tags: ['Backup Management'],
  summary: 'A link that downloads the backup as a tar (works for 5 minutes, no key needed to follow it)',
  request: { params: BackupIdParams },
  responses: {
    200: ok(PublicBackupDownloadSchema, '"Download link created"'),
    400: invalid('"Backups are not available for this type of instance"'),
    ...common,
    404: failure(
      'No such instance of the key’s owner, or no such backup',
      'not_found',
      'Instance not found',
      404,
    ),
    409: conflict('The backup is not complete'),
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
  },
});
