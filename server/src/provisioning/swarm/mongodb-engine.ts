import { NotFoundError } from '../../lib/errors.ts';
import { ProvisioningUnavailableError } from '../driver.ts';
import type { DatabaseSpec, InstanceEngine } from '../engine.ts';
import { unavailable } from '../instance-types.ts';
import { checkPassword, generatePassword, tenantNames } from '../tenant-names.ts';
import { DATABASE_DEFAULTS, instanceLabels } from './database-engine.ts';
import { choosePlacement } from './region.ts';
import {
  applyService,
  ensureSecret,
  freeHostPort,
  instanceNames,
  LABEL,
  removeSecrets,
  removeService,
  removeVolumes,
  resourcesSpec,
  scale,
  seconds,
  sizeOf,
  volumeMount,
  waitForRunning,
} from './services.ts';
import type { SwarmContext } from './swarm-context.ts';

/**
 * MongoDB runs only from the official `mongo` image, named by the operator (SWARM_IMAGES=mongodb=mongo:7)
 * because Berth cannot build it from Debian packages (Debian has no MongoDB) and its nodes must pull it.
 * Its own entrypoint creates the root user from MONGO_INITDB_* on the first start, the password through
 * a Docker secret (`*_FILE`). Without that image the type is unavailable, with the reason.
 */
const MONGODB_UNAVAILABLE =
  'MongoDB needs the official mongo image, which the servers of this platform cannot download';

export function mongodbEngine(ctx: SwarmContext): InstanceEngine<DatabaseSpec> {
  const image = ctx.options.images?.mongodb;
  const notOffered = () => unavailable.notOffered('mongodb', MONGODB_UNAVAILABLE);
  const refused = () => new ProvisioningUnavailableError('mongodb', notOffered());
  const withLock = <T>(id: string, task: () => Promise<T>) => ctx.lock(`instance:${id}`, task);
  return {
    type: 'mongodb',
    async capability() {
      if (!image) return notOffered();
      if (!ctx.started()) return unavailable.settingUp('mongodb', 'The provisioning driver is not started');
      return { available: true };
    },
    deploy: (spec) =>
      withLock(spec.id, async () => {
        if (!image) throw refused();
        const names = instanceNames(spec.id);
        const tenant = tenantNames(spec.id);
        const password = spec.password === undefined ? generatePassword() : checkPassword(spec.password);
        const found = await ctx.locate(spec.id);
        const region = found?.region ?? ctx.region(spec.region);
        const size = sizeOf(spec.resources, DATABASE_DEFAULTS);
        const labels = instanceLabels(spec.id, 'mongodb', spec.owner);
        const placed = found
          ? {
              nodeId: found.service.Spec.Labels?.[LABEL.node] ?? '',
              port: Number(found.service.Spec.Labels?.[LABEL.port]),
            }
          : await ctx.lock(`ports:${region.id}`, async () => ({
              nodeId: (
                await choosePlacement(region, { memoryBytes: size.memoryBytes, nanoCpus: size.nanoCpus })
              ).ID,
              port: await freeHostPort(region.manager, ctx.options.databasePorts),
            }));
        const secret = await ensureSecret(region.manager, names, 'password', password, labels);
        const after = await applyService(region.manager, {
          Name: names.service,
          Labels: { ...labels, [LABEL.node]: placed.nodeId, [LABEL.port]: String(placed.port) },
          TaskTemplate: {
            ContainerSpec: {
              Image: image,
              Env: [
                `MONGO_INITDB_ROOT_USERNAME=${tenant.user}`,
                'MONGO_INITDB_ROOT_PASSWORD_FILE=/run/secrets/password',
                `MONGO_INITDB_DATABASE=${tenant.database}`,
              ],
              Labels: { [LABEL.instance]: spec.id },
              Mounts: [volumeMount(names, 'data', '/data/db')],
              Secrets: [{ ...secret, File: { Name: 'password', UID: '999', GID: '999', Mode: 0o400 } }],
              StopGracePeriod: seconds(30),
            },
            Resources: resourcesSpec(size),
            RestartPolicy: { Condition: 'any', Delay: seconds(2) },
            Placement: { Constraints: [`node.labels.region==${region.id}`, `node.id==${placed.nodeId}`] },
          },
          Mode: { Replicated: { Replicas: 1 } },
          EndpointSpec: {
            Mode: 'dnsrr',
            Ports: [{ Protocol: 'tcp', TargetPort: 27017, PublishedPort: placed.port, PublishMode: 'host' }],
          },
        });
        await waitForRunning(region, names.service, { after });
        const node = await region.nodeById(placed.nodeId);
        return {
          database: {
            host: node ? region.publicAddress(node) : '',
            port: placed.port,
            database: tenant.database,
            user: tenant.user,
            password,
          },
        };
      }),
    delete: (id) =>
      withLock(id, async () => {
        const found = await ctx.locate(id);
        if (!found) return;
        await removeService(found.region.manager, instanceNames(id).service);
        await removeVolumes(found.region, found.service.Spec.Labels?.[LABEL.node], [
          instanceNames(id).volume('data'),
        ]);
        await removeSecrets(found.region.manager, id);
      }),
    suspend: (id) =>
      withLock(id, async () => {
        const found = await ctx.locate(id);
        if (!found) throw new NotFoundError('Instance not found');
        await scale(found.region.manager, instanceNames(id).service, 0);
      }),
    resume: (id) =>
      withLock(id, async () => {
        const found = await ctx.locate(id);
        if (!found) throw new NotFoundError('Instance not found');
        await scale(found.region.manager, instanceNames(id).service, 1);
        await waitForRunning(found.region, instanceNames(id).service);
      }),
  };
}
