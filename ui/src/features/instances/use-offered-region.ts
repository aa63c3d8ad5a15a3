import { useEffect } from 'react';
import type { RegionAvailability } from '../../api/instances.queries.ts';
import { firstOfferedRegion, regionOffered } from './instance-catalog.ts';

/**
 * Keeps a deploy form on a region the server offers: once the server's answer shows the chosen one is
 * not (a server whose regions do not include the default), the first that is is chosen instead.
 */
export function useOfferedRegion(
  regions: readonly RegionAvailability[] | undefined,
  chosen: string,
  choose: (region: string) => void,
): void {
  useEffect(() => {
    if (regions && !regionOffered(regions, chosen)) choose(firstOfferedRegion(regions));
  }, [regions, chosen, choose]);
}
