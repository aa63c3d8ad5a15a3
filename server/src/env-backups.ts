import { z } from 'zod';
import type { S3Settings } from './backup-storage/s3-store.ts';

// The BACKUP_* settings: the off-site bucket and the schedule of Berth's own database backups.
// env.ts composes them; it alone reads the environment.

export const backupEnv = z.object({
  BACKUP_S3_ENDPOINT: z
    .url('BACKUP_S3_ENDPOINT must be a URL such as https://s3.eu-west-1.amazonaws.com')
    .optional(),
  BACKUP_S3_BUCKET: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
      'BACKUP_S3_BUCKET must be a bucket name (3-63 of a-z, 0-9, . and -)',
    )
    .optional(),
  BACKUP_S3_REGION: z
    .string()
    .regex(/^[a-z0-9-]{1,40}$/, 'BACKUP_S3_REGION must be a region such as us-east-1')
    .optional(),
  BACKUP_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  BACKUP_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  BACKUP_S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false'], { error: 'BACKUP_S3_FORCE_PATH_STYLE must be true or false' })
    .optional(),
  BACKUP_PLATFORM_DAYS: z.coerce
    .number({ error: 'BACKUP_PLATFORM_DAYS must be a number of days' })
    .int('BACKUP_PLATFORM_DAYS must be a whole number of days')
    .min(1, 'BACKUP_PLATFORM_DAYS must be at least 1')
    .max(3650, 'BACKUP_PLATFORM_DAYS must be at most 3650')
    .default(30),
  BACKUP_PLATFORM_TIME: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'BACKUP_PLATFORM_TIME must be a UTC time such as 03:30')
    .default('03:30'),
});

/** The bucket's settings, which are set all together or not at all. */
export const BACKUP_S3_NAMES = [
  'BACKUP_S3_ENDPOINT',
  'BACKUP_S3_BUCKET',
  'BACKUP_S3_REGION',
  'BACKUP_S3_ACCESS_KEY_ID',
  'BACKUP_S3_SECRET_ACCESS_KEY',
  'BACKUP_S3_FORCE_PATH_STYLE',
] as const;

export interface BackupConfig {
  /** The off-site bucket (BACKUP_S3_*, all or none); undefined: `<dataDir>/backups`, not off-site. */
  s3: S3Settings | undefined;
  /** Days Berth's own database backups are kept. */
  platformDays: number;
  /** UTC time of day (minutes after midnight) of the daily backup of Berth's own database. */
  platformMinute: number;
}

export function backupConfigOf(e: z.infer<typeof backupEnv>): BackupConfig {
  return {
    s3:
      e.BACKUP_S3_ENDPOINT &&
      e.BACKUP_S3_BUCKET &&
      e.BACKUP_S3_REGION &&
      e.BACKUP_S3_ACCESS_KEY_ID &&
      e.BACKUP_S3_SECRET_ACCESS_KEY &&
      e.BACKUP_S3_FORCE_PATH_STYLE
        ? {
            endpoint: e.BACKUP_S3_ENDPOINT.replace(/\/$/, ''),
            bucket: e.BACKUP_S3_BUCKET,
            region: e.BACKUP_S3_REGION,
            accessKeyId: e.BACKUP_S3_ACCESS_KEY_ID,
            secretAccessKey: e.BACKUP_S3_SECRET_ACCESS_KEY,
            forcePathStyle: e.BACKUP_S3_FORCE_PATH_STYLE === 'true',
          }
        : undefined,
    platformDays: e.BACKUP_PLATFORM_DAYS,
    platformMinute: Number(e.BACKUP_PLATFORM_TIME.slice(0, 2)) * 60 + Number(e.BACKUP_PLATFORM_TIME.slice(3)),
  };
}
