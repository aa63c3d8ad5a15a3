import {
  CPU_CHOICES,
  CPU_MESSAGE,
  cpuChoice,
  DATABASE_FLAGS,
  DATABASE_PASSWORD_MESSAGE,
  type DatabaseFlag,
  FIELD_LIMITS,
  MEMORY_CHOICES,
  MEMORY_MESSAGE,
  memoryChoice,
  NO_CONTROL_CHARACTERS,
} from '@berth/openapi/rules';
import { z } from '@hono/zod-openapi';
import { INSTANCE_STATUSES } from '../../db/tables/instances.ts';
import { type Feature, INSTANCE_TYPES, type InstanceType } from '../../provisioning/instance-types.ts';
import {
  DEFAULT_CPU,
  DEFAULT_MEMORY,
  DEFAULT_PAGE_SIZE,
  DEFAULT_REGION,
  MAX_PAGE_SIZE,
  REGION_IDS,
  TYPE_ALIASES,
  TYPE_NAMES,
  typeFromInput,
} from './instance-catalog.ts';
import { CustomDomainSchema } from './instance-domains.schemas.ts';

// Field limits come from @berth/openapi/rules, which the UI's validation uses too.

const Name = z
  .string({ error: 'Instance name is required' })
  .trim()
  .min(1, 'Instance name is required')
  .max(FIELD_LIMITS.instanceName, 'Name too long')
  .openapi({ example: 'My Instance' });

/** Each database type's `metadata` flag (the catalogue's), optional: only the instance's own is set. */
const DATABASE_FLAG_FIELDS = Object.fromEntries(
  DATABASE_FLAGS.map((flag) => [flag, z.boolean().optional()]),
) as { [F in DatabaseFlag]: z.ZodOptional<z.ZodBoolean> };

const Description = z.string().trim().max(FIELD_LIMITS.instanceDescription, 'Description too long');

const TYPE_SPELLINGS = [...new Set([...TYPE_NAMES, ...INSTANCE_TYPES, ...TYPE_ALIASES])];

/** A type as requests spell it (its name, id or an alias, any case: typeFromInput), read as its id. */
const TypeInput = (message: string) =>
  z
    .string({ error: message })
    .refine((value) => typeFromInput(value) !== undefined, message)
    .transform((value) => typeFromInput(value) as InstanceType)
    .openapi({
      type: 'string',
      enum: [...TYPE_SPELLINGS],
      description: 'Display name or id, in any case',
      example: 'MySQL',
    });

export const DeployBodySchema = z
  .object({
    name: Name,
    description: Description.optional(),
    type: TypeInput('Please select an application or a database'),
    region: z.enum(REGION_IDS, { error: 'Please select a valid region' }).default(DEFAULT_REGION),
    // The choices the server enforces (a control group or container limit per instance); equivalent
    // spellings ('4096MB', '2.0') are stored as the choice they name.
    memory: z
      .string()
      .refine((value) => memoryChoice(value) !== undefined, MEMORY_MESSAGE)
      .transform((value) => memoryChoice(value) ?? DEFAULT_MEMORY)
      .default(DEFAULT_MEMORY)
      .openapi({
        type: 'string',
        enum: [...MEMORY_CHOICES],
        // Said again: the refine before the default hides it from the document.
        default: DEFAULT_MEMORY,
        description: 'The memory the instance has to itself (n8n: at least 1GB)',
      }),
    cpu: z
      .string()
      .refine((value) => cpuChoice(value) !== undefined, CPU_MESSAGE)
      .transform((value) => cpuChoice(value) ?? DEFAULT_CPU)
      .default(DEFAULT_CPU)
      .openapi({
        type: 'string',
        enum: [...CPU_CHOICES],
        default: DEFAULT_CPU,
        description: 'vCPUs the instance may use (n8n: at least 0.5)',
      }),
    domainType: z
      .enum(['Temporary', 'Custom Domain'])
      .optional()
      .openapi({ description: 'Applications only (comes with site hosting)' }),
    customDomain: z.string().trim().max(253).optional().openapi({ description: 'Applications only' }),
    title: z.string().max(200).optional().openapi({ description: 'WordPress site title' }),
    username: z.string().max(60).optional().openapi({ description: 'WordPress admin username' }),
    email: z
      .string()
      .max(254)
      .optional()
      .openapi({ description: 'WordPress admin e-mail; n8n: the owner account e-mail' }),
    password: z.string().max(256).optional().openapi({
      description: 'WordPress admin password; n8n: the owner account password (8–64, a number, a capital)',
    }),
    phpversion: z.string().max(20).optional().openapi({ description: 'WordPress PHP version' }),
  })
  .openapi('DeployInstanceRequest');

export const UpdateBodySchema = z
  .object({ name: Name, description: Description.optional() })
  .openapi('UpdateInstanceRequest');

export const ChangePasswordBodySchema = z
  .object({
    type: TypeInput('Only MongoDB or MySQL password changes are supported'),
    password: z
      .string({ error: 'Password is required' })
      .min(1, 'Password is required')
      .min(FIELD_LIMITS.databasePassword.min, DATABASE_PASSWORD_MESSAGE)
      .max(FIELD_LIMITS.databasePassword.max, DATABASE_PASSWORD_MESSAGE)
      .regex(NO_CONTROL_CHARACTERS, DATABASE_PASSWORD_MESSAGE),
  })
  .openapi('ChangeInstancePasswordRequest');

const positiveInt = (label: string, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `${label} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, `${label} must be between 1 and ${max}`);

export const ListQuerySchema = z.object({
  page: positiveInt('page', 1_000_000).optional().openapi({ description: 'Default 1', example: '1' }),
  limit: positiveInt('limit', MAX_PAGE_SIZE)
    .optional()
    .openapi({
      description: `Default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}`,
      example: String(DEFAULT_PAGE_SIZE),
    }),
  search: z.string().max(200).optional().openapi({ description: 'Part of the name (trimmed, any case)' }),
});

export const InstanceIdParamsSchema = z.object({
  id: z
    .string()
    .openapi({ param: { name: 'id', in: 'path' }, example: '3f0c1f5e-8a1b-4c1e-9a3e-2d4b5c6d7e8f' }),
});

export const TypeQuerySchema = z.object({
  type: z.string().max(40).optional().openapi({
    description: 'Accepted for compatibility (MongoDB, MySQL, …) and ignored: the instance knows its type',
  }),
});

const FeatureOfferSchema = z
  .object({
    available: z.boolean(),
    reason: z.string().nullable().openapi({
      description:
        'Why this server does not offer it, in the customer’s words (shown where the feature would be, and the message of the 409 its endpoints answer); null when available',
      example: 'SFTP is not offered on this server yet',
    }),
  })
  .openapi('InstanceFeature');

const offer = (what: string) => FeatureOfferSchema.optional().openapi({ description: what });

/** Each feature of the instance's type (instance-types.ts TYPE_FEATURES), and only those. */
const FEATURE_SHAPES = {
  password: offer('Databases: a new database password (POST /api/instances/{id}/password)'),
  domains: offer('WordPress and n8n: a custom domain over HTTPS (/domain, /ssl)'),
  sftp: offer('WordPress: the SFTP login (`sftp` in /access)'),
  storage: offer('How much of its disk it uses, and its size (GET /storage)'),
  usage: offer('CPU, memory, disk and requests over time (GET /usage)'),
  backups: offer('Backups: manual and daily, restores and downloads (/backups)'),
  databaseAdmin: offer('MySQL and WordPress: phpMyAdmin in the browser (`database.phpmyadmin` in /access)'),
} satisfies Record<Feature, z.ZodType>;

const InstanceFeaturesSchema = z.object(FEATURE_SHAPES).openapi('InstanceFeatures', {
  description:
    'What the instance has besides running, feature by feature: exactly the features of its type, each available or with the reason this server does not offer it. An endpoint of an unavailable feature answers 409 with that reason.',
});

export const InstanceSchema = z
  .object({
    _id: z.uuid().openapi({ description: 'The same value as `id`' }),
    id: z.uuid(),
    name: z.string(),
    description: z.string(),
    type: z.enum(TYPE_NAMES),
    product: z.enum(INSTANCE_TYPES).openapi({ description: 'The type as an id (mysql, postgresql, …)' }),
    category: z.enum(['application', 'database']),
    status: z.enum(INSTANCE_STATUSES),
    statusMessage: z
      .string()
      .nullable()
      .openapi({ description: 'Why it is in error; null when all is well' }),
    url: z.string().nullable().openapi({ description: 'Null for databases' }),
    adminUrl: z.string().nullable().openapi({ description: 'WordPress: /wp-admin/; n8n: the editor' }),
    ownerEmail: z
      .string()
      .optional()
      .openapi({ description: 'n8n: the e-mail of the owner account the editor is logged in with' }),
    region: z.string().openapi({ example: 'us-east-1' }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    deploymentConfig: z.object({ region: z.string(), memory: z.string(), cpu: z.string() }),
    suspended: z.boolean().openapi({ description: 'Logins refused because the subscription is inactive' }),
    customDomain: CustomDomainSchema.nullable().openapi({
      description: 'WordPress sites only; null without one',
    }),
    features: InstanceFeaturesSchema,
    metadata: z
      .object({ database: z.boolean(), ...DATABASE_FLAG_FIELDS })
      .openapi({ description: 'Flags only; credentials come from GET /api/instances/{id}/access' }),
  })
  .openapi('Instance');

export const InstanceListSchema = z
  .object({
    instances: z.array(InstanceSchema).openapi({ description: 'Newest first' }),
    total: z.int().openapi({ description: 'Instances matching the search, on all pages' }),
    pages: z.int(),
    page: z.int(),
    limit: z.int(),
  })
  .openapi('InstanceList');

export const InstanceResultSchema = z.object({ instance: InstanceSchema }).openapi('InstanceResult');

export const InstanceChangeSchema = z
  .object({ instance: InstanceSchema, message: z.string() })
  .openapi('InstanceChange');

export const DatabaseAccessSchema = z
  .object({
    database: z
      .object({
        host: z.string(),
        port: z.int(),
        name: z.string(),
        user: z.string(),
        password: z.string(),
        connectionString: z.string().openapi({
          description:
            'A URL with everything above; where TLS is required it asks the client to verify the server (`ssl-mode=VERIFY_IDENTITY&ssl-ca=berth-ca.pem`, `sslmode=verify-full&sslrootcert=berth-ca.pem`)',
          example: 'mysql://u_x:secret@db.example.com:20001/t_x?ssl-mode=VERIFY_IDENTITY&ssl-ca=berth-ca.pem',
        }),
        tls: z
          .object({
            required: z.boolean().openapi({
              description:
                'Whether the server refuses connections without TLS (a server of the instance’s own)',
            }),
            caCertificate: z.string().nullable().openapi({
              description:
                'PEM of the certificate authority that signed the server’s certificate, to verify it (`--ssl-ca`, `sslrootcert`); null when no TLS is offered or the certificate comes from a public authority',
            }),
            caFileName: z.string().nullable().openapi({
              description: 'The file name the connection string expects the CA certificate under',
              example: 'berth-ca.pem',
            }),
          })
          .openapi({ description: 'How clients connect securely' }),
        phpmyadmin: z.string().nullable().openapi({
          description:
            'The address of phpMyAdmin for this database: MySQL instances with a server of their own, where the server runs a front door. It logs in to this database only, with its user and password. Null for other instances (connect with any client instead)',
          example: 'http://pma-3f2a1b4c5d6e.sites.example.com/',
        }),
      })
      .nullable()
      .openapi({
        description:
          "The database's connection details. Null for a WordPress site whose database answers only on the site's private network (its `features.databaseAdmin` says whether it can be managed in the browser)",
      }),
    sftp: z
      .object({
        ipAddress: z.string(),
        port: z.int(),
        user: z.string(),
        password: z.string(),
      })
      .nullable()
      .openapi({
        description:
          'WordPress sites: the SFTP login (chrooted to the site); null for databases, and where this server offers no SFTP (`features.sftp` of the instance says why)',
      }),
  })
  .openapi('InstanceAccess');

const TypeCapabilitySchema = z.object({
  type: z.enum(INSTANCE_TYPES),
  name: z.enum(TYPE_NAMES),
  category: z.enum(['application', 'database']),
  available: z.boolean(),
  reason: z.string().nullable().openapi({
    description:
      'Why it cannot be deployed now, for customers ("n8n is being set up on this server; it will be ready in about 5 minutes"); null when available',
  }),
});

export const CapabilitiesSchema = z
  .object({
    types: z.array(TypeCapabilitySchema),
    regions: z
      .array(
        z.object({
          id: z.enum(REGION_IDS),
          label: z.string(),
          available: z.boolean(),
          reason: z.string().nullable().openapi({ description: 'Why instances cannot be placed there' }),
        }),
      )
      .openapi({ description: 'Every region, and whether this server places instances there' }),
    php: z
      .object({
        versions: z.array(z.string()).openapi({
          description:
            'The PHP versions WordPress sites can run on here, newest first (what a deploy may name)',
        }),
        default: z.string().nullable().openapi({
          description: 'The version a WordPress deploy takes when it names none; null when none',
        }),
      })
      .openapi({ description: 'PHP of WordPress sites on this server' }),
  })
  .openapi('InstanceCapabilities');

/** For admins: the customer's reason and the operator's detail (host paths, the command that fixes it). */
export const OperatorCapabilitiesSchema = z
  .object({
    types: z.array(
      TypeCapabilitySchema.extend({
        detail: z.string().nullable().openapi({
          description:
            'The operator’s reason: what is missing on the host and how to fix it; null when available or when there is none',
        }),
      }),
    ),
    backups: z
      .object({
        offsite: z.boolean().openapi({ description: 'Whether backups are kept away from this server' }),
        where: z.string().openapi({ description: 'Where backups are kept (a folder, or a bucket)' }),
        detail: z
          .string()
          .nullable()
          .openapi({ description: 'What the operator should do about it; null when off-site' }),
        sweep: z
          .object({
            sweptAt: z.iso.datetime(),
            orphans: z.int().openapi({
              description: 'Places in the store no backup record names (removed after `graceDays`)',
            }),
            missing: z.int().openapi({ description: 'Complete backups whose files the store lacks' }),
            removed: z.int().openapi({ description: 'Orphans that sweep removed, their grace period over' }),
            graceDays: z.int(),
          })
          .nullable()
          .openapi({ description: 'What the last sweep of the store found; null before the first' }),
      })
      .openapi({ description: 'Where instances’ and Berth’s own backups go' }),
  })
  .openapi('OperatorInstanceCapabilities');

export type DeployBody = z.infer<typeof DeployBodySchema>;
export type UpdateBody = z.infer<typeof UpdateBodySchema>;
export type ChangePasswordBody = z.infer<typeof ChangePasswordBodySchema>;
export type ListQuery = z.infer<typeof ListQuerySchema>;
export type Instance = z.infer<typeof InstanceSchema>;
export type InstanceFeatures = z.infer<typeof InstanceFeaturesSchema>;
export type InstanceList = z.infer<typeof InstanceListSchema>;
export type DatabaseAccess = z.infer<typeof DatabaseAccessSchema>;
export type Capabilities = z.infer<typeof CapabilitiesSchema>;
export type OperatorCapabilities = z.infer<typeof OperatorCapabilitiesSchema>;
