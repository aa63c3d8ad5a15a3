import { setTimeout as sleep } from 'node:timers/promises';
import type { StorageUse } from '../engine.ts';
import { createVolumeDisk, removeVolumeDisk, sizedVolumeOptions, volumeUsage } from './node-agent.ts';
import type { Region } from './region.ts';
import { type InstanceNames, instanceNames, LABEL } from './services.ts';
import { type SwarmNode, statusOf, unlessMissing } from './swarm-api.ts';
import type { SwarmContext } from './swarm-context.ts';
import type { DiskSizes } from './swarm-options.ts';

/**
 * Instances' volumes on a swarm: each one a disk of the size it was sold, made by the node's agent
 * (node-agent.ts) before the service that mounts it, and gone with it. How big each kind is comes from
 * the operator's settings (the same as the local driver's: SITES_DISK_MB, SITES_DATABASE_MB,
 * MYSQL_DISK_MB, POSTGRES_DISK_MB, N8N_DISK_MB: swarm-options.ts); a database server's own files come on
 * top.
 */

/**
 * What a database server's own files take besides the tenant's data: MariaDB's system tables and redo
 * log (about 110 MiB fresh), PostgreSQL's cluster (about 40 MiB), with room for their logs to grow.
 */
const SERVER_FILES_MB = { mariadb: 192, postgres: 64 } as const;

/** How large the disk of an instance's volume `purpose` is made (MiB): what was sold, and a server's own files. */
export function volumeSizeMb(disks: DiskSizes, type: string, purpose: string): number {
  if (type === 'wordpress')
    return purpose === 'db' ? disks.wordpressDatabase + SERVER_FILES_MB.mariadb : disks.wordpress;
  if (type === 'mysql') return disks.mysql + SERVER_FILES_MB.mariadb;
  if (type === 'postgresql') return disks.postgresql + SERVER_FILES_MB.postgres;
  if (type === 'n8n') return disks.n8n;
  throw new Error(`A ${type} instance has no volume "${purpose}"`);
}

const MIB = 1024 * 1024;

/**
 * What the image of a volume's disk of `sizeMb` promises on its node: the agent makes it a tenth larger
 * and 12 MiB more, for ext4's own (berth-agent, volume_create).
 */
const volumeImageBytes = (sizeMb: number) => (sizeMb + Math.floor(sizeMb / 10) + 12) * MIB;

/** What an instance of `type` promises on its node: the image of each of its volumes. */
export function instanceDiskBytes(disks: DiskSizes, type: string): number {
  const purposes = type === 'wordpress' ? ['content', 'db'] : ['data'];
  return purposes.reduce((sum, purpose) => sum + volumeImageBytes(volumeSizeMb(disks, type, purpose)), 0);
}

/** A node's disk of `sizeMb` for the instance's volume `purpose`, and the mount that binds it. */
export async function sizedVolume(
  region: Region,
  node: SwarmNode,
  names: InstanceNames,
  purpose: string,
  target: string,
  sizeMb: number,
) {
  const name = names.volume(purpose);
  await createVolumeDisk(region, node.ID, name, sizeMb);
  return volumeMount(node, names, purpose, target);
}

/** The mount of an instance's volume, bound to its disk on `node` (made by sizedVolume). */
export function volumeMount(node: SwarmNode, names: InstanceNames, purpose: string, target: string) {
  const name = names.volume(purpose);
  return {
    Type: 'volume' as const,
    Source: name,
    Target: target,
    VolumeOptions: {
      // Seeded from the image on first use (a database's prepared data folder, WordPress' wp-content).
      NoCopy: false,
      Labels: { [LABEL.instance]: names.id },
      DriverConfig: { Name: 'local', Options: sizedVolumeOptions(node, name) },
    },
  };
}

export type VolumeMount = ReturnType<typeof volumeMount>;

/** The node an instance's volumes are on, which must still be there. */
export async function volumeNode(region: Region, nodeId: string): Promise<SwarmNode> {
  const node = await region.nodeById(nodeId);
  if (!node) throw new Error(`The server ${nodeId} of this instance is gone`);
  return node;
}

/**
 * Removes an instance's volumes on the node that holds them, then their disks; on a node that is down,
 * nothing now (the instance's deletion goes on): the node's sweep removes them once it is back.
 */
export async function removeVolumes(region: Region, nodeId: string | undefined, names: string[]) {
  if (!nodeId) return;
  const node = await region.nodeById(nodeId);
  if (!node) return;
  // A node that is down keeps them until it is back: its sweep (node-agent.ts) takes them then.
  if (node.Status.State !== 'ready') return;
  const engine = region.nodeEngine(node);
  for (const name of names) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await unlessMissing(() => engine.getVolume(name).remove());
        break;
      } catch (error) {
        // 409: a stopped container of the service still holds it; swarm removes those shortly.
        if (statusOf(error) !== 409 || Date.now() > deadline) throw error;
        for (const container of await engine.listContainers({
          all: true,
          filters: { volume: [name] },
        })) {
          // 409: swarm is removing it already.
          await engine
            .getContainer(container.Id)
            .remove({ force: true })
            .catch((removal: unknown) => {
              if (![404, 409].includes(statusOf(removal) ?? 0)) throw removal;
            });
        }
        await sleep(200);
      }
    }
    await removeVolumeDisk(region, nodeId, name);
  }
}

/** How much of its disk an instance's volume `purpose` uses (null: it has none, or its node is gone). */
export async function volumeStorage(
  ctx: SwarmContext,
  id: string,
  purpose: string,
): Promise<StorageUse | null> {
  const found = await ctx.locate(id);
  const nodeId = found?.service.Spec.Labels?.[LABEL.node];
  if (!found || !nodeId) return null;
  const name = instanceNames(id).volume(purpose);
  const usage = (await volumeUsage(found.region, nodeId, [name]).catch(() => undefined))?.get(name);
  return usage ?? null;
}
