import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_RESOURCES } from '@berth/openapi/rules';
import type Docker from 'dockerode';
import { NotFoundError } from '../../lib/errors.ts';
import {
  type DatabaseCredentials,
  type DatabaseSpec,
  featuresOf,
  type InstanceEngine,
  NO_DATABASE_ADMIN,
} from '../engine.ts';
import { unavailable } from '../instance-types.ts';
import { checkTenantLogin } from '../tenant-login.ts';
import { checkPassword, generatePassword, tenantNames } from '../tenant-names.ts';
import { sqlDatabaseBackups } from './database-backups.ts';
import { FLAVORS, type Flavor } from './database-flavors.ts';
import { SERVICE_UIDS } from './image-recipes.ts';
import { placeInstance } from './node-agent.ts';
import type { Region } from './region.ts';
import {
  applyService,
  ensureSecret,
  findService,
  freeHostPort,
  type InstanceNames,
  instanceNames,
  LABEL,
  PIDS,
  removeSecrets,
  removeService,
  resourcesSpec,
  type Sized,
  scale,
  seconds,
  sizeOf,
  tmpfsMount,
  waitForRunning,
} from './services.ts';
import type { SwarmContext } from './swarm-context.ts';
import {
  instanceDiskBytes,
  removeVolumes,
  sizedVolume,
  type VolumeMount,
  volumeNode,
  volumeSizeMb,
  volumeStorage,
} from './volumes.ts';

/**
 * MySQL (MariaDB) and PostgreSQL instances on a swarm: one server per instance, in a service of its own
 * (the customer gets the memory and CPU they were sold, and tenants share no server). Its data is a
 * volume on the node it was first placed on, and it stays pinned there; its port is published in host
 * mode on that node (no routing mesh: this kernel has no IPVS, and a database has one home anyway), so
 * the credentials name that node's public address. The password reaches the server as a Docker secret;
 * a new password is a new secret and a restart, which also ends every session of the old one.
 */

type SqlType = 'mysql' | 'postgresql';

/** What a database instance gets when its spec names no resources. */

interface DbServiceInput {
  flavor: Flavor;
  /** The server's data volume, bound to its disk (volumes.ts). */
  volume: VolumeMount;
  names: InstanceNames;
  /** The service's name (an instance's own, or a WordPress site's database). */
  service: string;
  image: string;
  size: Sized;
  nodeId: string;
  region: string;
  labels: Record<string, string>;
  secret: { SecretID: string; SecretName: string };
  tenant: { database: string; user: string };
  /** Host port to publish (database instances); none for a site's private database. */
  hostPort?: number;
  /**
   * Networks to join: none for an instance (Docker's default bridge, its port published on its node; the
   * agent's firewall lets it only answer), a site's private one for the site's database.
   */
  networks: string[];
}

/** The service of one database server (also a WordPress site's own MariaDB). */
export function databaseServiceSpec(input: DbServiceInput): Docker.ServiceSpec & { Name: string } {
  const { flavor, size } = input;
  const uid = String(SERVICE_UIDS[flavor.user]);
  return {
    Name: input.service,
    Labels: {
      ...input.labels,
      [LABEL.node]: input.nodeId,
      ...(input.hostPort ? { [LABEL.port]: String(input.hostPort) } : {}),
    },
    TaskTemplate: {
      ContainerSpec: {
        Image: input.image,
        Command: flavor.command,
        User: flavor.user,
        Env: [
          `BERTH_DATABASE=${input.tenant.database}`,
          `BERTH_USER=${input.tenant.user}`,
          `BERTH_MEMORY_MB=${size.memoryMb}`,
        ],
        Labels: { [LABEL.instance]: input.names.id },
        // Nothing but its data volume and its sockets' and scratch folders is writable.
        ReadOnly: true,
        Mounts: [input.volume, tmpfsMount(flavor.socketPath, 16), tmpfsMount('/tmp', 64)],
        Secrets: [{ ...input.secret, File: { Name: 'password', UID: uid, GID: uid, Mode: 0o400 } }],
        HealthCheck: {
          Test: flavor.health,
          Interval: seconds(1),
          Timeout: seconds(5),
          Retries: 5,
          StartPeriod: seconds(120),
        },
        StopGracePeriod: seconds(30),
        // The server runs as its own user from the start: it needs no capability at all.
        CapabilityDrop: ['ALL'],
      },
      Resources: resourcesSpec(size, PIDS[flavor.image]),
      RestartPolicy: { Condition: 'any', Delay: seconds(2) },
      Placement: { Constraints: [`node.labels.region==${input.region}`, `node.id==${input.nodeId}`] },
      Networks: input.networks.map((Target) => ({ Target })),
    },
    Mode: { Replicated: { Replicas: 1 } },
    UpdateConfig: { Parallelism: 1, Order: 'stop-first' },
    EndpointSpec: {
      Mode: 'dnsrr',
      Ports: input.hostPort
        ? [{ Protocol: 'tcp', TargetPort: flavor.port, PublishedPort: input.hostPort, PublishMode: 'host' }]
        : [],
    },
  };
}

/** Whose and what an instance is, on every object made for it. */
export const instanceLabels = (id: string, type: string, owner: string | undefined) => ({
  [LABEL.instance]: id,
  [LABEL.type]: type,
  ...(owner ? { [LABEL.owner]: owner } : {}),
});

/** Logs in as the tenant from here until it works (the published port takes a moment after health). */
async function provenLogin(type: SqlType, credentials: DatabaseCredentials, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await checkTenantLogin(type, credentials);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(200);
    }
  }
}

/** Where the instance's server was placed (region, node, published port) and whose it is. */
async function placedOf(ctx: SwarmContext, id: string) {
  const found = await ctx.locate(id);
  if (!found) return undefined;
  const labels = found.service.Spec.Labels ?? {};
  return {
    region: found.region,
    nodeId: labels[LABEL.node] ?? '',
    port: Number(labels[LABEL.port]),
    owner: labels[LABEL.owner],
  };
}

export function databaseEngine(ctx: SwarmContext, type: SqlType): InstanceEngine<DatabaseSpec> {
  const flavor = FLAVORS[type];

  /** Creates or updates the instance's service with `password`; resolves with its credentials once it serves. */
  async function apply(
    spec: DatabaseSpec,
    password: string,
    existing: { region: Region; nodeId: string; port: number } | undefined,
  ): Promise<DatabaseCredentials> {
    const names = instanceNames(spec.id);
    const tenant = tenantNames(spec.id);
    const region = existing?.region ?? ctx.region(spec.region);
    const size = sizeOf(spec.resources, DEFAULT_RESOURCES);
    const labels = instanceLabels(spec.id, type, spec.owner);
    const placed =
      existing ??
      (await ctx.lock(`ports:${region.id}`, async () => {
        const node = await placeInstance(
          ctx,
          region,
          {
            memoryBytes: size.memoryBytes,
            nanoCpus: size.nanoCpus,
            diskBytes: instanceDiskBytes(ctx.options.disks, type),
          },
          spec.id,
        );
        const port = await freeHostPort(
          region.manager,
          ctx.options.databasePorts,
          ctx.previousPorts.get(spec.id),
        );
        ctx.previousPorts.delete(spec.id);
        return { region, nodeId: node.ID, port };
      }));
    const secret = await ensureSecret(region.manager, names, 'password', password, labels);
    try {
      const volume = await sizedVolume(
        region,
        await volumeNode(region, placed.nodeId),
        names,
        'data',
        flavor.dataPath,
        volumeSizeMb(ctx.options.disks, type, 'data'),
      );
      const after = await applyService(
        region.manager,
        databaseServiceSpec({
          flavor,
          volume,
          names,
          service: names.service,
          image: ctx.image(flavor.image, type),
          size,
          nodeId: placed.nodeId,
          region: region.id,
          labels,
          secret,
          tenant,
          networks: [],
          hostPort: placed.port,
        }),
      );
      await waitForRunning(region, names.service, { after });
      ctx.promises.delete(spec.id);
    } catch (error) {
      ctx.promises.delete(spec.id);
      // A first deploy that cannot run leaves nothing behind (a retry starts over); a failed clean-up is
      // logged, and the deploy's own error is what the job reports.
      if (!existing) {
        await removeAll(region, spec.id, placed.nodeId).catch((cleanup: Error) =>
          ctx.log(`clean-up after a failed deploy of ${spec.id}: ${cleanup.message}`),
        );
      }
      throw error;
    }
    await removeSecrets(region.manager, spec.id, [secret.SecretName]);
    const node = await region.nodeById(placed.nodeId);
    const credentials: DatabaseCredentials = {
      host: node ? region.publicAddress(node) : '',
      port: placed.port,
      database: tenant.database,
      user: tenant.user,
      password,
    };
    await provenLogin(type, credentials);
    return credentials;
  }

  async function removeAll(region: Region, id: string, nodeId: string | undefined) {
    const names = instanceNames(id);
    await removeService(region.manager, names.service);
    await removeVolumes(region, nodeId, [names.volume('data')]);
    await removeSecrets(region.manager, id);
  }

  const withLock = <T>(id: string, task: () => Promise<T>) => ctx.lock(`instance:${id}`, task);

  return {
    type,
    features: featuresOf(type, { databaseAdmin: NO_DATABASE_ADMIN }),
    async capability() {
      if (!ctx.started()) return unavailable.settingUp(type, 'The provisioning driver is not started');
      return { available: true };
    },

    deploy: (spec) =>
      withLock(spec.id, async () => {
        const password = spec.password === undefined ? generatePassword() : checkPassword(spec.password);
        const existing = await placedOf(ctx, spec.id);
        const owner = spec.owner ?? existing?.owner;
        return { database: await apply({ ...spec, owner }, password, existing) };
      }),

    delete: (id) =>
      withLock(id, async () => {
        const placed = await placedOf(ctx, id);
        if (placed) await removeAll(placed.region, id, placed.nodeId);
        // Secrets of a first deploy that failed before its service existed.
        for (const region of ctx.regions.values()) await removeSecrets(region.manager, id).catch(() => {});
        await ctx.deleteLegacyBackups(id);
      }),

    suspend: (id) =>
      withLock(id, async () => {
        const { region } = await ctx.require(id);
        await scale(region.manager, instanceNames(id).service, 0);
      }),

    resume: (id) =>
      withLock(id, async () => {
        const { region } = await ctx.require(id);
        const service = instanceNames(id).service;
        await scale(region.manager, service, 1);
        await waitForRunning(region, service);
      }),

    password: {
      change: (id, password) =>
        withLock(id, async () => {
          const placed = await placedOf(ctx, id);
          if (!placed) throw new NotFoundError('Instance not found');
          const current = await findService(placed.region.manager, instanceNames(id).service);
          const env =
            current?.Spec.TaskTemplate && 'ContainerSpec' in current.Spec.TaskTemplate
              ? (current.Spec.TaskTemplate.ContainerSpec?.Env ?? [])
              : [];
          const memoryMb = Number(env.find((e) => e.startsWith('BERTH_MEMORY_MB='))?.split('=')[1]);
          const nano = current?.Spec.TaskTemplate?.Resources?.Limits?.NanoCPUs ?? 5e8;
          await apply(
            {
              id,
              owner: placed.owner,
              resources: { memoryMb: memoryMb || DEFAULT_RESOURCES.memoryMb, cpus: nano / 1e9 },
            },
            checkPassword(password),
            placed,
          );
        }),
    },

    backups: sqlDatabaseBackups(ctx, flavor),

    storage: { usage: (id) => volumeStorage(ctx, id, 'data') },
  };
}
