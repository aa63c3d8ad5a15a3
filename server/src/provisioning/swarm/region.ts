import { regionLabel } from '@berth/openapi/rules';
import type Docker from 'dockerode';
import { ConflictError } from '../../lib/errors.ts';
import { dockerFor, listNodes, listTasks, type SwarmNode } from './swarm-api.ts';
import type { SwarmRegion } from './swarm-options.ts';

/**
 * One region: its swarm's manager (every service call goes there), its nodes (those labelled
 * `region=<id>`), their own engines (volumes, exec and archives are per node), and the scheduling facts
 * the driver decides placement from: each node's capacity and what the tasks on it reserve.
 */

/** A region id that has no swarm here; answered as a 409 with the regions that do. */
export class RegionUnavailableError extends ConflictError {
  constructor(region: string, configured: string[]) {
    super(
      `${regionLabel(region)} is not available on this platform: it has no servers there (available: ${configured.map(regionLabel).join(', ') || 'none'})`,
      { region, available: configured },
    );
  }
}

/** No node of the region can take what an instance was sold; answered as a 409 with the reason. */
export class CapacityError extends ConflictError {}

export interface NodeLoad {
  node: SwarmNode;
  /** Reserved by the tasks Berth's (and anyone's) services placed there. */
  reservedMemory: number;
  reservedNanoCpus: number;
  /** Berth instances with a task there. */
  instances: Set<string>;
}

export interface Region {
  id: string;
  manager: Docker;
  /** Nodes labelled with this region, whatever their state. */
  nodes(): Promise<SwarmNode[]>;
  /** Every node of the region with what its tasks reserve. */
  loads(): Promise<NodeLoad[]>;
  /** A node's own engine (from its `berth.engine` label, else tcp://<address>:2376 with TLS). */
  nodeEngine(node: SwarmNode): Docker;
  nodeById(id: string): Promise<SwarmNode | undefined>;
  /** The address customers reach the node at (credentials name it). */
  publicAddress(node: SwarmNode): string;
}

const GB = 1024 ** 3;
export const formatMemory = (bytes: number) =>
  bytes >= GB ? `${(bytes / GB).toFixed(1).replace(/\.0$/, '')} GB` : `${Math.round(bytes / 1024 ** 2)} MB`;
const formatCpus = (nano: number) => `${(nano / 1e9).toFixed(2).replace(/\.?0+$/, '')} vCPU`;

export function createRegion(id: string, config: SwarmRegion): Region {
  const manager = dockerFor(config.endpoint, config.tls);
  const engines = new Map<string, Docker>();
  const region: Region = {
    id,
    manager,
    async nodes() {
      return (await listNodes(manager)).filter((node) => node.Spec.Labels?.region === id);
    },
    async loads() {
      const [nodes, tasks, services] = await Promise.all([
        region.nodes(),
        listTasks(manager, { 'desired-state': ['running'] }),
        manager.listServices({ filters: { label: ['berth.instance'] } }),
      ]);
      // Tasks do not carry their service's labels: the instance is the service's.
      const instanceOf = new Map(
        services.flatMap((service) => {
          const id = service.Spec?.Labels?.['berth.instance'];
          return id && service.ID ? [[service.ID, id] as const] : [];
        }),
      );
      return nodes.map((node) => {
        const mine = tasks.filter((task) => task.NodeID === node.ID);
        const sum = (pick: (r: { NanoCPUs?: number; MemoryBytes?: number }) => number | undefined) =>
          mine.reduce((total, task) => total + (pick(task.Spec.Resources?.Reservations ?? {}) ?? 0), 0);
        return {
          node,
          reservedMemory: sum((r) => r.MemoryBytes),
          reservedNanoCpus: sum((r) => r.NanoCPUs),
          instances: new Set(mine.flatMap((task) => instanceOf.get(task.ServiceID) ?? [])),
        };
      });
    },
    nodeEngine(node) {
      const endpoint = node.Spec.Labels?.['berth.engine'] ?? `tcp://${node.Status.Addr}:2376`;
      let docker = engines.get(endpoint);
      if (!docker) {
        docker = dockerFor(endpoint, config.tls);
        engines.set(endpoint, docker);
      }
      return docker;
    },
    async nodeById(nodeId) {
      return (await listNodes(manager)).find((node) => node.ID === nodeId);
    },
    publicAddress: (node) => node.Spec.Labels?.['berth.public-address'] ?? node.Status.Addr,
  };
  return region;
}

/** The label of a node drained from Admin → Server (the time): its instances run until each is moved. */
export const DRAINING_LABEL = 'berth.draining';

/** Whether placement may choose the node for a new instance: up, active, and not being drained. */
export const takesInstances = (node: SwarmNode) =>
  node.Status.State === 'ready' && node.Spec.Availability === 'active' && !node.Spec.Labels?.[DRAINING_LABEL];

export interface Need {
  memoryBytes: number;
  nanoCpus: number;
  /** What its volumes' disks promise on the node (disk-policy.ts); absent: no disk of its own. */
  diskBytes?: number;
  /** Node labels the node must carry (e.g. the n8n runtime). */
  labels?: Record<string, string>;
  /** Why a node without those labels cannot take it (customer words). */
  labelReason?: string;
}

/**
 * The node a new stateful instance goes to (its volumes stay there): among the region's ready, active
 * nodes (but `excluded`, those that could not be made ready) that can take its reservation, the one with
 * the most free memory. Refuses with the reason when
 * none can, instead of leaving a service pending forever.
 */
export async function choosePlacement(
  region: Region,
  need: Need,
  excluded: ReadonlySet<string> = new Set(),
  /** What deploys under way were promised on each node, not yet in its tasks' reservations. */
  promised: ReadonlyMap<string, { memoryBytes: number; nanoCpus: number }> = new Map(),
): Promise<SwarmNode> {
  const up = (await region.loads())
    .map((load) => ({
      ...load,
      reservedMemory: load.reservedMemory + (promised.get(load.node.ID)?.memoryBytes ?? 0),
      reservedNanoCpus: load.reservedNanoCpus + (promised.get(load.node.ID)?.nanoCpus ?? 0),
    }))
    .filter((load) => takesInstances(load.node));
  const where = regionLabel(region.id);
  if (up.length === 0) throw new CapacityError(`No server of ${where} is up right now`);
  const loads = up.filter((load) => !excluded.has(load.node.ID));
  if (loads.length === 0)
    throw new CapacityError(`No server of ${where} is ready for new instances right now`);
  const eligible = loads.filter((load) =>
    Object.entries(need.labels ?? {}).every(([key, value]) => load.node.Spec.Labels?.[key] === value),
  );
  if (eligible.length === 0) {
    throw new CapacityError(need.labelReason ?? `No server of ${where} can run this instance type`);
  }
  const free = (load: NodeLoad) => ({
    memory: load.node.Description.Resources.MemoryBytes - load.reservedMemory,
    cpus: load.node.Description.Resources.NanoCPUs - load.reservedNanoCpus,
  });
  const fitting = eligible
    .filter((load) => free(load).memory >= need.memoryBytes && free(load).cpus >= need.nanoCpus)
    .sort((a, b) => free(b).memory - free(a).memory);
  const chosen = fitting[0];
  if (chosen) return chosen.node;
  const largest = eligible.map(free).sort((a, b) => b.memory - a.memory)[0] ?? { memory: 0, cpus: 0 };
  throw new CapacityError(
    `No server of ${where} has ${formatMemory(need.memoryBytes)} of memory and ${formatCpus(need.nanoCpus)} free for this instance (the most any has free is ${formatMemory(Math.max(0, largest.memory))} and ${formatCpus(Math.max(0, largest.cpus))})`,
    {
      region: region.id,
      memoryBytes: need.memoryBytes,
      nanoCpus: need.nanoCpus,
    },
  );
}
