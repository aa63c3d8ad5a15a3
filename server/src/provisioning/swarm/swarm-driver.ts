import { REGION_UNAVAILABLE, REGIONS } from '@berth/openapi/rules';
import {
  type DriverHealth,
  type ProvisioningDriver,
  type RegionNodes,
  type ServerHealth,
  unavailableEngine,
} from '../driver.ts';
import type { BaseSpec, InstanceEngine, SpecOf } from '../engine.ts';
import { type Capabilities, type InstanceType, unavailable } from '../instance-types.ts';
import type { UsageCapability } from '../usage.ts';
import { databaseEngine } from './database-engine.ts';
import { type DiskHolds, diskHolds } from './disk-holds.ts';
import { swarmFrontDoors } from './front-door.ts';
import { activateNode, drainNode, moveInstance } from './instance-moves.ts';
import { liveStatus } from './live-status.ts';
import { n8nEngine } from './n8n-engine.ts';
import { prepareRegion } from './node-agent.ts';
import { regionNodes } from './node-report.ts';
import { instanceNames, LABEL, removeNetwork, removeService } from './services.ts';
import { swarmSftp } from './site-sftp.ts';
import { unlessMissing } from './swarm-api.ts';
import { createSwarmContext } from './swarm-context.ts';
import type { SwarmDriverOptions } from './swarm-options.ts';
import { swarmUsage } from './usage.ts';
import { wordpressEngine } from './wordpress-engine.ts';

/**
 * The swarm driver: every instance type as Docker services on one Docker Swarm per region (see the
 * README's "Scaling out"). Engines per type share a context (regions, images, locks, backups); each
 * region has a front door for sites and n8n. Beyond the driver's contract it reports instances' live states
 * (`live`) and, for the admin, each region's nodes (`nodes()`).
 */
export interface SwarmDriver extends ProvisioningDriver {
  readonly live: NonNullable<ProvisioningDriver['live']>;
  drainNode(nodeId: string): Promise<string[]>;
  activateNode(nodeId: string): Promise<void>;
  /** Per configured region, its nodes as the swarm sees them (state, labels, capacity, reservations). */
  nodes(): Promise<RegionNodes[]>;
  /** What its instances use and what its nodes have (usage.ts). */
  readonly usage: UsageCapability;
  /** The hold on its nodes' disks (disk-holds.ts): rounds every few seconds once started. */
  readonly holds: DiskHolds;
}

/** How often the regions' nodes are looked at for one that joined (or changed). */
const NODE_WATCH_MS = 30_000;

export function createSwarmDriver(options: SwarmDriverOptions): SwarmDriver {
  let started = false;
  const ctx = createSwarmContext(options, () => started);
  // Above DISK_OVERCOMMIT 1, the volumes of a node together are held out of its reserve.
  const holds = diskHolds(ctx);
  const frontDoors = swarmFrontDoors(ctx);
  const sftp = swarmSftp(ctx);
  /** Once a deploy made its volumes, the hold deals them out at once, not at its next round. */
  function heldOnceDeployed<S extends BaseSpec>(engine: InstanceEngine<S>): InstanceEngine<S> {
    return {
      ...engine,
      async deploy(spec) {
        const deployment = await engine.deploy(spec);
        void holds.round(spec.region).catch((error: Error) => {
          ctx.log(`disk hold after the deploy of ${spec.id} failed: ${error.message}`);
        });
        return deployment;
      },
    };
  }
  const engines: { [T in InstanceType]: InstanceEngine<SpecOf[T]> } = {
    mysql: heldOnceDeployed(databaseEngine(ctx, 'mysql')),
    postgresql: heldOnceDeployed(databaseEngine(ctx, 'postgresql')),
    // No MongoDB image can be built from Debian's packages (Debian has no MongoDB), and one pulled from a
    // registry is not something this driver's tests could ever run: the type is declared unavailable.
    mongodb: unavailableEngine('mongodb', () =>
      unavailable.notOffered(
        'mongodb',
        'the swarm driver runs no MongoDB (Debian packages none to build an image from)',
      ),
    ),
    wordpress: heldOnceDeployed(wordpressEngine(ctx, frontDoors, sftp)),
    n8n: heldOnceDeployed(n8nEngine(ctx, frontDoors)),
  };
  const live = liveStatus(ctx, frontDoors);

  /** Lets go of a lost instance's services (its data went with its server); see LiveStatusCapability. */
  async function relocate(id: string): Promise<void> {
    await ctx.lock(`instance:${id}`, async () => {
      const found = await ctx.locate(id);
      if (!found) return;
      const names = instanceNames(id);
      const port = Number(found.service.Spec.Labels?.[LABEL.port]);
      if (port) ctx.previousPorts.set(id, port);
      for (const service of [names.service, names.dbService])
        await removeService(found.region.manager, service);
      if (await unlessMissing(() => found.region.manager.getNetwork(names.network).inspect())) {
        await frontDoors.disconnect(found.region.id, names.network);
        await removeNetwork(found.region.manager, names.network);
      }
      live.forget(id);
      ctx.log(`instance ${id} let go of its lost server: it is placed again by its next deploy`);
    });
  }
  const reachable = new Map<string, string | undefined>();
  let watchNodes: NodeJS.Timeout | undefined;

  async function ping(regionId: string): Promise<string | undefined> {
    const region = ctx.regions.get(regionId);
    try {
      await region?.manager.ping();
      const nodes = (await region?.nodes()) ?? [];
      const ready = nodes.filter((node) => node.Status.State === 'ready');
      const why = ready.length === 0 ? 'none of its servers is up' : undefined;
      reachable.set(regionId, why);
      return why;
    } catch (error) {
      const why = `its swarm manager does not answer (${(error as Error).message})`;
      reachable.set(regionId, why);
      return why;
    }
  }

  return {
    holds,
    engine: <T extends InstanceType>(type: T) => engines[type] as InstanceEngine<SpecOf[T]>,

    async capabilities(): Promise<Capabilities> {
      // No region that answers: nothing can be deployed anywhere, whatever the type.
      const down = started ? await Promise.all([...ctx.regions.keys()].map(ping)) : [];
      const nowhere = down.length > 0 && down.every((why) => why !== undefined);
      const entries = await Promise.all(
        (Object.keys(engines) as InstanceType[]).map(async (type) => {
          const capability = await engines[type].capability();
          return [
            type,
            nowhere && capability.available
              ? unavailable.down(type, 'No region of this platform answers right now')
              : capability,
          ];
        }),
      );
      return Object.fromEntries(entries) as Capabilities;
    },

    async regions() {
      return Promise.all(
        REGIONS.map(async ({ id }) => {
          if (!ctx.regions.has(id)) {
            return { id, available: false, reason: REGION_UNAVAILABLE.noServers };
          }
          const why = started ? await ping(id) : 'The platform is starting';
          return why
            ? { id, available: false, reason: REGION_UNAVAILABLE.down(id, why) }
            : { id, available: true };
        }),
      );
    },

    async start() {
      if (started) return;
      for (const id of ctx.regions.keys()) {
        const why = await ping(id);
        if (why) {
          ctx.log(`swarm region ${id}: ${why}`);
          continue;
        }
        // Every node's agent first: the tenants' firewall is up before anything of theirs answers.
        await prepareRegion(ctx, ctx.region(id));
        await frontDoors.start(id).catch((error: Error) => ctx.log(`front door of ${id}: ${error.message}`));
      }
      await sftp.start();
      // A node that joins a region is prepared (images, agent) before placement may choose it, and the
      // firewall follows the region's nodes.
      watchNodes = setInterval(() => {
        for (const region of ctx.regions.values()) void prepareRegion(ctx, region);
      }, NODE_WATCH_MS);
      watchNodes.unref();
      holds.start();
      started = true;
    },

    async stop() {
      started = false;
      if (watchNodes) clearInterval(watchNodes);
      holds.stop();
      live.stop();
      await sftp.stop();
    },

    async health(): Promise<DriverHealth> {
      const servers: Record<string, ServerHealth> = {};
      for (const id of ctx.regions.keys()) {
        const why = await ping(id);
        servers[`swarm:${id}`] = {
          kind: 'external',
          state: why ? 'failed' : 'running',
          ok: !why,
          message: why,
        };
      }
      return { ok: started && Object.values(servers).every((s) => s.ok), servers };
    },

    live: {
      ...live.capability,
      relocate,
      async move(id) {
        await moveInstance(ctx, id);
        live.forget(id);
      },
    },

    drainNode: (nodeId) => drainNode(ctx, nodeId),

    activateNode: (nodeId) => activateNode(ctx, nodeId),

    // Databases on swarm have no size guard of their own (their volume is their limit, no event).
    onStorageLimit: () => () => {},

    nodes: () => Promise.all([...ctx.regions.values()].map((region) => regionNodes(region))),

    usage: swarmUsage(ctx),
  };
}
