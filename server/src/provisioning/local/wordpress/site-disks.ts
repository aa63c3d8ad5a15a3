import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { DiskReserve } from '../host/disk-reserve.ts';
import type { OsUser } from '../host/host.ts';
import { diskPool, disksDir, diskUsage, isMounted } from '../host/tenant-disks.ts';
import { sitePaths } from './site-names.ts';
import { copyWordPressCore } from './wordpress-core.ts';

/**
 * Each site's files live on a disk of their own (tenant-disks.ts: an ext4 image, loop-mounted at
 * `<root>/sites/<id>` with `nosymfollow,nosuid,nodev,noexec`):
 *
 * - the size is a hard quota on everything the site writes (SFTP, PHP, uploads, sessions, logs);
 * - no process on the host follows a symbolic link that lies on it (the kernel refuses with ELOOP), so
 *   the front door and any root process opening a path there can never be led out of the site;
 * - nothing on it runs as a program or gains privileges;
 * - hard links cannot reach another site's files (they are other file systems).
 *
 * The disk's root folder belongs to root (mode 711): the customer cannot add, remove or swap its
 * entries `public/` (WordPress; the site user, group of the front door, 750), `tmp/` (700), `logs/`
 * (750) and `run/` (the PHP socket; group of the front door, 750).
 *
 * The pool's spare disk holds a fresh copy of WordPress core (Debian's, with its links resolved into
 * real files), so a deploy only renames it and hands the core to the site user.
 */

const run = promisify(execFile);

export interface SiteDisksOptions {
  /** Size of each site's disk in MiB. */
  sizeMb: number;
  /** Refuses a new disk the host cannot hold (disk-reserve.ts). */
  reserve?: DiskReserve;
  log: (line: string) => void;
}

interface SiteDiskUsage {
  usedBytes: number;
  sizeBytes: number;
  /** What the site can still write (less than size − used while the hold holds room back). */
  freeBytes: number;
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
  /** On a spare disk, core waits here (root, 700) until a site takes it. */
  const SPARE_CORE = 'core';
  const pool = diskPool({
    dir: disksDir(root),
    names: /^[a-z0-9-]{1,50}$/,
    sizeMb: options.sizeMb,
    label: 'berth-site',
    rootOwner: { uid: 0, gid: 0 },
    rootMode: 0o711,
    async prepareSpare(point) {
      const core = path.join(point, SPARE_CORE);
      await mkdir(core, { mode: 0o700 });
      await copyWordPressCore(path.join(core, 'public'));
    },
    reserve: options.reserve,
    log: options.log,
  });

  /** mkdir as root in the disk's root folder (root's own, so nothing there is the customer's). */
  async function layoutDir(dir: string, owner: OsUser, group: number, mode: number): Promise<void> {
    try {
      await mkdir(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return; // ours from before: left alone
      throw error;
    }
    await chown(dir, owner.uid, group);
    await chmod(dir, mode);
  }

  return {
    start: () => pool.start(),
    stop: () => pool.stop(),

    async ensure(id, user, front) {
      const point = sitePaths(root, id).dir;
      await pool.ensure(id, point);
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

    mount: (id) => pool.mount(id, sitePaths(root, id).dir),
    unmount: (id) => pool.unmount(sitePaths(root, id).dir),
    remove: (id) => pool.remove(id, sitePaths(root, id).dir),
    isMounted: (id) => isMounted(sitePaths(root, id).dir),

    async usage(id) {
      const { usedBytes, sizeBytes, freeBytes } = await diskUsage(sitePaths(root, id).dir);
      return { usedBytes, sizeBytes, freeBytes };
    },
  };
}
