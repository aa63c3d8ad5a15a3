import { BACKUP_FIELDS } from '@berth/openapi/rules';
import { createRoute, z } from '@hono/zod-openapi';
import { errorResponse, json, MessageSchema } from '../../../lib/openapi-schemas.ts';
import {
  driverFailed,
  inactive,
  notFound,
  notSignedIn,
  signedIn,
  tags,
  unavailableHere,
} from '../instance-route-responses.ts';
import { InstanceIdParamsSchema } from '../instances.schemas.ts';
import {
  BackupBodySchema,
  BackupCreatedSchema,
  BackupDownloadSchema,
  BackupListSchema,
  BackupParamsSchema,
  SiteStorageSchema,
} from './instance-backups.schemas.ts';

// A site's storage use, and an instance's backups: list, create, restore, delete, download.

export const storage = createRoute({
  method: 'get',
  path: '/api/instances/{id}/storage',
  operationId: 'instances.storage',
  tags,
  summary:
    'How much of its storage an instance uses, and its size (a site’s own disk: files, uploads, sessions, logs; a database’s data)',
  ...signedIn,
  request: { params: InstanceIdParamsSchema },
  responses: {
    200: json(SiteStorageSchema, 'Storage use'),
    401: notSignedIn,
    404: notFound,
    409: errorResponse(
      `Still deploying, never deployed, being deleted, no size is kept for it (a database on an operator’s server), ${unavailableHere('storage figures')}`,
    ),
    502: driverFailed('Failed to load storage use'),
  },
});

const BACKUPS_LACKING = '"Backups are not available for this type of instance" (MongoDB)';

export const listBackups = createRoute({
  method: 'get',
  path: '/api/instances/{id}/backups',
  operationId: 'instances.backups',
  tags,
  summary: 'The backups of an instance, newest first: scheduled and manual, with where each is kept',
  ...signedIn,
  request: { params: InstanceIdParamsSchema },
  responses: {
    200: json(BackupListSchema, 'Backups'),
    400: errorResponse(BACKUPS_LACKING),
    401: notSignedIn,
    404: notFound,
    409: errorResponse(`Not offered: ${unavailableHere('backups of its type')}`),
  },
});

export const createBackup = createRoute({
  method: 'post',
  path: '/api/instances/{id}/backups/new',
  operationId: 'instances.createBackup',
  tags,
  summary:
    'Back up an instance now (WordPress: database + wp-content; MySQL, PostgreSQL: a dump; n8n: its data and key)',
  description:
    'Records the backup and starts it: it reads `running` (with its progress on the live stream) until every part is stored, encrypted and checked, then `complete` (or `failed`, with the reason).',
  ...signedIn,
  request: {
    params: InstanceIdParamsSchema,
    body: {
      ...json(
        BackupBodySchema,
        `Name (up to ${BACKUP_FIELDS.nameMax}) and an optional note (up to ${BACKUP_FIELDS.noteMax})`,
      ),
      required: true,
    },
  },
  responses: {
    201: json(BackupCreatedSchema, '"Backup creation started", with the new backup’s id three ways'),
    400: errorResponse(`"Backup name is required", "Name too long", "Note too long", or ${BACKUPS_LACKING}`),
    401: notSignedIn,
    403: inactive('Your subscription is inactive. Creating backups is disabled.'),
    404: notFound,
    409: errorResponse(
      `Not running, a backup already in progress, 10 manual backups kept, ${unavailableHere('backups of its type')}`,
    ),
  },
});

export const restoreBackup = createRoute({
  method: 'post',
  path: '/api/instances/{id}/backups/{backupId}/restore',
  operationId: 'instances.restoreBackup',
  tags,
  summary: 'Restore a backup exactly: the instance’s data is replaced (checksums verified first)',
  description:
    'The instance shows `restoring` until the restore ends, then `running` (or `error` with the reason), on the live stream. An instance whose server is gone (`error`: "Waiting for its server to come back", or its server lost) is deployed again first, then restored.',
  ...signedIn,
  request: { params: BackupParamsSchema },
  responses: {
    202: json(MessageSchema, '"Restore initiated"'),
    400: errorResponse(BACKUPS_LACKING),
    401: notSignedIn,
    403: inactive('Restoring backups is disabled.'),
    404: errorResponse('No such instance of this user, or no such backup'),
    409: errorResponse(
      `The instance is not running (nor waiting for a server that is gone), the backup is not complete, ${unavailableHere('backups of its type')}`,
    ),
  },
});

export const deleteBackup = createRoute({
  method: 'delete',
  path: '/api/instances/{id}/backups/{backupId}',
  operationId: 'instances.deleteBackup',
  tags,
  summary: 'Delete a backup',
  ...signedIn,
  request: { params: BackupParamsSchema },
  responses: {
    200: json(MessageSchema, '"Backup deleted"'),
    400: errorResponse(BACKUPS_LACKING),
    401: notSignedIn,
    403: inactive('Deleting backups is disabled.'),
    404: errorResponse('No such instance of this user, or no such backup'),
    409: errorResponse(`The backup is still being made, ${unavailableHere('backups of its type')}`),
    502: driverFailed('Failed to delete backup'),
  },
});

export const backupDownloadLink = createRoute({
  method: 'post',
  path: '/api/instances/{id}/backups/{backupId}/download',
  operationId: 'instances.backupDownloadLink',
  tags,
  summary:
    'A link that downloads the backup as a tar of its parts, decrypted: once, within 5 minutes, while the session that made it goes on',
  ...signedIn,
  request: { params: BackupParamsSchema },
  responses: {
    200: json(BackupDownloadSchema, 'The link'),
    400: errorResponse(BACKUPS_LACKING),
    401: notSignedIn,
    404: errorResponse('No such instance of this user, or no such backup'),
    409: errorResponse(`The backup is not complete, ${unavailableHere('backups of its type')}`),
  },
});

export const backupDownload = createRoute({
  method: 'get',
  path: '/api/backup-downloads/{token}',
  operationId: 'instances.backupDownload',
  tags,
  summary:
    'The download a backup link gives (the link is the credential: it works once, for 5 minutes, until a sign-out or password change)',
  security: [],
  request: { params: z.object({ token: z.string().openapi({ param: { name: 'token', in: 'path' } }) }) },
  responses: {
    200: {
      content: { 'application/x-tar': { schema: z.string().openapi({ format: 'binary' }) } },
      description: 'The backup’s parts as a tar',
    },
    404: errorResponse('"This download link is invalid or has expired", or the backup is gone'),
    410: errorResponse(
      'The link was used already, or its session was signed out or its password changed since it was made',
    ),
  },
});
