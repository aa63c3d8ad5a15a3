import { z } from '@hono/zod-openapi';

const USAGE_RANGES = ['1h', '24h', '7d'] as const;
export type UsageRange = (typeof USAGE_RANGES)[number];

export const UsageQuerySchema = z.object({
  range: z.enum(USAGE_RANGES, { error: 'range must be one of 1h, 24h, 7d' }).default('1h').openapi({
    description: 'The last hour (a point per 15 s), 24 hours (per 5 minutes) or 7 days (per 30 minutes)',
  }),
});

const bytes = (description: string) => z.number().nullable().openapi({ description });

const RequestCountsSchema = z
  .object({
    status2xx: z.int().openapi({ description: 'Successful responses (1xx and 2xx)' }),
    status3xx: z.int(),
    status4xx: z.int(),
    status5xx: z.int(),
    bytesSent: z.number().openapi({ description: 'Response body bytes' }),
  })
  // Not a named component: a nullable reference would come out as allOf [$ref, null], which no
  // client reads as nullable.
  .openapi({ description: 'Responses by status class' });

const UsagePointSchema = z
  .object({
    at: z.iso.datetime().openapi({ description: 'Start of the step the point covers' }),
    cpu: z
      .number()
      .nullable()
      .openapi({ description: 'vCPUs used on average over the step; null: not measured' }),
    memoryBytes: bytes('Memory in use (without page cache the system drops at once), averaged over the step'),
    memoryPeakBytes: bytes('The most memory held during the step'),
    memoryLimitBytes: bytes('Its memory limit; null where it has none of its own'),
    diskUsedBytes: bytes('Used of its disk'),
    diskLimitBytes: bytes('The size of its disk'),
    requests: RequestCountsSchema.nullable().openapi({ description: 'Sites and n8n; null for databases' }),
    oomKills: z.int().openapi({ description: 'Processes stopped by the system for memory during the step' }),
  })
  .openapi('UsagePoint');

const LimitSchema = z
  .object({
    label: z.string().openapi({ example: 'Connections' }),
    value: z.string().openapi({ example: 'At most 20 at once' }),
    enforced: z
      .boolean()
      .openapi({ description: 'Its own and enforced (true), or shared with other instances' }),
  })
  .openapi('UsageLimit');

const CurrentAndPeak = z.object({ current: z.number().nullable(), peak: z.number().nullable() });

export const UsageReportSchema = z
  .object({
    instanceId: z.uuid(),
    range: z.enum(USAGE_RANGES),
    stepSeconds: z.int().openapi({ description: 'How long each point covers' }),
    measured: z.boolean().openapi({ description: 'Whether this server measures the instance at all' }),
    limits: z
      .array(LimitSchema)
      .openapi({ description: 'What applies to the instance and whether it is its own' }),
    sharedServer: z.boolean().openapi({
      description:
        'Whether the instance is a tenant of a server it shares with other instances (a database made before servers per instance, or on an operator’s server): its memory and CPU are then not its own',
    }),
    cpuLimit: z
      .number()
      .nullable()
      .openapi({ description: 'vCPUs it may use; null where it shares a server' }),
    lastOutOfMemoryAt: z.iso
      .datetime()
      .nullable()
      .openapi({ description: 'When the system last stopped a process of it for memory (last 30 days)' }),
    summary: z
      .object({
        cpu: CurrentAndPeak.openapi({ description: 'vCPUs: the last point and the highest in the range' }),
        memory: CurrentAndPeak.extend({ limit: z.number().nullable() }).openapi({ description: 'Bytes' }),
        disk: z.object({ used: z.number().nullable(), limit: z.number().nullable() }),
        requests: RequestCountsSchema.extend({ total: z.int() })
          .nullable()
          .openapi({ description: 'Responses over the whole range' }),
      })
      .openapi('UsageSummary'),
    points: z.array(UsagePointSchema).openapi({ description: 'Oldest first' }),
  })
  .openapi('UsageReport');

const StorageSchema = z
  .object({
    sizeBytes: z.number().openapi({ description: 'The disk instances’ disks live on (used + free)' }),
    usedBytes: z.number().openapi({ description: 'What the file system holds now, tenants and all' }),
    freeBytes: z.number(),
    reserveBytes: z.number().openapi({ description: 'Kept for the platform (DISK_RESERVE_MB)' }),
    promisedBytes: z.number().openapi({ description: 'The sizes of every instance’s disk: what was sold' }),
    tenantUsedBytes: z.number().openapi({ description: 'What instances’ disks take on the host now' }),
    overcommit: z.number().openapi({ description: 'Promised ÷ real space allowed (DISK_OVERCOMMIT)' }),
    promiseLimitBytes: z.number().openapi({ description: 'What may be promised in all' }),
    highWaterBytes: z.number().openapi({ description: 'Real use past which new instances are refused' }),
    useShare: z.number().openapi({
      description: 'usedBytes ÷ (size − reserve): admins are told past 0.75, deploys stop past 0.85',
    }),
    headroomSites: z.int().openapi({ description: 'About how many more WordPress sites fit' }),
    holdAllowanceBytes: z.number().nullable().openapi({
      description:
        'While the hold deals allowances (instances’ disks could together take the reserve): what each may write at once; null when nothing is held',
    }),
  })
  .openapi('DiskStorage');

export const HostCapacitySchema = z
  .object({
    memory: z.object({ hostBytes: z.number(), soldBytes: z.number() }),
    cpu: z.object({ hostCpus: z.number(), soldCpus: z.number() }),
    disk: z.object({ totalBytes: z.number(), freeBytes: z.number() }),
    instances: z.int().openapi({ description: 'Deployed instances (memory and CPU sold are theirs)' }),
    storage: StorageSchema.nullable().openapi({
      description: 'The disk policy’s figures on this host; null where each server has its own (places)',
    }),
    enforcement: z.string().openapi({ example: 'cgroup v1' }),
    busiest: z
      .array(
        z.object({
          id: z.uuid(),
          name: z.string(),
          type: z.string(),
          ownerId: z.uuid(),
          cpu: z.number().openapi({ description: 'vCPUs used on average over the last hour' }),
          memoryBytes: z.number().nullable(),
          memoryLimitBytes: z.number().nullable(),
          requests: z.int().openapi({ description: 'Responses in the last hour' }),
        }),
      )
      .openapi({ description: 'The ten that used the most CPU in the last hour' }),
    places: z
      .array(
        z
          .object({
            region: z.string().openapi({ example: 'us-east-1' }),
            node: z.string().openapi({ example: 'worker-2' }),
            state: z.string().openapi({
              description: 'active, pause or drain (the operator’s); down, unknown or disconnected',
            }),
            memoryBytes: z.number(),
            reservedMemoryBytes: z.number(),
            cpus: z.number(),
            reservedCpus: z.number(),
            diskBytes: z.number(),
            diskFreeBytes: z.number(),
            storage: StorageSchema.optional().openapi({ description: 'The disk policy’s figures there' }),
            instances: z.int(),
          })
          .openapi('CapacityPlace'),
      )
      .openapi({
        description:
          'Where instances run, machine by machine, when that is more than this host (a swarm’s nodes, per region); empty on one host',
      }),
  })
  .openapi('HostCapacity');

export type UsagePoint = z.infer<typeof UsagePointSchema>;
export type UsageReport = z.infer<typeof UsageReportSchema>;
export type HostCapacityReport = z.infer<typeof HostCapacitySchema>;
