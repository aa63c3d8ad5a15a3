import { REGIONS } from '@berth/openapi/rules';
import { ConflictError } from '../../lib/errors.ts';
import type { ProvisioningDriver } from '../../provisioning/driver.ts';
import type { AdminRegions } from './regions.schemas.ts';

export type RegionsService = ReturnType<typeof createRegionsService>;

/** This install runs every instance on the server that answers: it has no server to drain. */
const ONE_SERVER = 'Every instance runs on this one server here: there is no other server to move them to';

/**
 * The admin's view of where instances run: every region customers can pick, whether the driver places
 * instances there, and, where a scheduler runs it (swarm), its nodes with their reservations; and a node
 * drained (its instances moved off by the instances' jobs: `moveOff`) or put back in service.
 */
export function createRegionsService(
  driver: ProvisioningDriver,
  deps: { moveOff(instanceIds: readonly string[]): Promise<number> },
) {
  return {
    async forAdmin(): Promise<AdminRegions> {
      const [offered, reports] = await Promise.all([driver.regions(), driver.nodes?.() ?? []]);
      return {
        scheduler: driver.nodes ? 'swarm' : 'this-host',
        regions: REGIONS.map(({ id, label }) => {
          const availability = offered.find((region) => region.id === id);
          const report = reports.find((r) => r.region === id);
          return {
            region: id,
            label,
            available: availability?.available ?? false,
            reason: availability?.available ? null : (availability?.reason ?? null),
            error: report?.error ?? null,
            nodes: report?.nodes ?? [],
          };
        }),
      };
    },

    async drain(nodeId: string): Promise<{ moving: number; message: string }> {
      if (!driver.drainNode) throw new ConflictError(ONE_SERVER);
      const moving = await deps.moveOff(await driver.drainNode(nodeId));
      return {
        moving,
        message:
          moving === 0
            ? 'Drained: nothing of its instances is on it'
            : `Drained: ${moving} instance${moving === 1 ? ' is' : 's are'} being moved to other servers`,
      };
    },

    async activate(nodeId: string): Promise<{ message: string }> {
      if (!driver.activateNode) throw new ConflictError(ONE_SERVER);
      await driver.activateNode(nodeId);
      return { message: 'Back in service: new instances may be placed on it' };
    },
  };
}
