import { rm } from 'node:fs/promises';
import path from 'node:path';
import { NotFoundError } from '../../lib/errors.ts';
import { createKeyedLock, type KeyedLock } from '../../lib/keyed-lock.ts';
import { DEFAULT_DISK_OVERCOMMIT, type DiskPolicy } from '../disk-policy.ts';
import type { InstanceType } from '../instance-types.ts';
import { imageRefs } from './image-builder.ts';
import type { ImageName } from './image-recipes.ts';
import { createRegion, type Region, RegionUnavailableError } from './region.ts';
import { findService, instanceNames, type ServiceInfo } from './services.ts';
import {
  DEFAULT_DATABASE_PORTS,
  DEFAULT_DISKS,
  type DiskSizes,
  type SwarmDriverOptions,
} from './swarm-options.ts';

/** What the engines of the swarm driver share: the regions, image names and locks. */
export interface SwarmContext {
  options: SwarmDriverOptions & {
    httpPort: number;
    httpsPort: number;
    databasePorts: { from: number; to: number };
    disks: DiskSizes;
  };
  regions: Map<string, Region>;
  /** The region a spec asks for (its first configured one when it names none); refuses others. */
  region(id: string | undefined): Region;
  /** Where an existing instance runs: the region whose manager has its service. */
  locate(id: string): Promise<{ region: Region; service: ServiceInfo } | undefined>;
  /** Like locate, but a missing instance is a NotFoundError. */
  require(id: string): Promise<{ region: Region; service: ServiceInfo }>;
  /**
   * The image of one of Berth's recipes; with a type, the operator's image for that type instead when
   * SWARM_IMAGES names one (the front door, helpers and the agent are always Berth's own).
   */
  image(name: ImageName, type?: InstanceType): string;
  /** The published port a relocated database had (its next deploy takes it again where it is free). */
  previousPorts: Map<string, number>;
  /** Placements of deploys under way, per instance, until its task shows on its node (node-agent.ts). */
  /** What the hold deals each volume of a node now (disk-holds.ts), where it holds anything. */
  holdAllowances: Map<string, number>;
  promises: Map<
    string,
    { region: string; nodeId: string; memoryBytes: number; nanoCpus: number; diskBytes: number; at: number }
  >;
  /** What nodes may promise instances' disks (DISK_RESERVE_MB, DISK_OVERCOMMIT: disk-policy.ts). */
  diskPolicy: DiskPolicy;
  /** Nodes whose images are being loaded now (node-agent.ts): the admin sees them "preparing". */
  preparing: Set<string>;
  /** One operation at a time per instance (and per region for port choice). */
  lock: KeyedLock;
  /**
   * Removes the folder backups this driver kept before backups became the platform's (SWARM_BACKUPS_DIR/<id>):
   * an instance's deletion leaves none behind.
   */
  deleteLegacyBackups(id: string): Promise<void>;
  started(): boolean;
  log: (line: string) => void;
}

const MIB = 1024 * 1024;
/** Kept free on every node for Docker, its images and logs (as DISK_RESERVE_MB's default). */
const DEFAULT_DISK_RESERVE_MB = 2048;

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
      disks: { ...DEFAULT_DISKS, ...options.disks },
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
    image: (name, type) => (type && options.images?.[type]) || refs[name],
    preparing: new Set(),
    promises: new Map(),
    holdAllowances: new Map(),
    diskPolicy: {
      reserveBytes: (options.diskPolicy?.reserveMb ?? DEFAULT_DISK_RESERVE_MB) * MIB,
      overcommit: options.diskPolicy?.overcommit ?? DEFAULT_DISK_OVERCOMMIT,
    },
    previousPorts: new Map(),
    lock: createKeyedLock(),
    deleteLegacyBackups: (id) => rm(path.join(options.backupsDir, id), { recursive: true, force: true }),
    started,
    log: options.log ?? (() => {}),
  };
  return ctx;
}
