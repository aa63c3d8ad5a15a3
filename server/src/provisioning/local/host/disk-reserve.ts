import { existsSync, readdirSync, statSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import path from 'node:path';
import { type DiskFigures, type DiskPolicy, refusalOf } from '../../disk-policy.ts';
import { StorageExhaustedError } from '../../driver.ts';

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
 */

export interface DiskReserve {
  /** Runs `make` (which creates an image of `bytes`) when the policy allows it, else refuses. */
  withRoom<T>(bytes: number, make: () => Promise<T>): Promise<T>;
  /** The file system's figures now. */
  figures(): Promise<DiskFigures>;
  readonly policy: DiskPolicy;
}

interface ImageTotals {
  promisedBytes: number;
  tenantUsedBytes: number;
  disks: number;
}

/**
 * What the image files in `dir` and its folders promise and take. Read at once (readdir and stat of a
 * root-only folder): every new disk asks, and a host with 500 sites has over 1,000 images, where a
 * round trip through libuv's threads per file cost far more than the calls.
 */
function imageTotals(dir: string, into: ImageTotals, depth = 1): ImageTotals {
  if (!existsSync(dir)) return into;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory() && depth > 0) imageTotals(file, into, depth - 1);
    if (!entry.isFile() || !/\.img(\.partial)?$/.test(entry.name)) continue;
    const info = statSync(file, { throwIfNoEntry: false });
    if (!info) continue;
    into.promisedBytes += info.size;
    into.tenantUsedBytes += Math.min(info.size, info.blocks * 512);
    into.disks += 1;
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

  async function figures(): Promise<DiskFigures> {
    const fs = await statfs(existsSync(dir) ? dir : path.dirname(dir));
    const freeBytes = fs.bavail * fs.bsize;
    const usedBytes = (fs.blocks - fs.bfree) * fs.bsize;
    const images = imageTotals(dir, { promisedBytes: 0, tenantUsedBytes: 0, disks: 0 });
    return { sizeBytes: usedBytes + freeBytes, usedBytes, freeBytes, ...images };
  }

  return {
    policy,
    figures,
    withRoom(bytes, make) {
      const turn = queue.then(async () => {
        const refusal = refusalOf(await figures(), policy, bytes);
        if (refusal) {
          log(`disk policy: ${refusal}`);
          throw new StorageExhaustedError();
        }
        return make();
      });
      queue = turn.catch(() => {});
      return turn;
    },
  };
}
