import { PassThrough } from 'node:stream';
import { regionLabel } from '@berth/openapi/rules';
import type Docker from 'dockerode';
import { ConflictError, NotFoundError } from '../../lib/errors.ts';
import { capped } from '../archive-parts.ts';
import { createVolumeDisk, placeInstance, sizedVolumeOptions } from './node-agent.ts';
import { runHelper } from './node-exec.ts';
import { CapacityError, DRAINING_LABEL, type Need, type Region, takesInstances } from './region.ts';
import {
  applyService,
  findService,
  instanceNames,
  LABEL,
  type ServiceInfo,
  scale,
  waitForRunning,
} from './services.ts';
import type { SwarmNode } from './swarm-api.ts';
import type { SwarmContext } from './swarm-context.ts';
import { instanceDiskBytes, removeVolumes, volumeNode, volumeSizeMb } from './volumes.ts';

/**
 * Moving an instance off its node (a drain from Admin → Server) with nothing lost: its services stop,
 * each of its volumes is copied whole onto a disk of the same size on another node of its region, its
 * services are pointed there and started again, and only then are the old volumes removed. A copy that
 * fails leaves the instance where it was, started again as it was.
 *
 * The copy runs in two helper containers (node-exec.ts `runHelper`), never in the instance's own: one on
 * the old node reads the volume (mounted read-only) with `tar`, one on the new node unpacks it into the
 * new volume; both run as the service's own user in its own image, with no capability, no network, and
 * the stream capped at the volume's size. The new volume is first seeded from the image like any new
 * volume (its root gets the owner and mode the service expects), emptied, then filled: the tenant's files
 * keep their modes but belong to the service's user, as they did (`--no-same-owner`).
 */

interface VolumeOf {
  service: ServiceInfo;
  name: string;
  target: string;
  image: string;
  user: string;
  sizeMb: number;
}

const containerOf = (service: ServiceInfo) => {
  const template = service.Spec.TaskTemplate;
  return template && 'ContainerSpec' in template ? template.ContainerSpec : undefined;
};

/** Every volume the instance's services mount, with what copying it needs. */
function volumesOf(ctx: SwarmContext, id: string, type: string, services: ServiceInfo[]): VolumeOf[] {
  const names = instanceNames(id);
  return services.flatMap((service) => {
    const container = containerOf(service);
    return (container?.Mounts ?? [])
      .filter((mount) => mount.Type === 'volume' && mount.Source?.startsWith(`${names.volume('')}`))
      .map((mount) => ({
        service,
        name: mount.Source ?? '',
        target: mount.Target ?? '',
        image: container?.Image ?? '',
        user: container?.User ?? 'nobody',
        sizeMb: volumeSizeMb(ctx.options.disks, type, (mount.Source ?? '').slice(names.volume('').length)),
      }));
  });
}

/** What the instance's services reserve, and the node labels their constraints ask for (n8n's runtime). */
function needOf(services: ServiceInfo[]): Need {
  const labels: Record<string, string> = {};
  for (const service of services) {
    for (const constraint of service.Spec.TaskTemplate?.Placement?.Constraints ?? []) {
      const match = /^node\.labels\.([\w.-]+)==(.+)$/.exec(constraint);
      if (match?.[1] && match[2] && match[1] !== 'region') labels[match[1]] = match[2];
    }
  }
  const reserved = (service: ServiceInfo) => service.Spec.TaskTemplate?.Resources?.Reservations;
  return {
    memoryBytes: services.reduce((sum, s) => sum + (reserved(s)?.MemoryBytes ?? 0), 0),
    nanoCpus: services.reduce((sum, s) => sum + (reserved(s)?.NanoCPUs ?? 0), 0),
    labels,
  };
}

/** The service's spec bound to `to`: its placement, its node label and its volumes' disks there. */
function pointedAt(service: ServiceInfo, from: string, to: SwarmNode): Docker.ServiceSpec & { Name: string } {
  const spec = structuredClone(service.Spec) as Docker.ServiceSpec & { Name: string };
  spec.Labels = { ...spec.Labels, [LABEL.node]: to.ID };
  const template = spec.TaskTemplate;
  if (template?.Placement?.Constraints) {
    template.Placement.Constraints = template.Placement.Constraints.map((constraint) =>
      constraint === `node.id==${from}` ? `node.id==${to.ID}` : constraint,
    );
  }
  const container = template && 'ContainerSpec' in template ? template.ContainerSpec : undefined;
  for (const mount of container?.Mounts ?? []) {
    const options = mount.VolumeOptions?.DriverConfig;
    if (mount.Type === 'volume' && options?.Options && mount.Source)
      options.Options = sizedVolumeOptions(to, mount.Source);
  }
  return spec;
}

/** Copies one volume from its node to the same volume (made here) on `to`. */
async function copyVolume(region: Region, from: SwarmNode, to: SwarmNode, volume: VolumeOf): Promise<void> {
  await createVolumeDisk(region, to.ID, volume.name, volume.sizeMb);
  const target = region.nodeEngine(to);
  await target.createVolume({
    Name: volume.name,
    Driver: 'local',
    DriverOpts: sizedVolumeOptions(to, volume.name),
    Labels: { [LABEL.instance]: volume.service.Spec.Labels?.[LABEL.instance] ?? '' },
  });
  const labels = {
    [LABEL.instance]: volume.service.Spec.Labels?.[LABEL.instance] ?? '',
    [LABEL.role]: 'move-helper',
  };
  const stream = capped(volume.sizeMb * 1024 * 1024 * 1.2, 'The instance’s data is larger than its storage');
  const piped = new PassThrough();
  stream.pipe(piped);
  stream.on('error', (error) => piped.destroy(error));
  const watch = { what: 'Moving its data', stallMs: 5 * 60_000 };
  const read = runHelper(
    region.nodeEngine(from),
    {
      image: volume.image,
      user: volume.user,
      mounts: [{ volume: volume.name, target: volume.target, readOnly: true }],
      cmd: ['tar', '--sparse', '-czf', '-', '-C', volume.target, '.'],
      labels,
    },
    { stdout: stream, watch },
  );
  const written = runHelper(
    target,
    {
      image: volume.image,
      user: volume.user,
      mounts: [{ volume: volume.name, target: volume.target, readOnly: false }],
      cmd: [
        'sh',
        '-ec',
        'cd "$1"; find . -mindepth 1 -maxdepth 1 -exec rm -rf {} +; tar -xzpf - --no-same-owner',
        'move',
        volume.target,
      ],
      labels,
    },
    { stdin: piped, watch },
  );
  // Either side failing ends the other: a reader with nobody to read it would wait for its deadline.
  const [readResult, writeResult] = await Promise.allSettled([
    read.catch((error: unknown) => {
      piped.destroy(error as Error);
      throw error;
    }),
    written.catch((error: unknown) => {
      stream.destroy(error as Error);
      throw error;
    }),
  ]);
  if (readResult.status === 'rejected') throw readResult.reason;
  if (writeResult.status === 'rejected') throw writeResult.reason;
}

/**
 * Moves instance `id` off its drained node to the best other node of its region (the most free memory
 * among the active ones that can take it); an instance on a node in service stays (so a retry after a
 * move that was done does nothing). Refuses with CapacityError when no other node can take it.
 */
export async function moveInstance(ctx: SwarmContext, id: string): Promise<void> {
  await ctx.lock(`instance:${id}`, async () => {
    const { region, service: app } = await ctx.require(id);
    const names = instanceNames(id);
    const services = [
      ...((await findService(region.manager, names.dbService)) ? [names.dbService] : []),
      names.service,
    ];
    const originals = (await Promise.all(services.map((name) => findService(region.manager, name)))).filter(
      (service): service is ServiceInfo => service !== undefined,
    );
    const fromId = app.Spec.Labels?.[LABEL.node] ?? '';
    const from = await volumeNode(region, fromId);
    // Its server is in service again (put back meanwhile), or it was moved already (a retry).
    if (!from.Spec.Labels?.[DRAINING_LABEL]) return;
    const type = app.Spec.Labels?.[LABEL.type] ?? '';
    const to = await placeInstance(
      ctx,
      region,
      { ...needOf(originals), diskBytes: instanceDiskBytes(ctx.options.disks, type) },
      id,
    );
    if (to.ID === fromId) {
      ctx.promises.delete(id);
      throw new CapacityError(`No other server of ${regionLabel(region.id)} can take it right now`);
    }
    const volumes = volumesOf(ctx, id, type, originals);
    const started = Date.now();
    // The site before its database: nothing writes while the volumes are copied.
    for (const service of [...originals].reverse()) await scale(region.manager, service.Spec.Name ?? '', 0);
    try {
      for (const volume of volumes) await copyVolume(region, from, to, volume);
      for (const service of originals) {
        const after = await applyService(region.manager, pointedAt(service, fromId, to));
        if ((service.Spec.Mode?.Replicated?.Replicas ?? 1) > 0)
          await waitForRunning(region, service.Spec.Name ?? '', { after });
      }
    } catch (error) {
      // Back as it was, where it was (running again before the move is said to have failed); the
      // copies go.
      for (const service of originals) {
        const name = service.Spec.Name ?? '';
        await applyService(region.manager, service.Spec as Docker.ServiceSpec & { Name: string })
          .then((after) =>
            (service.Spec.Mode?.Replicated?.Replicas ?? 1) > 0
              ? waitForRunning(region, name, { after })
              : undefined,
          )
          .catch((undo: Error) => ctx.log(`instance ${id} not put back on its server: ${undo.message}`));
      }
      await removeVolumes(
        region,
        to.ID,
        volumes.map((volume) => volume.name),
      ).catch((cleanup: Error) =>
        ctx.log(`copies of ${id} on ${to.Description.Hostname}: ${cleanup.message}`),
      );
      throw error;
    } finally {
      ctx.promises.delete(id);
    }
    await removeVolumes(
      region,
      fromId,
      volumes.map((volume) => volume.name),
    );
    ctx.log(
      `instance ${id} moved from ${from.Description.Hostname} to ${to.Description.Hostname} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  });
}

/**
 * Drains a node: it gets the `berth.draining` label, so placement chooses it for nothing new, and it
 * answers the instances whose volumes are there, each to be moved (moveInstance) by the platform's jobs.
 * Its availability stays `active`: its instances run on until their own move (swarm's `drain` would stop
 * them all at once, and a move that fails could not start its instance there again).
 */
export async function drainNode(ctx: SwarmContext, nodeId: string): Promise<string[]> {
  const region = await regionOfNode(ctx, nodeId);
  const node = await volumeNode(region, nodeId);
  // The front door is a container on the manager, which a region cannot do without.
  if (node.Spec.Role === 'manager')
    throw new ConflictError('A manager runs its region’s front door: it cannot be drained');
  const others = (await region.nodes()).filter((other) => other.ID !== nodeId && takesInstances(other));
  if (others.length === 0)
    throw new ConflictError(
      `It is the last server in service in ${regionLabel(region.id)}: its instances would have nowhere to go`,
    );
  await updateNode(region, nodeId, (spec) => ({
    ...spec,
    Labels: { ...spec.Labels, [DRAINING_LABEL]: spec.Labels?.[DRAINING_LABEL] ?? new Date().toISOString() },
  }));
  return instancesOn(region, nodeId);
}

/** Puts a drained (or paused) node back in service: placement may choose it again. */
export async function activateNode(ctx: SwarmContext, nodeId: string): Promise<void> {
  await updateNode(await regionOfNode(ctx, nodeId), nodeId, (spec) => {
    const { [DRAINING_LABEL]: _draining, ...labels } = spec.Labels ?? {};
    return { ...spec, Availability: 'active', Labels: labels };
  });
}

async function regionOfNode(ctx: SwarmContext, nodeId: string): Promise<Region> {
  for (const region of ctx.regions.values()) {
    const node = await region.nodeById(nodeId).catch(() => undefined);
    if (node?.Spec.Labels?.region === region.id) return region;
  }
  throw new NotFoundError('No server of this platform has that id');
}

async function updateNode(
  region: Region,
  nodeId: string,
  change: (spec: SwarmNode['Spec']) => SwarmNode['Spec'],
) {
  const node = await volumeNode(region, nodeId);
  await region.manager.getNode(node.ID).update({ version: node.Version.Index, ...change(node.Spec) });
}

/** The instances whose volumes are on the node (their app service's node label). */
async function instancesOn(region: Region, nodeId: string): Promise<string[]> {
  const services = (await region.manager.listServices({
    filters: { label: [`${LABEL.node}=${nodeId}`] },
  })) as ServiceInfo[];
  return [
    ...new Set(
      services.map((service) => service.Spec.Labels?.[LABEL.instance]).filter((id): id is string => !!id),
    ),
  ];
}
