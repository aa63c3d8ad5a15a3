import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir, statfs } from 'node:fs/promises';
import path from 'node:path';
import { formatDiskImage, layoutDir, mountDiskImage, mountPoints, unmountDiskImage } from './disk-image.ts';
import type { OsUser } from './host.ts';
import { n8nPaths } from './n8n-state.ts';

/**
 * Each n8n instance's files live on a disk of their own (disk-image.ts), mounted at `<root>/n8n/<id>`:
 * its size bounds what the instance can write (its SQLite database, binary data, the editor's cache),
 * and the disk's root folder is root's, so the two folders bound into the sandbox, `data/` (/data: n8n's
 * user folder, HOME) and `tmp/` (/tmp), can never be swapped for a link before a restart binds them.
 *
 * Instances made before disks existed kept their files directly in `<root>/n8n/<id>`: `ensure` moves
 * that folder aside to `<id>.old` (a rename in root's folder) and answers its path; the instance's own
 * user then copies the files over in its sandbox (n8n-instances.ts), never root.
 */

export interface N8nDisks {
  /**
   * Creates the instance's disk if it has none, mounts it and lays out data/ and tmp/ for `user`.
   * Answers the folder of an old-layout instance that awaits copying onto the disk, if there is one.
   */
  ensure(id: string, user: OsUser): Promise<string | undefined>;
  /** Mounts the disk of an existing instance (after a reboot); false when it has none. */
  mount(id: string): Promise<boolean>;
  unmount(id: string): Promise<void>;
  /** Unmounts and deletes the disk (and an old-layout folder): every file of the instance goes. */
  remove(id: string): Promise<void>;
  usage(id: string): Promise<{ usedBytes: number; sizeBytes: number }>;
}

export function n8nDisks(root: string, options: { sizeMb: number }): N8nDisks {
  const image = (id: string) => path.join(root, 'disks', `n8n-${id}.img`);

  return {
    async ensure(id, user) {
      const paths = n8nPaths(root, id);
      let old: string | undefined;
      if (!existsSync(image(id))) {
        await mkdir(path.dirname(image(id)), { recursive: true, mode: 0o700 });
        if (existsSync(paths.mountDir) && !mountPoints().has(paths.mountDir)) {
          old = `${paths.mountDir}.old`;
          await rename(paths.mountDir, old);
        }
        const partial = `${image(id)}.partial`;
        await formatDiskImage(partial, options.sizeMb, 'berth-n8n');
        await rename(partial, image(id));
      } else if (existsSync(`${paths.mountDir}.old`)) {
        old = `${paths.mountDir}.old`;
      }
      await mountDiskImage(image(id), paths.mountDir);
      await layoutDir(paths.dataDir, user, user.gid, 0o700);
      await layoutDir(paths.tmpDir, user, user.gid, 0o700);
      return old;
    },

    async mount(id) {
      if (!existsSync(image(id))) return false;
      await mountDiskImage(image(id), n8nPaths(root, id).mountDir);
      return true;
    },

    unmount: (id) => unmountDiskImage(n8nPaths(root, id).mountDir),

    async remove(id) {
      const point = n8nPaths(root, id).mountDir;
      await unmountDiskImage(point);
      await rm(image(id), { force: true });
      if (existsSync(point) && !mountPoints().has(point)) await rmdir(point).catch(() => {});
      // An old-layout folder left over (its copy failed): it holds only the instance's files, and rm
      // removes links inside it without following them.
      await rm(`${point}.old`, { recursive: true, force: true });
    },

    async usage(id) {
      const stats = await statfs(n8nPaths(root, id).mountDir);
      return {
        sizeBytes: stats.blocks * stats.bsize,
        usedBytes: (stats.blocks - stats.bfree) * stats.bsize,
      };
    },
  };
}

/** Whether a folder is empty (an old-layout folder whose files were all copied and removed). */
export async function isEmptyDir(dir: string): Promise<boolean> {
  return (await readdir(dir)).length === 0;
}
