import { z } from '@hono/zod-openapi';

const NodeSchema = z.object({
  id: z.string(),
  hostname: z.string(),
  role: z.enum(['manager', 'worker']),
  state: z.string().openapi({ description: 'ready · down · unknown · disconnected (the manager’s view)' }),
  availability: z.string().openapi({ description: 'active · pause · drain (the operator’s)' }),
  address: z.string().openapi({ description: 'The address customers’ database clients reach it at' }),
  labels: z.record(z.string(), z.string()),
  memoryBytes: z.number(),
  memoryReservedBytes: z.number().openapi({ description: 'Memory reserved by the instances placed on it' }),
  cpus: z.number(),
  cpusReserved: z.number(),
  instances: z.number().int().openapi({ description: 'Berth instances with a task on it now' }),
});

/** For admins: where instances run, region by region, as the scheduler reports it. */
export const AdminRegionsSchema = z
  .object({
    scheduler: z.enum(['this-host', 'swarm']).openapi({
      description:
        '`this-host`: every instance runs on the server that answers; `swarm`: Docker Swarm per region',
    }),
    regions: z.array(
      z.object({
        region: z.string(),
        label: z.string(),
        available: z.boolean().openapi({ description: 'Whether customers can deploy there now' }),
        reason: z.string().nullable().openapi({ description: 'Why not, as customers read it' }),
        error: z.string().nullable().openapi({ description: 'Why its scheduler could not be asked' }),
        nodes: z.array(NodeSchema),
      }),
    ),
  })
  .openapi('AdminRegions');

export type AdminRegions = z.infer<typeof AdminRegionsSchema>;

export const NodeIdParamsSchema = z.object({
  nodeId: z
    .string()
    .regex(/^[a-z0-9]{1,64}$/, 'Invalid server id')
    .openapi({ param: { name: 'nodeId', in: 'path' }, description: 'The node’s swarm id' }),
});

export const DrainResultSchema = z
  .object({
    moving: z
      .number()
      .int()
      .openapi({ description: 'Instances being moved off it to other servers of its region, one by one' }),
    message: z.string(),
  })
  .openapi('DrainResult');
