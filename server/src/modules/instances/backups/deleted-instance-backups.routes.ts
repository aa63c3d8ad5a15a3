import { createRoute } from '@hono/zod-openapi';
import { errorResponse, json, MessageSchema } from '../../../lib/openapi-schemas.ts';
import { driverFailed, inactive, notSignedIn, signedIn, tags } from '../instance-route-responses.ts';
import { InstanceChangeSchema } from '../instances.schemas.ts';
import {
  DeletedBackupParamsSchema,
  DeletedInstanceBackupListSchema,
  RestoreIntoNewBodySchema,
} from './deleted-instance-backups.schemas.ts';

// The backups of the signed-in user's deleted instances: listed, restored into a new instance, deleted.

const notTheirs = errorResponse(
  'No such backup of a deleted instance of this user (`not_found`, "Backup not found")',
);

export const listDeletedBackups = createRoute({
  method: 'get',
  path: '/api/deleted-instances/backups',
  operationId: 'instances.deletedBackups',
  tags,
  summary:
    'The complete backups of the signed-in user’s deleted instances, newest first, each kept until its plan’s days have passed',
  ...signedIn,
  responses: { 200: json(DeletedInstanceBackupListSchema, 'Backups of deleted instances'), 401: notSignedIn },
});

export const restoreIntoNew = createRoute({
  method: 'post',
  path: '/api/deleted-instances/backups/{backupId}/restore',
  operationId: 'instances.restoreIntoNew',
  tags,
  summary: 'Deploy a new instance of the backup’s type and restore the backup into it',
  description:
    'A deploy like any other (the plan must allow another instance; region and resource rules apply), sized like the deleted instance. The new instance deploys, then shows `restoring`, then `running` with the backup’s data (or `error` with the reason), on the live stream.',
  ...signedIn,
  request: {
    params: DeletedBackupParamsSchema,
    body: {
      ...json(RestoreIntoNewBodySchema, 'The new instance’s name, description and region (all optional)'),
    },
  },
  responses: {
    202: json(InstanceChangeSchema, '"Restore into a new instance initiated", with the new instance'),
    400: errorResponse('An invalid name or region, or a region or size this server does not offer'),
    401: notSignedIn,
    403: errorResponse(
      'The plan allows no more instances (`plan_limit`), or the subscription is inactive (`subscription_inactive`, "Restoring backups is disabled.")',
    ),
    404: notTheirs,
    409: errorResponse('This type of instance cannot be deployed or restored on this server now'),
  },
});

export const deleteDeletedBackup = createRoute({
  method: 'delete',
  path: '/api/deleted-instances/backups/{backupId}',
  operationId: 'instances.deleteDeletedBackup',
  tags,
  summary: 'Delete a backup of a deleted instance now (its files with it)',
  ...signedIn,
  request: { params: DeletedBackupParamsSchema },
  responses: {
    200: json(MessageSchema, '"Backup deleted"'),
    401: notSignedIn,
    403: inactive('Deleting backups is disabled.'),
    404: notTheirs,
    502: driverFailed('Failed to delete backup'),
  },
});
