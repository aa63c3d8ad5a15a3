import { createRoute } from '@hono/zod-openapi';
import { BackupBodySchema } from '../instances/backups/instance-backups.schemas.ts';
import { DomainBodySchema } from '../instances/instance-domains.schemas.ts';
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
  BackupIdParams,
  InstanceIdParams,
  PublicBackupDownloadSchema,
  PublicBackupIdSchema,
  PublicBackupListSchema,
  PublicInstanceSchema,
  PublicSslSchema,
} from './public-api.schemas.ts';

// A site's custom domain and certificate, and an instance's backups, in the public API.

/** What an operation on one backup answers besides its own outcome: not for this type, not found. */
const oneBackup = {
  400: invalid('"Backups are not available for this type of instance"'),
  ...common,
  404: failure(
    'No such instance of the key’s owner, or no such backup',
    'not_found',
    'Instance not found',
    404,
  ),
};

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
    409: conflict(
      'The domain belongs to another account, or the instance is not deployed, or this server does not offer it (`details.reason`, as in the instance’s `features`)',
    ),
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
    409: conflict(
      'The instance is not deployed or is being deleted, or this server does not offer it (`details.reason`, as in the instance’s `features`)',
    ),
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
    409: conflict(
      'The domain is not verified yet, or the instance is not deployed, or this server does not offer it (`details.reason`, as in the instance’s `features`)',
    ),
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
    409: conflict(
      'The instance is not deployed, or this server does not offer it (`details.reason`, as in the instance’s `features`)',
    ),
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
    409: conflict(
      'The instance is not deployed, or this server does not offer it (`details.reason`, as in the instance’s `features`)',
    ),
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
    409: conflict(
      'Not deployed, suspended, or the Idempotency-Key was used with another body, or this server does not offer it (`details.reason`, as in the instance’s `features`)',
    ),
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
    ...oneBackup,
    409: conflict(
      'The instance is not deployed, or this server does not offer it (`details.reason`, as in the instance’s `features`)',
    ),
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
    ...oneBackup,
    409: conflict(
      'The instance is not deployed, or this server does not offer it (`details.reason`, as in the instance’s `features`)',
    ),
    502: upstream('The host failed the deletion'),
  },
});

export const backupDownloadLink = createRoute({
  ...base,
  method: 'post',
  path: '/api/v1/instances/{instanceId}/backups/{backupId}/download',
  operationId: 'v1.instances.backupDownloadLink',
  tags: ['Backup Management'],
  summary:
    'A link that downloads the backup as a tar (works once, for 5 minutes, no key needed to follow it; a password change ends it)',
  request: { params: BackupIdParams },
  responses: {
    200: ok(PublicBackupDownloadSchema, '"Download link created"'),
    ...oneBackup,
    409: conflict(
      'The backup is not complete, or this server does not offer it (`details.reason`, as in the instance’s `features`)',
    ),
  },
});
