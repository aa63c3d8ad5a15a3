import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, chown, mkdir, readdir, rename, rm, rmdir, statfs } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { journalMbOf } from '../../ext4.ts';
import { type DiskGuard, FALLOCATE_SYSCALL, holdOf } from './disk-hold.ts';
import type { DiskReserve } from './disk-reserve.ts';

/**
 * Tenant disks: each one an ext4 image file, loop-mounted where a tenant's data lives (a site's files, a
 * MySQL tenant's database folder, a PostgreSQL tenant's tablespace; n8n data folders can use the same).
 *
 * - The image's size is a limit the kernel enforces on everything written there (ENOSPC), however fast
 *   and by whichever process: no poll to outrun.
 * - Images are sparse: only what is written takes space on the host. So that the host never promises
 *   more than it has, a new image is made only when disk-reserve.ts finds room for all of them grown to
 *   their full size plus the platform's reserve.
 * - Mounted `nosymfollow,nosuid,nodev,noexec`: no process on the host follows a symbolic link that lies
 *   on a disk (the kernel refuses with ELOOP), nothing on it runs as a program or gains privileges, and
 *   hard links cannot reach another tenant's files (they are other file systems).
 *
 * Every image of a data root lives under `<root>/disks/` (root, 700), each pool's in a folder of its own
 * (sites: `disks/<id>.img`; database disks: `disks/mysql/<disk>.img`, see database-disks.ts), where
 * disk-reserve.ts counts them. Once started, a pool keeps one formatted spare, `spare.img` in its
 * folder, so that a deploy only renames and mounts it (formatting takes 20–110 ms; a spare holding
 * WordPress core saves a second).
 *
 * Use: `diskPool(options)` once per kind of disk (its folder, size, owner of the disk's root folder, the
 * reserve), `start()` it if it should keep a spare, then `ensure(name, point)` to get a tenant's disk
 * made and mounted, `mount(name, point)` after a reboot, `remove(name, point)` when the tenant goes,
 * `diskUsage(point)` for what it holds. Mount points are the caller's: a folder root makes (the pool
 * creates it, 711) in a folder no tenant can write.
 */

const run = promisify(execFile);

// noinit_itable: the kernel would write every inode table of the disk full of zeros in the background
// (16 MiB on the host for a 1 GiB site's disk), where the sparse image reads as zeros already; a table's
// block is written when an inode there is first used.
const MOUNT_OPTIONS = 'loop,nosymfollow,nosuid,nodev,noexec,noinit_itable';

/** The journal a disk is made with (mkfs.ext4 -J size=…, MiB); ext4 would give a 1 GiB disk 32 MiB. */
const JOURNAL_MB = 4;

/**
 * An image made before disks had a small journal keeps ext4's default (32 MiB for a 1 GiB disk, most of
 * it written on the host): it gets the small one while unmounted (e2fsck first, as tune2fs asks of a
 * file system it drops the journal of). Answers whether it changed; its old journal's blocks go back to
 * the host once it is mounted (fstrim). Never in a deploy's way: a failure is logged and the disk kept.
 */
async function smallJournal(file: string, log: (line: string) => void): Promise<boolean> {
  try {
    const { stdout } = await run('/usr/sbin/dumpe2fs', ['-h', file]);
    const journalMb = journalMbOf(stdout);
    if (journalMb === undefined || journalMb <= JOURNAL_MB) return false;
    // e2fsck -p answers 1 when it corrected something (a disk unmounted uncleanly): fine to go on.
    await run('/usr/sbin/e2fsck', ['-f', '-p', file]).catch((error: { code?: number }) => {
      if (error.code !== 1) throw error;
    });
    await run('/usr/sbin/tune2fs', ['-O', '^has_journal', file]);
    await run('/usr/sbin/tune2fs', ['-J', `size=${JOURNAL_MB}`, file]);
    log(`disk ${path.basename(file)}: its ${journalMb} MiB journal replaced by a ${JOURNAL_MB} MiB one`);
    return true;
  } catch (error) {
    log(`disk ${path.basename(file)}: its journal kept (${(error as Error).message.split('\n')[0]})`);
    return false;
  }
}

/** Where all images of a data root live. */
export const disksDir = (root: string) => path.join(root, 'disks');

export interface DiskOwner {
  uid: number;
  gid: number;
}

export interface DiskPoolOptions {
  /** The folder of this pool's images: `disksDir(root)` or a folder in it. */
  dir: string;
  /**
   * Size of a new image and of the spare, MiB (`ensure` may ask for another size: it then makes a disk
   * of its own). A changed size applies to new disks; existing ones keep theirs.
   */
  sizeMb: number;
  /** The names this pool's disks may have (list() answers only those). */
  names: RegExp;
  /** ext4 volume label (shows in `lsblk`). */
  label: string;
  /** Extra mkfs.ext4 options, e.g. ['-i', '32768'] for fewer inodes. */
  mkfsOptions?: string[];
  /** Owner and mode of a disk's root folder, set on every mount (what the mount point shows). */
  rootOwner: DiskOwner;
  rootMode: number;
  /**
   * Fills a fresh spare, mounted at `point`, before it is set aside (sites copy WordPress core there).
   * Runs as root on a disk no tenant has seen yet. A deploy waits for a spare being filled.
   */
  prepareSpare?: (point: string) => Promise<void>;
  /**
   * Decides whether the host can hold another image, and holds mounted disks (disk-hold.ts); without it
   * images are made unchecked and never held.
   */
  reserve?: DiskReserve;
  /** A guard keeps each disk (MySQL's): the hold goes through it (disk-hold.ts). */
  guard?: DiskGuard;
  log: (line: string) => void;
}

export interface DiskUsage {
  /** Bytes in use on the disk's file system. */
  usedBytes: number;
  /** The file system's size (the image minus ext4's own structures). */
  sizeBytes: number;
  /** Bytes an unprivileged writer can still write. */
  freeBytes: number;
}

export interface DiskPool {
  /** Keeps a spare from now on (one is prepared in the background at once). Not started: no spare. */
  start(): void;
  /** Stops keeping a spare; waits for one being prepared. */
  stop(): Promise<void>;
  /**
   * Makes the disk of `name` when it has none (the spare when ready, else a fresh one, which the reserve
   * may refuse) and mounts it at `point`. Answers true when the disk is new.
   */
  ensure(name: string, point: string, sizeMb?: number): Promise<boolean>;
  /** Mounts an existing disk at `point` (after a reboot); false when `name` has none. */
  mount(name: string, point: string): Promise<boolean>;
  /** Unmounts `point` (lazily when something there is still open). */
  unmount(point: string): Promise<void>;
  /** Unmounts and deletes the disk: every file on it goes. Absent: nothing happens. */
  remove(name: string, point: string): Promise<void>;
  /** Whether `name` has a disk (mounted or not). */
  has(name: string): boolean;
  /** The names of this pool's disks (the spare and images being made left out). */
  list(): Promise<string[]>;
}

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

/**
 * Whether a file system is mounted at `point`: its device differs from its parent folder's (as
 * mountpoint(1) decides). A tenant disk is a file system of its own, so this holds for every disk; it
 * costs two stat calls where reading the mount table costs a line per mount (two per site), for every
 * site the usage sampler asks about.
 */
export function isMounted(point: string): boolean {
  try {
    return statSync(point).dev !== statSync(path.dirname(point)).dev;
  } catch {
    return false;
  }
}

/** What the disk at `point` holds for its tenant (the hold's file, disk-hold.ts, left out). */
export async function diskUsage(point: string): Promise<DiskUsage> {
  const stats = await statfs(point);
  return {
    sizeBytes: stats.blocks * stats.bsize,
    usedBytes: Math.max(0, (stats.blocks - stats.bfree) * stats.bsize - holdOf(point).takenBytes),
    freeBytes: stats.bavail * stats.bsize,
  };
}

async function unmountDisk(point: string): Promise<void> {
  if (!isMounted(point)) return;
  try {
    await run('/usr/bin/umount', [point]);
  } catch {
    // Busy (a process still has a file open there): detach now, freed when it closes.
    await run('/usr/bin/umount', ['--lazy', point]);
  }
}

/**
 * Gives every file directly in `dir` the blocks of its whole length, holes included, in one process:
 * fallocate(2) with mode 0, which never changes what is written (so it is safe while a server writes
 * those files). A later write there then needs no new block, however full the disk is by then. Answers
 * false where it cannot (an architecture not listed): the caller falls back on its own way.
 */
export async function allocateFiles(dir: string): Promise<boolean> {
  const call = FALLOCATE_SYSCALL[process.arch];
  if (call === undefined) return false;
  const files = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(dir, entry.name));
  if (files.length === 0) return true;
  const script = `for my $f (@ARGV) { open(my $h, '+<', $f) or die "$f: $!\\n"; my $n = -s $h; next unless $n; syscall(${call}, fileno($h), 0, 0, $n) == 0 or die "$f: $!\\n" }`;
  await run('/usr/bin/perl', ['-e', script, '--', ...files]);
  return true;
}

export function diskPool(options: DiskPoolOptions): DiskPool {
  const { dir, log } = options;
  const image = (name: string) => path.join(dir, `${name}.img`);
  const spare = path.join(dir, 'spare.img');
  const spareMount = path.join(dir, 'spare.mnt');
  let refilling: Promise<void> | undefined;
  /** A spare is kept only once started. */
  let stopped = true;

  async function format(file: string, sizeMb: number): Promise<void> {
    await rm(file, { force: true });
    await run('/usr/bin/truncate', ['-s', `${sizeMb}M`, file]);
    const owner = `${options.rootOwner.uid}:${options.rootOwner.gid}`;
    await run('/usr/sbin/mkfs.ext4', [
      '-q',
      '-F',
      '-m',
      '0',
      // A small journal: written to the image only as used, it is what a disk may take on the host
      // beyond any allowance of the hold (disk-hold.ts); ext4 would give a 1 GiB disk 32 MiB.
      '-J',
      `size=${JOURNAL_MB}`,
      '-L',
      options.label,
      ...(options.mkfsOptions ?? []),
      '-E',
      `lazy_itable_init=1,lazy_journal_init=1,root_owner=${owner}`,
      file,
    ]);
  }

  /** A new image of `sizeMb` at `file`, if the reserve lets the host promise that much more. */
  async function create(file: string, sizeMb: number): Promise<void> {
    const make = () => format(file, sizeMb);
    await (options.reserve ? options.reserve.withRoom(sizeMb * 1024 * 1024, make) : make());
  }

  /** Mounts `file` at `point`; a tenant's disk (not the spare being filled) comes under the hold. */
  async function mountAt(file: string, point: string, tenant = true): Promise<void> {
    await mkdir(point, { recursive: true, mode: 0o711 });
    if (!isMounted(point)) {
      const shrunk = tenant && (await smallJournal(file, log));
      await run('/usr/bin/mount', ['-o', MOUNT_OPTIONS, file, point]);
      // The old journal's blocks, free now, punched out of the image (the loop device discards).
      if (shrunk) await run('/usr/sbin/fstrim', [point]).catch(() => {});
    }
    await chown(point, options.rootOwner.uid, options.rootOwner.gid);
    await chmod(point, options.rootMode);
    if (tenant) options.reserve?.mounted(file, point, options.guard);
  }

  async function unmountAt(point: string): Promise<void> {
    options.reserve?.unmounted(point);
    await unmountDisk(point);
  }

  /** A formatted disk at `spare`, unmounted, filled by prepareSpare. */
  function refill(fresh = false): void {
    if (refilling || stopped) return;
    refilling = (async () => {
      if (fresh) await rm(spare, { force: true });
      if (existsSync(spare)) return;
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const partial = `${spare}.partial`;
      await unmountAt(spareMount);
      await create(partial, options.sizeMb);
      if (options.prepareSpare) {
        await mountAt(partial, spareMount, false);
        try {
          await options.prepareSpare(spareMount);
        } finally {
          await unmountAt(spareMount);
        }
      }
      await rename(partial, spare);
    })()
      .catch((error: Error) => log(`spare ${options.label} disk not made: ${error.message}`))
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

  return {
    start() {
      stopped = false;
      // A spare of an earlier run may have another size or an older layout: made again.
      refill(true);
    },
    async stop() {
      stopped = true;
      await refilling;
    },

    async ensure(name, point, sizeMb = options.sizeMb) {
      if (!options.names.test(name)) throw new Error(`Invalid ${options.label} disk name: ${name}`);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const file = image(name);
      let made = false;
      if (!existsSync(file)) {
        if (sizeMb !== options.sizeMb) {
          await create(file, sizeMb);
        } else if (!(await takeSpare(file))) {
          // A spare being filled is worth waiting for (WordPress core: a second); a bare one is not.
          if (refilling && options.prepareSpare) await refilling;
          if (!(await takeSpare(file))) await create(file, sizeMb);
        }
        refill();
        made = true;
      }
      await mountAt(file, point);
      return made;
    },

    async mount(name, point) {
      if (!existsSync(image(name))) return false;
      await mountAt(image(name), point);
      return true;
    },

    unmount: unmountAt,

    async remove(name, point) {
      await unmountAt(point);
      await rm(image(name), { force: true });
      if (existsSync(point) && !isMounted(point)) await rmdir(point).catch(() => {});
    },

    has: (name) => existsSync(image(name)),

    async list() {
      if (!existsSync(dir)) return [];
      return (await readdir(dir))
        .filter((file) => file.endsWith('.img') && file !== 'spare.img')
        .map((file) => file.slice(0, -'.img'.length))
        .filter((name) => options.names.test(name));
    },
  };
}
