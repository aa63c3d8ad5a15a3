import { existsSync, readdirSync, statSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import path from 'node:path';
import { type DiskFigures, type DiskPolicy, type HeldDisk, holdPlan, refusalOf } from '../../disk-policy.ts';
import { StorageExhaustedError } from '../../driver.ts';
import { type DiskGuard, heldDisk, writeHolds } from './disk-hold.ts';

/**
 * The host's promise to its tenants' disks (tenant-disks.ts), judged by disk-policy.ts.
 *
 * Tenant disks are sparse images: a new one takes almost nothing, and each grows on the host as its
 * tenant writes, up to its size. A new image is made only when the policy allows it against the file
 * system holding the images: what every image promises (its size) within DISK_OVERCOMMIT × the real
 * space for tenants (free + what the images take − the reserve, DISK_RESERVE_MB), and the file
 * system's use below its high-water mark. With DISK_OVERCOMMIT = 1 tenants filling every disk never
 * reach the reserve (the platform's database, logs, backups, MariaDB's and PostgreSQL's shared files).
 * A deploy the policy refuses fails with StorageExhaustedError (the customer reads that the host is
 * full; the operator reads the figures in the log) until space is freed or added.
 *
 * Images (every `*.img` in `<root>/disks/` and its folders, partial ones too) are counted by what `stat`
 * says of them: the apparent size and the blocks allocated. Checks and image creation run one at a
 * time, so two deploys cannot both take the last room.
 *
 * Above DISK_OVERCOMMIT 1 (or when the platform's own files shrink what is free), the hold keeps the
 * reserve whole all the same (disk-policy.ts `holdPlan`, disk-hold.ts): a round every HOLD_ROUND_MS,
 * and at once after each new disk, reads every mounted tenant disk (one statfs each) and, when their
 * free space together passes the room outside the reserve, deals each an allowance and holds the rest
 * with a file of root's. An image that is not mounted (a spare, a disk between deploys) cannot be
 * held: what it could still take on the host is kept out of the room dealt, and so is what a mounted
 * one may take beyond any allowance (ext4's journal and inode tables, written to the image when first
 * needed: disk-hold.ts `unboundBytes`).
 */

/** How often the hold looks again: a writer that spent its allowance waits at most this for more. */
const HOLD_ROUND_MS = 1000;

export interface DiskReserve {
  /** Runs `make` (which creates an image of `bytes`) when the policy allows it, else refuses. */
  withRoom<T>(bytes: number, make: () => Promise<T>): Promise<T>;
  /** The file system's figures now. */
  figures(): Promise<DiskFigures>;
  readonly policy: DiskPolicy;
  /**
   * The disk of image `file` is mounted at `point`: the hold counts and holds it from now on (through
   * its guard when it has one, disk-hold.ts).
   */
  mounted(file: string, point: string, guard?: DiskGuard): void;
  /** The disk at `point` is unmounted or gone. */
  unmounted(point: string): void;
  /** One round of the hold now (after the others queued). */
  hold(): Promise<void>;
  /** What each disk may write at once while the hold deals (its last round); null when nothing is held. */
  holdAllowance(): number | null;
  /** Rounds of the hold every HOLD_ROUND_MS until `stop`. */
  start(): void;
  stop(): void;
}

interface Image {
  file: string;
  /** Its size: what it promises. */
  sizeBytes: number;
  /** What it takes on the host now. */
  takenBytes: number;
}

/**
 * The image files in `dir` and its folders. Read at once (readdir and stat of a root-only folder):
 * every new disk and every round of the hold asks, and a host with 500 sites has over 1,000 images,
 * where a round trip through libuv's threads per file cost far more than the calls.
 */
function imagesIn(dir: string, into: Image[] = [], depth = 1): Image[] {
  if (!existsSync(dir)) return into;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory() && depth > 0) imagesIn(file, into, depth - 1);
    if (!entry.isFile() || !/\.img(\.partial)?$/.test(entry.name)) continue;
    const info = statSync(file, { throwIfNoEntry: false });
    if (info) into.push({ file, sizeBytes: info.size, takenBytes: Math.min(info.size, info.blocks * 512) });
  }
  return into;
}

const MIB = 1024 * 1024;

/** The policy over the images in `dir`: `reserveMb` kept, promises up to `overcommit` × the real space. */
export function diskReserve(
  dir: string,
  settings: { reserveMb: number; overcommit: number },
  log: (line: string) => void,
): DiskReserve {
  const policy: DiskPolicy = { reserveBytes: settings.reserveMb * MIB, overcommit: settings.overcommit };
  let queue: Promise<unknown> = Promise.resolve();
  /** Mounted disks under the hold, by image file. */
  const mounts = new Map<string, { point: string; guard?: DiskGuard }>();
  let timer: NodeJS.Timeout | undefined;
  /** Whether some disk is held (unknown at first: hold files of an earlier run are looked at). */
  let holding: boolean | undefined;
  let allowance: number | null = null;

  /** Runs `task` after every check, image and round queued before it. */
  function inTurn<T>(task: () => Promise<T>): Promise<T> {
    const turn = queue.then(task);
    queue = turn.catch(() => {});
    return turn;
  }

  async function hostSpace() {
    const fs = await statfs(existsSync(dir) ? dir : path.dirname(dir));
    return { freeBytes: fs.bavail * fs.bsize, usedBytes: (fs.blocks - fs.bfree) * fs.bsize };
  }

  async function figures(): Promise<DiskFigures> {
    const { freeBytes, usedBytes } = await hostSpace();
    const images = imagesIn(dir);
    return {
      sizeBytes: usedBytes + freeBytes,
      usedBytes,
      freeBytes,
      promisedBytes: images.reduce((total, image) => total + image.sizeBytes, 0),
      tenantUsedBytes: images.reduce((total, image) => total + image.takenBytes, 0),
      disks: images.length,
    };
  }

  /** One round of the hold (see above). */
  async function holdRound(): Promise<void> {
    const { freeBytes } = await hostSpace();
    const images = imagesIn(dir);
    const room = freeBytes - policy.reserveBytes;
    // Cheap first: no image can grow past its size, so when all of them could not pass the room, no
    // disk needs reading (the usual case at DISK_OVERCOMMIT 1). Files of an earlier run are looked at once.
    if (
      holding === false &&
      images.reduce((total, image) => total + image.sizeBytes - image.takenBytes, 0) <= room
    )
      return;
    const held: { point: string; sparse: boolean; disk: HeldDisk }[] = [];
    let unheld = 0;
    for (const image of images) {
      const mount = mounts.get(image.file);
      const disk = mount ? heldDisk(mount.point, mount.guard) : undefined;
      if (mount && disk) {
        held.push({ point: mount.point, sparse: mount.guard !== undefined, disk });
        unheld += disk.unboundBytes(image.sizeBytes, image.takenBytes);
      } else unheld += image.sizeBytes - image.takenBytes;
    }
    const plan = holdPlan(
      held.map((entry) => entry.disk),
      room - unheld,
    );
    allowance = plan.allowanceBytes;
    const now = allowance !== null;
    if (now !== (holding ?? false)) {
      const could = held.reduce((total, entry) => total + entry.disk.freeBytes + entry.disk.holdBytes, 0);
      log(
        now
          ? `disk hold: tenant disks could take ${Math.floor(could / MIB)} MiB more, the room outside the reserve is ${Math.floor((room - unheld) / MIB)} MiB: each disk gets an allowance`
          : 'disk hold: tenant disks fit in the room outside the reserve: nothing held',
      );
      holding = now;
    }
    const holds = new Map<string, { bytes: number; sparse: boolean }>();
    for (const [index, bytes] of plan.sizes) {
      const entry = held[index];
      if (entry) holds.set(entry.point, { bytes, sparse: entry.sparse });
    }
    if (!(await writeHolds(holds)))
      log('disk hold: unavailable on this architecture (no fallocate number known)');
  }

  const hold = () =>
    inTurn(holdRound).catch((error: Error) => log(`disk hold: round failed: ${error.message}`));
  let waiting = false;
  /** The timer's round: skipped while one is still waiting its turn. */
  function tick(): void {
    if (waiting) return;
    waiting = true;
    void hold().finally(() => {
      waiting = false;
    });
  }

  return {
    policy,
    figures,
    withRoom(bytes, make) {
      const made = inTurn(async () => {
        const refusal = refusalOf(await figures(), policy, bytes, allowance);
        if (refusal) {
          log(`disk policy: ${refusal}`);
          throw new StorageExhaustedError();
        }
        return make();
      });
      // The new image may take what it promises: dealt at once.
      if (timer) void made.then(hold, () => {});
      return made;
    },
    mounted(file, point, guard) {
      mounts.set(file, { point, guard });
      if (timer) void hold();
    },
    unmounted(point) {
      for (const [file, mount] of mounts) if (mount.point === point) mounts.delete(file);
    },
    hold,
    holdAllowance: () => allowance,
    start() {
      timer ??= setInterval(tick, HOLD_ROUND_MS);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
