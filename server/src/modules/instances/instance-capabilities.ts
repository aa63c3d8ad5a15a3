import { REGIONS } from '@berth/openapi/rules';
import { BACKUPS_NOT_OFFSITE } from '../../backup-storage/object-store.ts';
import { INSTANCE_TYPES } from '../../provisioning/instance-types.ts';
import { ORPHAN_GRACE_DAYS } from './backups/backup-schedule.ts';
import { findLastSweep } from './backups/instance-backups.repository.ts';
import type { InstancesDeps } from './instances.deps.ts';
import type { Capabilities, OperatorCapabilities } from './instances.schemas.ts';
import { kindOf } from './kinds/kinds.ts';
import { phpChoices, wordpressKind } from './kinds/wordpress.kind.ts';
import { NOTHING_STARTING } from './queue/driver-startup.ts';

/**
 * What the driver can provide, for customers (the reason a type is unavailable) and for the operator
 * (what is missing on the host, and where backups go). A type the driver's start may still bring counts
 * as available: a deploy of it waits for the start.
 */
export type InstanceCapabilities = ReturnType<typeof instanceCapabilities>;

export function instanceCapabilities(deps: Pick<InstancesDeps, 'db' | 'driver' | 'startup' | 'backups'>) {
  const { driver } = deps;
  const startup = deps.startup ?? NOTHING_STARTING;

  /** Every type, available or with the customer's reason and the operator's detail. */
  async function capabilityList(): Promise<OperatorCapabilities['types']> {
    const found = await driver.capabilities();
    return INSTANCE_TYPES.map((type) => {
      const capability = found[type];
      const available = capability.available || startup.mayProvide(type);
      const { entry } = kindOf(type);
      return {
        type,
        name: entry.name,
        category: entry.category,
        available,
        reason: capability.available || available ? null : capability.reason,
        detail: capability.available || available ? null : (capability.detail ?? null),
      };
    });
  }

  return {
    /**
     * What the driver can provide, with the customer's reason for the rest, the regions, and the PHP
     * versions of WordPress sites; a type its start may still bring counts as available (deploy waits).
     */
    async capabilities(): Promise<Capabilities> {
      const [types, regions, php] = await Promise.all([
        capabilityList(),
        driver.regions(),
        phpChoices(driver, startup.mayProvide(wordpressKind.type)),
      ]);
      return {
        php,
        regions: REGIONS.map(({ id, label }) => {
          const region = regions.find((r) => r.id === id);
          return {
            id,
            label,
            available: region?.available ?? false,
            reason: region?.available ? null : (region?.reason ?? 'Not offered by this server'),
          };
        }),
        types: types.map(({ detail: _operators, ...type }) => type),
      };
    },

    /** The types with the operator's detail of each unavailable one (what is missing, what to run). */
    async capabilitiesForOperator(): Promise<OperatorCapabilities> {
      const { store } = deps.backups.vault;
      const sweep = await findLastSweep(deps.db);
      return {
        types: await capabilityList(),
        backups: {
          offsite: store.offsite,
          where: store.description,
          detail: store.offsite ? null : BACKUPS_NOT_OFFSITE,
          sweep: sweep
            ? {
                sweptAt: sweep.swept_at.toISOString(),
                orphans: sweep.orphans,
                missing: sweep.missing,
                removed: sweep.removed,
                graceDays: ORPHAN_GRACE_DAYS,
              }
            : null,
        },
      };
    },
  };
}
