import type { RegionNodes } from '../driver.ts';
import type { Region } from './region.ts';

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
