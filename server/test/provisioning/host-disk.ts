import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, statfs } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A small file system of its own for a test's data root (an ext4 image loop-mounted under /tmp), so
 * that "the host's free space" is something a test can fill and measure without touching the real
 * host's disk. The mount point's parents are traversable by the mysql and postgres users.
 */
export interface HostDisk {
  /** Where it is mounted. */
  dir: string;
  freeBytes(): Promise<number>;
  remove(): Promise<void>;
}

export async function makeHostDisk(sizeMb: number): Promise<HostDisk> {
  const work = await mkdtemp('/tmp/berth-host-');
  await chmod(work, 0o711); // mkdtemp makes it 700
  const image = path.join(work, 'host.img');
  const dir = path.join(work, 'host');
  await mkdir(dir);
  await run('/usr/bin/truncate', ['-s', `${sizeMb}M`, image]);
  await run('/usr/sbin/mkfs.ext4', ['-q', '-F', '-m', '0', image]);
  await run('/usr/bin/mount', ['-o', 'loop', image, dir]);
  return {
    dir,
    async freeBytes() {
      const stats = await statfs(dir);
      return stats.bavail * stats.bsize;
    },
    async remove() {
      await run('/usr/bin/umount', [dir]).catch(() => run('/usr/bin/umount', ['--lazy', dir]));
      await rm(work, { recursive: true, force: true });
    },
  };
}
