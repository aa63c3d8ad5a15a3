import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, rename, rm, rmdir, statfs } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { formatDiskImage, layoutDir, mountDiskImage, mountPoints, unmountDiskImage } from './disk-image.ts';
import type { OsUser } from './host.ts';
import { sitePaths } from './site-names.ts';
import { copyWordPressCore } from './wordpress-core.ts';

/**
 * Each site's files live on a disk of their own (disk-image.ts: a size-limited ext4 image mounted
 * `nosymfollow,nosuid,nodev,noexec` at `<root>/sites/<id>`, its root folder root's).
 *
 * The layout: `public/` (WordPress; the site user, group of the front door, 750), `tmp/` (700), `logs/`
 * (750) and `run/` (the PHP socket; group of the front door, 750).
 *
 * A spare disk holding a fresh copy of WordPress core (Debian's, with its links resolved into real
 * files) is kept ready, so a deploy only renames it and hands the core to the site user.
 */

const run = promisify(execFile);

export interface SiteDisksOptions {
  /** Size of each site's disk in MiB. */
  sizeMb: number;
  log: (line: string) => void;
}

interface SiteDiskUsage {
  usedBytes: number;
  sizeBytes: number;
}

export interface SiteDisks {
  /** Prepares a spare disk in the background. */
  start(): void;
  /** Waits for a spare being prepared. */
  stop(): Promise<void>;
  /**
   * Creates the site's disk if it has none (from the spare when ready), mounts it and makes its layout:
   * WordPress core in public/ on a new disk, owned by `user`; existing files are left alone.
   */
  ensure(id: string, user: OsUser, front: OsUser | undefined): Promise<void>;
  /** Mounts the disk of an existing site (after a reboot); false when the site has none. */
  mount(id: string): Promise<boolean>;
  unmount(id: string): Promise<void>;
  /** Unmounts and deletes the site's disk: every file of the site goes with it. */
  remove(id: string): Promise<void>;
  isMounted(id: string): boolean;
  usage(id: string): Promise<SiteDiskUsage>;
}

export function siteDisks(root: string, options: SiteDisksOptions): SiteDisks {
  const { log } = options;
  const disksDir = path.join(root, 'disks');
  const image = (id: string) => path.join(disksDir, `${id}.img`);
  const spare = path.join(disksDir, 'spare.img');
  const spareMount = path.join(disksDir, 'spare.mnt');
  /** On a spare disk, core waits here (root, 700) until a site takes it. */
  const SPARE_CORE = 'core';
  let refilling: Promise<void> | undefined;
  let stopped = false;

  const format = (file: string) => formatDiskImage(file, options.sizeMb, 'berth-site');
  const mountAt = mountDiskImage;
  const unmountAt = unmountDiskImage;

  /** A disk with core under SPARE_CORE (root only), unmounted, at `spare`. */
  function refill(fresh = false): void {
    if (refilling || stopped) return;
    refilling = (async () => {
      if (fresh) await rm(spare, { force: true });
      if (existsSync(spare)) return;
      const partial = `${spare}.partial`;
      await unmountAt(spareMount);
      await format(partial);
      await mountAt(partial, spareMount);
      try {
        const core = path.join(spareMount, SPARE_CORE);
        await mkdir(core, { mode: 0o700 });
        await copyWordPressCore(path.join(core, 'public'));
      } finally {
        await unmountAt(spareMount);
      }
      await rename(partial, spare);
    })()
      .catch((error: Error) => log(`spare site disk failed: ${error.message}`))
      .finally(() => {
        refilling = undefined;
      });
  }

  async function takeSpare(file: string): Promise<boolean> {
    try {
      await rename(spare, file);
      return true;
    } catch {
      return false;
    }
  }

  const api: SiteDisks = {
    start() {
      stopped = false;
      refill(true);
    },
    async stop() {
      stopped = true;
      await refilling;
    },

    async ensure(id, user, front) {
      await mkdir(disksDir, { recursive: true, mode: 0o700 });
      const file = image(id);
      if (!existsSync(file)) {
        if (!(await takeSpare(file))) {
          if (refilling) await refilling;
          if (!(await takeSpare(file))) await format(file);
        }
        refill();
      }
      const point = sitePaths(root, id).dir;
      await mountAt(file, point);
      const frontGroup = front?.gid ?? user.gid;
      const publicDir = path.join(point, 'public');
      if (!existsSync(publicDir)) {
        // Core waits in a root-only folder of the disk (from the spare, or copied now); it becomes the
        // site user's there, where the customer cannot reach it yet, and only then takes its place.
        const core = path.join(point, SPARE_CORE);
        if (!existsSync(path.join(core, 'public'))) {
          await rm(core, { recursive: true, force: true });
          await mkdir(core, { mode: 0o700 });
          await copyWordPressCore(path.join(core, 'public'));
        }
        await run('/usr/bin/chown', ['-R', '-P', `${user.uid}:${user.gid}`, path.join(core, 'public')]);
        await chown(path.join(core, 'public'), user.uid, frontGroup);
        await chmod(path.join(core, 'public'), 0o750);
        await rename(path.join(core, 'public'), publicDir);
        await rmdir(core);
      }
      await layoutDir(path.join(point, 'tmp'), user, user.gid, 0o700);
      await layoutDir(path.join(point, 'logs'), user, user.gid, 0o750);
      await layoutDir(path.join(point, 'run'), user, frontGroup, 0o750);
    },

    async mount(id) {
      if (!existsSync(image(id))) return false;
      await mountAt(image(id), sitePaths(root, id).dir);
      return true;
    },

    unmount: (id) => unmountAt(sitePaths(root, id).dir),

    async remove(id) {
      const point = sitePaths(root, id).dir;
      await unmountAt(point);
      await rm(image(id), { force: true });
      if (existsSync(point) && !mountPoints().has(point)) await rmdir(point).catch(() => {});
    },

    isMounted: (id) => mountPoints().has(sitePaths(root, id).dir),

    async usage(id) {
      const stats = await statfs(sitePaths(root, id).dir);
      return {
        sizeBytes: stats.blocks * stats.bsize,
        usedBytes: (stats.blocks - stats.bfree) * stats.bsize,
      };
    },
  };
  // A changed size applies to new disks; existing ones keep the size they were made with.
  return api;
}
