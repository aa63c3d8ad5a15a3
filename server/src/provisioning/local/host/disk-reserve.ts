import { existsSync } from 'node:fs';
import { readdir, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { StorageExhaustedError } from '../../driver.ts';

/**
 * The host's promise to its tenants' disks (tenant-disks.ts), kept within what it has.
 *
 * Tenant disks are sparse images: a new one takes almost nothing, and each grows on the host as its
 * tenant writes, up to its size. Made without a check they would promise more than the host has, and
 * tenants filling theirs would then fill the host, the platform's own database included. So a new
 * image is made only when the file system holding the images has, free, all of:
 *   - the reserve (DISK_RESERVE_MB): what the platform keeps for itself: its database, its logs,
 *     backups, MariaDB's and PostgreSQL's shared files (write-ahead log, undo, temporary files);
 *   - what every existing image may still grow (its size minus what it takes on the host now);
 *   - the new image's size.
 * Then, whatever tenants write, the free space never drops below the reserve because of them; only the
 * platform's own growth uses the reserve. A deploy that would break the promise is refused with
 * StorageExhaustedError (the customer reads that the host is full; the operator sees the figures in
 * the log) until space is freed or added.
 *
 * Images (every `*.img` in `<root>/disks/` and its folders) are counted by what `stat` says of them: the apparent size and the blocks allocated. Checks
 * and image creation run one at a time, so two deploys cannot both take the last room.
 */

export interface DiskRoom {
  /** Free bytes on the images' file system. */
  freeBytes: number;
  /** How much the existing images may still grow. */
  promisedBytes: number;
  reserveBytes: number;
  /** freeBytes - promisedBytes - reserveBytes: the largest new image that fits (may be negative). */
  roomBytes: number;
}

export interface DiskReserve {
  /** Runs `make` (which creates an image of `bytes`) when the host can hold it, else refuses. */
  withRoom<T>(bytes: number, make: () => Promise<T>): Promise<T>;
  room(): Promise<DiskRoom>;
}

/** Bytes the image files in `dir` and its folders (partial ones too) may still grow on the host. */
async function promisedGrowth(dir: string, depth = 1): Promise<number> {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory() && depth > 0) total += await promisedGrowth(file, depth - 1);
    if (!entry.isFile() || !/\.img(\.partial)?$/.test(entry.name)) continue;
    const info = await stat(file).catch(() => undefined);
    if (info) total += Math.max(0, info.size - info.blocks * 512);
  }
  return total;
}

const MIB = 1024 * 1024;

export function diskReserve(dir: string, reserveMb: number, log: (line: string) => void): DiskReserve {
  const reserveBytes = reserveMb * MIB;
  let queue: Promise<unknown> = Promise.resolve();

  async function room(): Promise<DiskRoom> {
    const fs = await statfs(existsSync(dir) ? dir : path.dirname(dir));
    const freeBytes = fs.bavail * fs.bsize;
    const promisedBytes = await promisedGrowth(dir);
    return { freeBytes, promisedBytes, reserveBytes, roomBytes: freeBytes - promisedBytes - reserveBytes };
  }

  return {
    room,
    withRoom(bytes, make) {
      const turn = queue.then(async () => {
        const now = await room();
        if (now.roomBytes < bytes) {
          const mib = (value: number) => `${Math.floor(value / MIB)} MiB`;
          log(
            `disk reserve: a new ${mib(bytes)} disk refused: ${mib(now.freeBytes)} free, ${mib(now.promisedBytes)} promised to existing disks, ${mib(now.reserveBytes)} kept in reserve (DISK_RESERVE_MB)`,
          );
          throw new StorageExhaustedError();
        }
        return make();
      });
      queue = turn.catch(() => {});
      return turn;
    },
  };
}
