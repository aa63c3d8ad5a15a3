import type { Region } from './region.ts';

/** What the admin sees of a region: each node as the swarm itself reports it. */
export interface NodeReport {
  id: string;
  hostname: string;
  role: 'manager' | 'worker';
  /** ready · down · unknown · disconnected (the manager's view). */
  state: string;
  /** active · pause · drain (the operator's). */
  availability: string;
  address: string;
  labels: Record<string, string>;
  memoryBytes: number;
  memoryReservedBytes: number;
  cpus: number;
  cpusReserved: number;
  /** Berth instances with a task on it now. */
  instances: number;
}

export interface RegionNodes {
  region: string;
  /** Set when the region's manager could not be asked. */
  error?: string;
  nodes: NodeReport[];
}

export async function regionNodes(region: Region): Promise<RegionNodes> {
  try {
    const loads = await region.loads();
    return {
      region: region.id,
      nodes: loads
        .map(({ node, reservedMemory, reservedNanoCpus, instances }) => ({
          id: node.ID,
          hostname: node.Description.Hostname,
          role: node.Spec.Role,
          state: node.Status.State,
          availability: node.Spec.Availability,
          address: region.publicAddress(node),
          labels: node.Spec.Labels ?? {},
          memoryBytes: node.Description.Resources.MemoryBytes,
          memoryReservedBytes: reservedMemory,
          cpus: node.Description.Resources.NanoCPUs / 1e9,
          cpusReserved: reservedNanoCpus / 1e9,
          instances: instances.size,
        }))
        .sort((a, b) => a.hostname.localeCompare(b.hostname) || a.id.localeCompare(b.id)),
    };
  } catch (error) {
    return { region: region.id, error: (error as Error).message, nodes: [] };
  }
}
