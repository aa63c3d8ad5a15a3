import { REGIONS } from '@berth/openapi/rules';
import type { ProvisioningDriver } from '../../provisioning/driver.ts';
import type { AdminRegions } from './regions.schemas.ts';

export type RegionsService = ReturnType<typeof createRegionsService>;

/**
 * The admin's view of where instances run: every region customers can pick, whether the driver places
 * instances there, and, where a scheduler runs it (swarm), its nodes with their reservations.
 */
export function createRegionsService(driver: ProvisioningDriver) {
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
  };
}
