import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { DiskReserve } from '../host/disk-reserve.ts';
import type { OsUser } from '../host/host.ts';
import { diskPool, disksDir, diskUsage, isMounted } from '../host/tenant-disks.ts';
import { n8nPaths } from './n8n-state.ts';

/**
 * Each n8n instance's files live on a disk of their own (tenant-disks.ts), mounted at `<root>/n8n/<id>`:
 * its size bounds what the instance can write (its SQLite database, binary data, the editor's cache),
 * and the disk's root folder is root's, so the two folders bound into the sandbox, `data/` (/data: n8n's
 * user folder, HOME) and `tmp/` (/tmp), can never be swapped for a link before a restart binds them.
 *
 * Instances made before disks existed kept their files directly in `<root>/n8n/<id>`: `ensure` moves
 * that folder aside to `<id>.old` (a rename in root's folder) and answers its path; the instance's own
 * user then copies the files over in its sandbox (n8n-lifecycle.ts), never root.
 */

export interface N8nDisks {
  /**
   * Creates the instance's disk if it has none (the host's reserve may refuse), mounts it and lays out
   * data/ and tmp/ for `user`. Answers the folder of an old-layout instance that awaits copying onto the
   * disk, if there is one.
   */
  ensure(id: string, user: OsUser): Promise<string | undefined>;
  /** Mounts the disk of an existing instance (after a reboot); false when it has none. */
  mount(id: string): Promise<boolean>;
  unmount(id: string): Promise<void>;
  /** Unmounts and deletes the disk (and an old-layout folder): every file of the instance goes. */
  remove(id: string): Promise<void>;
  /** Used and total bytes of its disk, and what it can still write (less while the hold holds room). */
  usage(id: string): Promise<{ usedBytes: number; sizeBytes: number; freeBytes: number }>;
}

/** mkdir as root in a disk's root folder (root's own), then hands it to `owner`; an existing one is left. */
async function layoutDir(dir: string, owner: OsUser): Promise<void> {
  if (existsSync(dir)) return;
  await mkdir(dir, { mode: 0o700 });
  await chown(dir, owner.uid, owner.gid);
  await chmod(dir, 0o700);
}

export function n8nDisks(
  root: string,
  options: { sizeMb: number; reserve?: DiskReserve; log: (line: string) => void },
): N8nDisks {
  const pool = diskPool({
    dir: path.join(disksDir(root), 'n8n'),
    names: /^[a-z0-9-]{1,50}$/,
    sizeMb: options.sizeMb,
    label: 'berth-n8n',
    rootOwner: { uid: 0, gid: 0 },
    rootMode: 0o711,
    reserve: options.reserve,
    log: options.log,
  });

  return {
    async ensure(id, user) {
      const paths = n8nPaths(root, id);
      let old: string | undefined = existsSync(`${paths.mountDir}.old`) ? `${paths.mountDir}.old` : undefined;
      if (!pool.has(id) && existsSync(paths.mountDir) && !isMounted(paths.mountDir)) {
        old = `${paths.mountDir}.old`;
        await rename(paths.mountDir, old);
      }
      await pool.ensure(id, paths.mountDir);
      await layoutDir(paths.dataDir, user);
      await layoutDir(paths.tmpDir, user);
      return old;
    },

    mount: (id) => pool.mount(id, n8nPaths(root, id).mountDir),
    unmount: (id) => pool.unmount(n8nPaths(root, id).mountDir),

    async remove(id) {
      const point = n8nPaths(root, id).mountDir;
      await pool.remove(id, point);
      // An old-layout folder left over (its copy failed): it holds only the instance's files, and rm
      // removes links inside it without following them (the instance's processes are gone by now).
      await rm(`${point}.old`, { recursive: true, force: true });
    },

    async usage(id) {
      const usage = await diskUsage(n8nPaths(root, id).mountDir);
      return { usedBytes: usage.usedBytes, sizeBytes: usage.sizeBytes, freeBytes: usage.freeBytes };
    },
  };
}

/** Whether a folder is empty (an old-layout folder whose files were all copied and removed). */
export async function isEmptyDir(dir: string): Promise<boolean> {
  return (await readdir(dir)).length === 0;
}
