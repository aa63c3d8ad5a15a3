import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, chown, mkdir, rm } from 'node:fs/promises';
import { promisify } from 'node:util';

/**
 * A tenant's disk: an ext4 image (sparse, so only what is written takes space on the host) loop-mounted
 * with `nosymfollow,nosuid,nodev,noexec`. Sites (site-disks.ts) and n8n instances (n8n-disks.ts) each
 * get one:
 *
 * - its size is a hard quota on everything the tenant writes;
 * - no process on the host follows a symbolic link that lies on it (the kernel refuses with ELOOP), so a
 *   root process or the front door opening a path there can never be led out of it, and a folder there
 *   cannot be swapped for a link to `/` before it is bound into a sandbox;
 * - nothing on it runs as a program or gains privileges; hard links cannot reach another tenant's files.
 *
 * The disk's root folder belongs to root (mode 711), so the tenant cannot add, remove or swap the
 * folders the driver lays out there (only their contents are the tenant's).
 */

const run = promisify(execFile);

const MOUNT_OPTIONS = 'loop,nosymfollow,nosuid,nodev,noexec';

/** Mount points in this mount namespace (octal escapes of /proc/self/mountinfo decoded). */
export function mountPoints(): Set<string> {
  const points = new Set<string>();
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const field = line.split(' ')[4];
    if (field)
      points.add(
        field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8))),
      );
  }
  return points;
}

/** Makes a new (sparse) ext4 image of `sizeMb` MiB at `file`, replacing any file there. */
export async function formatDiskImage(file: string, sizeMb: number, label: string): Promise<void> {
  await rm(file, { force: true });
  await run('/usr/bin/truncate', ['-s', `${sizeMb}M`, file]);
  await run('/usr/sbin/mkfs.ext4', [
    '-q',
    '-F',
    '-m',
    '0',
    '-L',
    label,
    '-E',
    'lazy_itable_init=1,lazy_journal_init=1,root_owner=0:0',
    file,
  ]);
}

/** Mounts the image at `point` (made if missing) unless something is mounted there; root's, 711. */
export async function mountDiskImage(file: string, point: string): Promise<void> {
  await mkdir(point, { recursive: true, mode: 0o711 });
  if (!mountPoints().has(point)) await run('/usr/bin/mount', ['-o', MOUNT_OPTIONS, file, point]);
  await chown(point, 0, 0);
  await chmod(point, 0o711);
}

export async function unmountDiskImage(point: string): Promise<void> {
  if (!mountPoints().has(point)) return;
  try {
    await run('/usr/bin/umount', [point]);
  } catch {
    // Busy (a process of the tenant still has a file open): detach now, freed when it closes.
    await run('/usr/bin/umount', ['--lazy', point]);
  }
}

/**
 * mkdir as root in a disk's root folder (root's own, so nothing there is the tenant's yet), then hands
 * it to `owner`. An existing folder is left alone: it is the tenant's now.
 */
export async function layoutDir(
  dir: string,
  owner: { uid: number; gid: number },
  group: number,
  mode: number,
): Promise<void> {
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  await chown(dir, owner.uid, group);
  await chmod(dir, mode);
}
