import { FIELD_LIMITS } from '@berth/openapi/rules';
import { z } from '@hono/zod-openapi';
import { INSTANCE_TYPES } from '../../../provisioning/instance-types.ts';
import { REGION_IDS } from '../instance-catalog.ts';
import { BackupSchema } from './instance-backups.schemas.ts';

// The backups of a customer's deleted instances: kept until their plan's days have passed, restorable
// into a new instance of the same type.

const DeletedInstanceBackupSchema = BackupSchema.omit({ status: true, step: true, error: true })
  .extend({
    keptUntil: z.iso.datetime().openapi({
      description: 'When it is removed (its plan’s days after it was made), with its files',
    }),
    instance: z
      .object({
        id: z.string().openapi({ description: 'The deleted instance’s id' }),
        name: z.string(),
        type: z.string().openapi({ description: 'Display name: MySQL, PostgreSQL, WordPress, n8n' }),
        product: z.enum(INSTANCE_TYPES),
        region: z.string(),
        deletedAt: z.iso.datetime(),
      })
      .openapi({ description: 'The deleted instance it was made of' }),
    restorable: z.boolean().openapi({ description: 'Whether it can be restored into a new instance here' }),
    reason: z.string().nullable().openapi({ description: 'Why it cannot; null when it can' }),
  })
  .openapi('DeletedInstanceBackup');

export const DeletedInstanceBackupListSchema = z
  .object({ backups: z.array(DeletedInstanceBackupSchema) })
  .openapi('DeletedInstanceBackupList');

export const RestoreIntoNewBodySchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, 'Instance name is required')
      .max(FIELD_LIMITS.instanceName, 'Name too long')
      .optional()
      .openapi({ description: 'The new instance’s name (default: the deleted instance’s)' }),
    description: z.string().trim().max(FIELD_LIMITS.instanceDescription, 'Description too long').optional(),
    region: z
      .enum(REGION_IDS, { error: 'Please select a valid region' })
      .optional()
      .openapi({ description: 'Where to deploy it (default: the deleted instance’s region)' }),
  })
  .openapi('RestoreIntoNewInstanceRequest');

export const DeletedBackupParamsSchema = z.object({
  backupId: z.string().openapi({ param: { name: 'backupId', in: 'path' }, example: 'b-1a2b3c4d5e6f' }),
});

export type DeletedInstanceBackup = z.infer<typeof DeletedInstanceBackupSchema>;
export type RestoreIntoNewBody = z.infer<typeof RestoreIntoNewBodySchema>;
