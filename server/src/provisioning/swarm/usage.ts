import type Docker from 'dockerode';
import { storageReport } from '../disk-policy.ts';
import { countAccessLine } from '../front-door/access-lines.ts';
import type {
  AppliedLimits,
  CapacityPlace,
  HostCapacity,
  RequestCounts,
  UsageCapability,
  UsageSample,
} from '../usage.ts';
import { CONTAINER } from './front-door-container.ts';
import { nodeDisk, volumeUsage } from './node-agent.ts';
import type { Region } from './region.ts';
import { instanceNames, LABEL, type ServiceInfo } from './services.ts';
import { currentTask, listTasks, type SwarmNode } from './swarm-api.ts';
import type { SwarmContext } from './swarm-context.ts';
import { instanceDiskBytes } from './volumes.ts';

/**
 * What the swarm driver measures of its instances (driver.usage), for the same usage module, Usage tab,
 * warnings and Admin → Server as the local driver's:
 *
 * - CPU time, memory now and the kernel's kills for memory: each instance's container, through its node's
 *   Engine API (one-shot stats; `oom` events since the previous sample). For a WordPress site, its web
 *   server's container (what it was sold; its database is the platform's, 256 MB on top).
 * - its disk: the volume's own file system (node-agent.ts).
 * - requests: the region's front door writes every instance host's responses to its container's stdout
 *   (caddy-config.ts `accessLog: 'stdout'`), read since the previous sample and counted
 *   (front-door/access-lines.ts).
 *
 * Counters are turned into what happened since the previous sample of the same instance (kept in
 * memory: after a restart of Berth, the first sample of each instance covers no interval).
 */

const WEB_TYPES = new Set(['wordpress', 'n8n']);
/** The volume whose disk is an instance's storage figure. */
const STORAGE_VOLUME: Record<string, string> = { wordpress: 'content' };

interface ContainerStats {
  cpu_stats?: { cpu_usage?: { total_usage?: number } };
  memory_stats?: {
    usage?: number;
    limit?: number;
    stats?: { cache?: number; total_inactive_file?: number; inactive_file?: number };
  };
}

/** Memory in use without the page cache the kernel drops at once (cgroup v1 and v2 alike). */
function memoryInUse(stats: ContainerStats): number | null {
  const memory = stats.memory_stats;
  if (memory?.usage === undefined) return null;
  const cache = memory.stats?.total_inactive_file ?? memory.stats?.inactive_file ?? memory.stats?.cache ?? 0;
  return Math.max(0, memory.usage - cache);
}

/** Text of a log read without a TTY: frames of an 8-byte header and payload (stdout's only). */
function stdoutOf(raw: Buffer): string {
  const parts: Buffer[] = [];
  let at = 0;
  while (at + 8 <= raw.length) {
    const length = raw.readUInt32BE(at + 4);
    if (raw[at] === 1) parts.push(raw.subarray(at + 8, at + 8 + length));
    at += 8 + length;
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Events of `kind` with an instance label on one node between two times (seconds). */
async function events(engine: Docker, since: number, until: number): Promise<string[]> {
  const stream = await engine.getEvents({
    since,
    until,
    filters: { type: ['container'], event: ['oom'], label: [LABEL.instance] },
  });
  const text = await new Promise<string>((resolve, reject) => {
    let all = '';
    stream.on('data', (chunk: Buffer) => {
      all += chunk.toString();
    });
    stream.on('end', () => resolve(all));
    stream.on('error', reject);
  });
  return text.split('\n').filter(Boolean);
}

interface Placed {
  id: string;
  type: string;
  node: SwarmNode;
  containerId: string;
}

export function swarmUsage(ctx: SwarmContext): UsageCapability {
  const previous = new Map<string, { at: number; cpuNs: number }>();
  /** Per region, the second up to which its front door's log and its nodes' events were read. */
  const readUntil = new Map<string, number>();

  /** The running container of each wanted instance of a region, with its node. */
  async function placed(region: Region, wanted: Map<string, string>): Promise<Placed[]> {
    const [services, tasks, nodes] = await Promise.all([
      region.manager.listServices({ filters: { label: [LABEL.instance] } }) as Promise<ServiceInfo[]>,
      listTasks(region.manager, { 'desired-state': ['running'] }),
      region.nodes(),
    ]);
    const found: Placed[] = [];
    for (const service of services) {
      const id = service.Spec.Labels?.[LABEL.instance];
      const type = id ? wanted.get(id) : undefined;
      if (!id || !type || service.Spec.Name !== instanceNames(id).service) continue;
      const task = currentTask(tasks.filter((t) => t.ServiceID === service.ID));
      const node = nodes.find((n) => n.ID === task?.NodeID);
      const containerId = task?.Status.ContainerStatus?.ContainerID;
      if (task?.Status.State !== 'running' || !node || !containerId) continue;
      found.push({ id, type, node, containerId });
    }
    return found;
  }

  /** What the region's front door answered per instance since the previous read. */
  async function requests(region: Region, since: number, until: number): Promise<Map<string, RequestCounts>> {
    const counts = new Map<string, RequestCounts>();
    const logs = (await region.manager
      .getContainer(CONTAINER)
      .logs({ stdout: true, stderr: false, since, until, follow: false })
      .catch(() => Buffer.alloc(0))) as unknown as Buffer;
    for (const line of stdoutOf(logs).split('\n')) if (line) countAccessLine(line, counts);
    return counts;
  }

  async function sampleRegion(region: Region, wanted: Map<string, string>, at: Date): Promise<UsageSample[]> {
    const until = Math.floor(at.getTime() / 1000);
    const since = readUntil.get(region.id) ?? until;
    readUntil.set(region.id, until);
    const instances = await placed(region, wanted);
    const byNode = new Map<string, Placed[]>();
    for (const instance of instances)
      byNode.set(instance.node.ID, [...(byNode.get(instance.node.ID) ?? []), instance]);
    const served = since < until ? await requests(region, since, until) : new Map<string, RequestCounts>();
    const samples: UsageSample[] = [];
    await Promise.all(
      [...byNode.values()].map(async (onNode) => {
        const node = onNode[0]?.node;
        if (!node) return;
        const engine = region.nodeEngine(node);
        const volumes = onNode.map((i) => instanceNames(i.id).volume(STORAGE_VOLUME[i.type] ?? 'data'));
        const [disks, ooms] = await Promise.all([
          volumeUsage(region, node.ID, volumes).catch(() => new Map()),
          since < until ? events(engine, since, until).catch(() => []) : Promise.resolve([]),
        ]);
        const killed = new Map<string, number>();
        for (const line of ooms) {
          const id = (JSON.parse(line) as { Actor?: { Attributes?: Record<string, string> } }).Actor
            ?.Attributes?.[LABEL.instance];
          if (id) killed.set(id, (killed.get(id) ?? 0) + 1);
        }
        await Promise.all(
          onNode.map(async (instance) => {
            const stats = (await engine
              .getContainer(instance.containerId)
              .stats({ stream: false, 'one-shot': true } as { stream: false })
              .catch(() => undefined)) as ContainerStats | undefined;
            const disk = disks.get(
              instanceNames(instance.id).volume(STORAGE_VOLUME[instance.type] ?? 'data'),
            );
            if (!stats && !disk) return;
            const cpuNs = stats?.cpu_stats?.cpu_usage?.total_usage;
            const before = previous.get(instance.id);
            if (cpuNs !== undefined) previous.set(instance.id, { at: at.getTime(), cpuNs });
            // A restarted container counts from zero again.
            const cpu =
              cpuNs === undefined ? null : !before ? 0 : cpuNs >= before.cpuNs ? cpuNs - before.cpuNs : cpuNs;
            const memory = stats ? memoryInUse(stats) : null;
            samples.push({
              instanceId: instance.id,
              at,
              intervalSeconds: before ? (at.getTime() - before.at) / 1000 : 0,
              cpuSeconds: cpu === null ? null : cpu / 1e9,
              memoryBytes: memory,
              memoryPeakBytes: memory,
              memoryLimitBytes: stats?.memory_stats?.limit ?? null,
              oomKills: killed.get(instance.id) ?? 0,
              diskUsedBytes: disk?.usedBytes ?? null,
              diskLimitBytes: disk?.limitBytes ?? null,
              diskRoomBytes: disk?.roomBytes ?? null,
              requests: WEB_TYPES.has(instance.type)
                ? (served.get(instance.id) ?? {
                    status2xx: 0,
                    status3xx: 0,
                    status4xx: 0,
                    status5xx: 0,
                    bytesSent: 0,
                  })
                : null,
            });
          }),
        );
      }),
    );
    return samples;
  }

  return {
    async sample(instances) {
      const at = new Date();
      const wanted = new Map(instances.map((instance) => [instance.id, instance.type as string]));
      for (const id of previous.keys()) if (!wanted.has(id)) previous.delete(id);
      const perRegion = await Promise.all(
        [...ctx.regions.values()].map((region) =>
          sampleRegion(region, wanted, at).catch((error: Error) => {
            ctx.log(`usage of ${region.id} not sampled: ${error.message}`);
            return [];
          }),
        ),
      );
      return perRegion.flat();
    },

    async capacity(): Promise<HostCapacity> {
      const places: CapacityPlace[] = [];
      // What one more WordPress site promises on a node: its two volumes' disks.
      const aSite = { promisedBytes: instanceDiskBytes(ctx.options.disks, 'wordpress'), disks: 2 };
      for (const region of ctx.regions.values()) {
        const loads = await region.loads().catch(() => []);
        for (const load of loads) {
          const { node } = load;
          const ready = node.Status.State === 'ready';
          const disk = ready ? await nodeDisk(region, node.ID).catch(() => undefined) : undefined;
          places.push({
            region: region.id,
            node: node.Description.Hostname,
            state: ctx.preparing.has(node.ID)
              ? 'preparing'
              : ready
                ? node.Spec.Availability
                : node.Status.State,
            memoryBytes: node.Description.Resources.MemoryBytes,
            cpus: node.Description.Resources.NanoCPUs / 1e9,
            reservedMemoryBytes: load.reservedMemory,
            reservedCpus: load.reservedNanoCpus / 1e9,
            diskBytes: disk?.sizeBytes ?? 0,
            diskFreeBytes: disk?.freeBytes ?? 0,
            storage:
              disk && storageReport(disk, ctx.diskPolicy, aSite, ctx.holdAllowances.get(node.ID) ?? null),
            instances: load.instances.size,
          });
        }
      }
      const up = places.filter((place) => place.state === 'active');
      const sum = (pick: (place: CapacityPlace) => number) =>
        up.reduce((total, place) => total + pick(place), 0);
      return {
        memoryBytes: sum((p) => p.memoryBytes),
        cpus: sum((p) => p.cpus),
        diskBytes: sum((p) => p.diskBytes),
        diskFreeBytes: sum((p) => p.diskFreeBytes),
        enforcement: 'Docker (each instance its own container)',
        places,
      };
    },

    limits(_instance, resources): AppliedLimits {
      const memory =
        resources.memoryMb % 1024 === 0 ? `${resources.memoryMb / 1024}GB` : `${resources.memoryMb}MB`;
      const how = 'for this instance alone, enforced by the kernel';
      return {
        sharedServer: false,
        limits: [
          { label: 'Memory', value: `${memory} ${how}`, enforced: true },
          { label: 'CPU', value: `${resources.cpus} vCPU ${how}`, enforced: true },
        ],
      };
    },
  };
}
