import { BACKUP_FIELDS } from '@berth/openapi/rules';
import { z } from '@hono/zod-openapi';

// An instance's backups, and the storage its site uses.

export const BackupSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    note: z.string(),
    createdAt: z.iso.datetime(),
    completedAt: z.iso.datetime().nullable(),
    kind: z.enum(['scheduled', 'manual']).openapi({ description: 'Made by the daily schedule, or by hand' }),
    status: z
      .enum(['running', 'complete', 'failed'])
      .openapi({ description: 'running until every part is stored and checked' }),
    step: z.string().nullable().openapi({ description: 'What a running backup is doing now' }),
    error: z.string().nullable().openapi({ description: 'Why it failed, with the reference of the request' }),
    bytes: z.int().openapi({ description: 'Bytes backed up (so far, while running)' }),
    size: z.int().openapi({ description: 'Bytes of the stored archives (encrypted)' }),
    location: z.string().openapi({ description: 'Where it is kept: "Off-site storage" or "This server"' }),
    offsite: z.boolean(),
  })
  .openapi('Backup');

export const BackupDownloadSchema = z
  .object({
    url: z.string().openapi({ description: 'Downloads the backup as a tar, for the owner, for 5 minutes' }),
    expiresAt: z.iso.datetime(),
  })
  .openapi('BackupDownload');

export const BackupListSchema = z.array(BackupSchema).openapi('BackupList');

export const SiteStorageSchema = z
  .object({
    usedBytes: z.number().int().nonnegative().openapi({ description: 'Bytes the site uses on its disk' }),
    limitBytes: z
      .number()
      .int()
      .positive()
      .openapi({ description: "The site's storage: when it is full, uploads and SFTP writes fail" }),
  })
  .openapi('SiteStorage');

export const BackupBodySchema = z
  .object({
    name: z
      .string({ error: 'Backup name is required' })
      .trim()
      .min(1, 'Backup name is required')
      .max(BACKUP_FIELDS.nameMax, 'Name too long'),
    note: z.string().trim().max(BACKUP_FIELDS.noteMax, 'Note too long').optional(),
  })
  .openapi('CreateBackupRequest');

export const BackupCreatedSchema = z
  .object({
    id: z.string(),
    backupId: z.string(),
    'backup-id': z.string(),
    message: z.string().openapi({ example: 'Backup creation started' }),
  })
  .openapi('BackupCreated');

export const BackupParamsSchema = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' } }),
  backupId: z.string().openapi({ param: { name: 'backupId', in: 'path' }, example: 'b-1a2b3c4d5e6f' }),
});

export type Backup = z.infer<typeof BackupSchema>;
export type BackupBody = z.infer<typeof BackupBodySchema>;
export type BackupDownload = z.infer<typeof BackupDownloadSchema>;
export type SiteStorage = z.infer<typeof SiteStorageSchema>;
