import { NotFoundError } from '../../lib/errors.ts';
import { createKeyedLock, type KeyedLock } from '../../lib/keyed-lock.ts';
import type { InstanceType } from '../instance-types.ts';
import { type BackupStore, backupStore } from './backup-store.ts';
import { imageRefs } from './image-builder.ts';
import type { ImageName } from './image-recipes.ts';
import { createRegion, type Region, RegionUnavailableError } from './region.ts';
import { findService, instanceNames, type ServiceInfo } from './services.ts';
import { DEFAULT_DATABASE_PORTS, type SwarmDriverOptions } from './swarm-options.ts';

/** What the engines of the swarm driver share: the regions, image names, locks and the backup store. */
export interface SwarmContext {
  options: SwarmDriverOptions & {
    httpPort: number;
    httpsPort: number;
    databasePorts: { from: number; to: number };
  };
  regions: Map<string, Region>;
  /** The region a spec asks for (its first configured one when it names none); refuses others. */
  region(id: string | undefined): Region;
  /** Where an existing instance runs: the region whose manager has its service. */
  locate(id: string): Promise<{ region: Region; service: ServiceInfo } | undefined>;
  /** Like locate, but a missing instance is a NotFoundError. */
  require(id: string): Promise<{ region: Region; service: ServiceInfo }>;
  /** The image of one of Berth's recipes, or the operator's for the type. */
  image(name: ImageName, type: InstanceType): string;
  /** One operation at a time per instance (and per region for port choice). */
  lock: KeyedLock;
  backups: BackupStore;
  started(): boolean;
  log: (line: string) => void;
}

export function createSwarmContext(options: SwarmDriverOptions, started: () => boolean): SwarmContext {
  const regions = new Map(
    Object.entries(options.regions).map(([id, config]) => [id, createRegion(id, config)]),
  );
  const refs = imageRefs();
  const located = new Map<string, string>();
  const ctx: SwarmContext = {
    options: {
      ...options,
      httpPort: options.httpPort ?? 80,
      httpsPort: options.httpsPort ?? 443,
      databasePorts: options.databasePorts ?? DEFAULT_DATABASE_PORTS,
    },
    regions,
    region(id) {
      const chosen = id ?? [...regions.keys()][0];
      const region = chosen === undefined ? undefined : regions.get(chosen);
      if (!region) throw new RegionUnavailableError(id ?? 'any region', [...regions.keys()]);
      return region;
    },
    async locate(id) {
      const name = instanceNames(id).service;
      const known = located.get(id);
      const order = [...regions.values()].sort((a) => (a.id === known ? -1 : 1));
      for (const region of order) {
        const service = await findService(region.manager, name).catch(() => undefined);
        if (service) {
          located.set(id, region.id);
          return { region, service };
        }
      }
      located.delete(id);
      return undefined;
    },
    async require(id) {
      const found = await ctx.locate(id);
      if (!found) throw new NotFoundError('Instance not found');
      return found;
    },
    image: (name, type) => options.images?.[type] ?? refs[name],
    lock: createKeyedLock(),
    backups: backupStore(options.backupsDir),
    started,
    log: options.log ?? (() => {}),
  };
  return ctx;
}
