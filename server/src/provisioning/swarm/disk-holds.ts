import { type HeldDisk, holdPlan } from '../disk-policy.ts';
import { nodeHoldFigures, setNodeHolds } from './node-agent.ts';
import type { Region } from './region.ts';
import type { SwarmContext } from './swarm-context.ts';

/**
 * The hold (disk-policy.ts `holdPlan`) on every node of every region, as the local driver keeps it on
 * its host (disk-reserve.ts): when what the volumes' disks of a node could still take passes the room
 * outside its reserve (DISK_RESERVE_MB), each gets an allowance and the rest is held by a file of
 * root's on the disk, outside the folder its container binds (berth-agent hold-set). Read and set by
 * the node's agent, a round per node every HOLD_ROUND_MS, and at once after a deploy (swarm-driver.ts):
 * a new volume is unheld for that round trip (at most its own size, which the reserve must cover: 2 GiB
 * by default on swarm), and a writer that spent its allowance waits up to a round for more. Rounds of a
 * region run one at a time.
 *
 * A disk being made (`disk.tmp`) or not mounted cannot be held: what it could still take on the node is
 * kept out of the room dealt, and so is what a held one may take beyond its allowance (ext4's journal
 * and inode tables, written to the image when first needed). Databases on swarm each have a server of their own: a disk held full stops
 * that server's writes as the end of the disk does, never another tenant's.
 */

const HOLD_ROUND_MS = 5000;

export interface DiskHolds {
  /** One round on every ready node of the region (the first configured one when none is named). */
  round(regionId: string | undefined): Promise<void>;
  start(): void;
  stop(): void;
}

export function diskHolds(ctx: SwarmContext): DiskHolds {
  /** Nodes where something is held (a change is logged); what each volume there is dealt is in ctx. */
  const holding = new Map<string, boolean>();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  /** Each region's last round: the next waits for it (a timer's and a deploy's never write at once). */
  const turns = new Map<string, Promise<void>>();

  async function holdNode(region: Region, nodeId: string, hostname: string): Promise<void> {
    const figures = await nodeHoldFigures(region, nodeId);
    const held: { name: string; disk: HeldDisk }[] = [];
    let unheld = 0;
    for (const [name, volume] of figures.volumes) {
      if (volume.freeBytes === undefined || name.endsWith('.tmp'))
        unheld += Math.max(0, volume.sizeBytes - volume.takenBytes);
      else {
        held.push({ name, disk: { freeBytes: volume.freeBytes, holdBytes: volume.holdBytes } });
        // ext4's own blocks (journal, inode tables) not yet written to the image: no allowance bounds
        // them (the hold's blocks are fallocate'd, never written).
        unheld += Math.max(0, volume.sizeBytes - volume.takenBytes - volume.freeBytes - volume.holdBytes);
      }
    }
    const room = figures.freeBytes - ctx.diskPolicy.reserveBytes - unheld;
    const plan = holdPlan(
      held.map((entry) => entry.disk),
      room,
    );
    const now = plan.allowanceBytes !== null;
    if (plan.allowanceBytes !== null) ctx.holdAllowances.set(nodeId, plan.allowanceBytes);
    else ctx.holdAllowances.delete(nodeId);
    if (now !== (holding.get(nodeId) ?? false)) {
      ctx.log(
        now
          ? `disk hold: the volumes of ${hostname} (${region.id}) could take more than the ${Math.floor(room / 1024 / 1024)} MiB outside its reserve: each gets an allowance`
          : `disk hold: the volumes of ${hostname} (${region.id}) fit outside its reserve: nothing held`,
      );
      holding.set(nodeId, now);
    }
    const holds = new Map<string, number>();
    for (const [index, bytes] of plan.sizes) {
      const entry = held[index];
      if (entry) holds.set(entry.name, bytes);
    }
    await setNodeHolds(region, nodeId, holds);
  }

  function round(region: Region): Promise<void> {
    const previous = turns.get(region.id) ?? Promise.resolve();
    const next = previous.then(() => roundNow(region));
    const settled = next.catch(() => {});
    turns.set(region.id, settled);
    void settled.then(() => {
      if (turns.get(region.id) === settled) turns.delete(region.id);
    });
    return next;
  }

  async function roundNow(region: Region): Promise<void> {
    for (const node of await region.nodes()) {
      if (node.Status.State !== 'ready') continue;
      await holdNode(region, node.ID, node.Description.Hostname).catch((error: Error) =>
        ctx.log(`disk hold on ${node.Description.Hostname} (${region.id}) failed: ${error.message}`),
      );
    }
  }

  async function tick(): Promise<void> {
    if (running) return;
    running = true;
    try {
      for (const region of ctx.regions.values()) await round(region).catch(() => {});
    } finally {
      running = false;
    }
  }

  return {
    round: async (regionId) => round(ctx.region(regionId)),
    start() {
      timer ??= setInterval(() => void tick(), HOLD_ROUND_MS);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
