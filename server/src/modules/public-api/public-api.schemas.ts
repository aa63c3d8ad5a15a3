import { PUBLIC_API_DEFAULT_TYPE } from '@berth/openapi/rules';
import { z } from '@hono/zod-openapi';
import { BackupDownloadSchema, BackupSchema } from '../instances/backups/instance-backups.schemas.ts';
import { SslResultSchema } from '../instances/instance-domains.schemas.ts';
import { DatabaseAccessSchema, DeployBodySchema, InstanceSchema } from '../instances/instances.schemas.ts';
import { UsageReportSchema } from '../usage/usage.schemas.ts';

// The shapes of /api/v1. Field rules are the same
// zod schemas /api uses (instances.schemas.ts); only the envelope and a few spellings differ.

/** `{ success: true, message, data }`: every successful /api/v1 answer. */
function envelope<T extends z.ZodType>(data: T, name: string, message: string) {
  return z
    .object({
      success: z.literal(true),
      message: z.string().openapi({ example: message }),
      data,
    })
    .openapi(name);
}

/**
 * The `error` of a /api/v1 error answer, by status: the names of the spec's error table (401
 * Unauthorized, 403 Forbidden, 404 Not Found, 429 Too Many Requests) and HTTP's reason phrase for the
 * other statuses. The stable machine code (`not_found`, `plan_limit`, …) is `details.code`.
 */
export const PUBLIC_ERROR_NAMES = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
} as const;

export type PublicErrorName = (typeof PUBLIC_ERROR_NAMES)[keyof typeof PUBLIC_ERROR_NAMES];

export const PublicErrorSchema = z
  .object({
    error: z
      .enum(Object.values(PUBLIC_ERROR_NAMES) as [PublicErrorName, ...PublicErrorName[]])
      .openapi({ example: 'Unauthorized', description: 'The status’s name (the error table above)' }),
    message: z.string().openapi({ example: 'Invalid or missing API key' }),
    details: z
      .object({
        code: z.string().openapi({
          example: 'unauthorized',
          description: 'A stable machine-readable code (`validation_error`, `plan_limit`, `conflict`, …)',
        }),
      })
      .catchall(z.unknown())
      .openapi({
        description: '`code` always; per-field messages (`fieldErrors`) for 400; `requestId` for 5xx',
      }),
  })
  .openapi('PublicError');

export const InstanceIdParams = z.object({
  instanceId: z.string().openapi({
    param: { name: 'instanceId', in: 'path' },
    example: '3f0c1f5e-8a1b-4c1e-9a3e-2d4b5c6d7e8f',
  }),
});

export const BackupIdParams = InstanceIdParams.extend({
  backupId: z.string().openapi({ param: { name: 'backupId', in: 'path' }, example: 'b-1a2b3c4d5e6f' }),
});

const shape = DeployBodySchema.shape;

export const PublicCreateInstanceSchema = z
  .object({
    name: shape.name,
    description: shape.description,
    // The spec's default: n8n (which needs its owner account, `n8n`).
    type: shape.type.default(PUBLIC_API_DEFAULT_TYPE).openapi({ default: PUBLIC_API_DEFAULT_TYPE }),
    region: shape.region,
    memory: shape.memory.openapi({ example: '1GB' }),
    cpu: shape.cpu.openapi({ example: '1' }),
    domain: z
      .object({
        type: z.enum(['temporary', 'custom']),
        value: z.string().max(253).optional().openapi({ example: 'shop.example.com' }),
      })
      .optional()
      .openapi({ description: 'WordPress only: a temporary address, or a custom domain (`value`)' }),
    wordpress: z
      .object({
        siteTitle: z.string().max(200).optional(),
        adminUsername: z.string().max(60).optional(),
        adminEmail: z.string().max(254).optional(),
        adminPassword: z.string().max(256).optional(),
        phpVersion: z.string().max(20).optional(),
      })
      .optional()
      .openapi({
        description: 'Required for WordPress: siteTitle, adminUsername, adminEmail, adminPassword',
      }),
    n8n: z
      .object({
        ownerEmail: z.string().max(254).optional(),
        ownerPassword: z.string().max(256).optional(),
      })
      .optional()
      .openapi({
        description:
          'Required for n8n (the default type): the owner account the editor signs in with; the password has 8–64 characters with a number and a capital letter',
      }),
  })
  .refine((body) => body.domain?.type !== 'custom' || Boolean(body.domain.value?.trim()), {
    message: 'Custom domain is required',
    path: ['domain', 'value'],
  })
  .refine((body) => body.domain?.type !== 'temporary' || body.domain.value === undefined, {
    message: 'A temporary domain takes no value',
    path: ['domain', 'value'],
  })
  .openapi('PublicCreateInstanceRequest', {
    example: { name: 'orders-db', type: 'MySQL', region: 'eu-west-1', memory: '1GB', cpu: '1' },
  });

export type PublicCreateInstance = z.infer<typeof PublicCreateInstanceSchema>;

export const PublicInstanceListSchema = envelope(
  z.object({
    instances: z.array(InstanceSchema).openapi({ description: 'Newest first' }),
    total: z.int().openapi({ description: 'All the user’s instances matching the search' }),
    maxInstances: z.int().openapi({ description: 'What the plan allows; -1 is unlimited (Pro)' }),
    page: z.int(),
    pages: z.int(),
    limit: z.int(),
  }),
  'PublicInstanceList',
  'Instances retrieved',
);

export const PublicInstanceSchema = envelope(
  z.object({ instance: InstanceSchema }),
  'PublicInstanceResult',
  'Instance retrieved',
);

export const PublicDeletedSchema = envelope(
  z.object({ instanceId: z.uuid(), name: z.string(), deletedAt: z.iso.datetime() }),
  'PublicInstanceDeleted',
  'Instance deletion initiated',
);

export const PublicAccessSchema = envelope(
  DatabaseAccessSchema,
  'PublicInstanceAccess',
  'Access credentials',
);

export const PublicPendingSchema = envelope(
  z.object({ instanceId: z.uuid() }),
  'PublicPending',
  'Credentials not ready yet',
);

export const PublicInstanceIdSchema = envelope(
  z.object({ instanceId: z.uuid() }),
  'PublicInstanceId',
  'MySQL password updated',
);

export const PublicSslSchema = envelope(SslResultSchema, 'PublicSslResult', 'SSL status retrieved');

export const PublicBackupListSchema = envelope(
  z.object({ backups: z.array(BackupSchema).openapi({ description: 'Newest first' }) }),
  'PublicBackupList',
  'Backups retrieved',
);

export const PublicBackupDownloadSchema = envelope(
  BackupDownloadSchema,
  'PublicBackupDownload',
  'Download link created',
);

export const PublicBackupIdSchema = envelope(
  z.object({ instanceId: z.uuid(), backupId: z.string() }),
  'PublicBackupRef',
  'Backup creation started',
);

export const PublicUsageSchema = envelope(UsageReportSchema, 'PublicUsageReport', 'Usage retrieved');
