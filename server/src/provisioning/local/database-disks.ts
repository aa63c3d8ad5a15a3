import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  chown,
  lchown,
  lstat,
  mkdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import type { DiskReserve } from './disk-reserve.ts';
import type { OsUser } from './host.ts';
import { type DiskPool, diskPool, disksDir, diskUsage } from './tenant-disks.ts';

/**
 * The disks of database tenants (tenant-disks.ts): each tenant database of the local MariaDB or
 * PostgreSQL on an ext4 image of its own, mounted at `<server dir>/tenants/<database>` with the server's
 * user owning the disk's root folder (700). What lies on it:
 *   - `data/`: MariaDB's folder of the database (the server's data folder holds a symbolic link
 *     `<database> -> …/tenants/<database>/data`, so every table file, file-per-table, lands on the disk),
 *     or PostgreSQL's tablespace of the database (its default tablespace: tables, indexes, TOAST, large
 *     objects and temporary files of sorts and temporary tables all land there);
 *   - `ballast` (MariaDB only, root, 32 MiB): space held back for InnoDB's crash recovery, see below.
 *
 * The limit of each disk is remembered beside its image (`disks/<engine>/<database>.json`), so a changed
 * setting applies to new tenants only.
 *
 * PostgreSQL answers a full disk with an error to the statement ("could not extend file … No space left
 * on device"): the disk's size is the limit. MariaDB 10.11 does not survive it: when a statement storing
 * long values (BLOB/TEXT pages) fills the disk, rolling it back needs a page InnoDB cannot get and the
 * server aborts ("[FATAL] InnoDB: Error (Out of disk space) in rollback"), and its crash recovery aborts
 * again on the same rollback. So a MySQL tenant's limit lies below the end of its disk: mariadb-quota.ts
 * refuses its writes at the limit; the SLACK_MB above the limit lets statements in flight finish or roll
 * back; and should a writer outrun the guard to the end of the disk, the server's next start deletes the
 * ballast first, so the recovery finds room.
 */

const run = promisify(execFile);
const MIB = 1024 * 1024;

/**
 * MariaDB's buffer pool (mariadb-server.ts). Pages changed there before the guard stopped a tenant are
 * written later, and each may need a new block on the disk then (a page of a PAGE_COMPRESSED table that
 * InnoDB punched out of its file when it was freed), so the slack must hold all of them.
 */
export const MARIADB_BUFFER_POOL_MB = 64;
/**
 * Above a MySQL tenant's limit: room for what its statements in flight write when the guard stops it,
 * and for the buffer pool's pages to reach the disk.
 */
export const SLACK_MB = MARIADB_BUFFER_POOL_MB + 32;
/** Held back on a MySQL tenant's disk for crash recovery (deleted before a restart of a full disk). */
export const BALLAST_MB = 32;
const BALLAST = 'ballast';

/**
 * ext4's own structures take 3–6 % of an image (journal, inode tables) and it keeps up to 16 MiB from
 * unprivileged writers: an image of this size leaves at least `needMb` writable.
 */
export const imageMbFor = (needMb: number) => Math.ceil(needMb / 0.94) + 16;

type Engine = 'mysql' | 'postgresql';

const LimitSchema = z.object({ limitMb: z.number().int().positive() });

export interface DatabaseDiskUsage {
  /** What the tenant's data takes on its disk (the ballast left out). */
  usedBytes: number;
  /** Where its writes stop: the guard's limit (MySQL), or the end of its disk (PostgreSQL). */
  limitBytes: number;
  /** What the disk can still take, whoever writes it. */
  freeBytes: number;
  /** Bytes of ballast on the disk now (MySQL; 0 after a recovery deleted it). */
  ballastBytes: number;
}

export interface DatabaseDisks {
  /** Where the tenant's disk is mounted. */
  mountPoint(database: string): string;
  /** The folder on the disk the server keeps the database in (MariaDB's database folder, a tablespace). */
  dataDir(database: string): string;
  /** Prepares the spare disk in the background. */
  start(): void;
  stop(): Promise<void>;
  /** The tenant's disk, made for `limitMb` when it has none, mounted, with its layout. */
  ensure(database: string, limitMb: number): Promise<void>;
  /** Mounts the disks of every tenant that has one (after a reboot): answers their names. */
  mountAll(): Promise<string[]>;
  /** Unmounts every tenant's disk (the server is stopped). */
  unmountAll(): Promise<void>;
  /** Unmounts and deletes the tenant's disk. */
  remove(database: string): Promise<void>;
  has(database: string): boolean;
  list(): Promise<string[]>;
  usage(database: string): Promise<DatabaseDiskUsage>;
  /** Deletes the ballast of every disk with less than the ballast free (before a MariaDB start). */
  releaseBallastWhereFull(): Promise<string[]>;
  /** Puts the ballast back when the disk has room for it above the tenant's limit. */
  restoreBallast(database: string): Promise<void>;
}

export interface DatabaseDisksOptions {
  root: string;
  engine: Engine;
  /** The server's folder (`<root>/mariadb`, `<root>/postgresql`): tenants are mounted in its `tenants/`. */
  serverDir: string;
  /** The server's OS user (owns each disk's root folder and `data/`); undefined: ourselves. */
  user: OsUser | undefined;
  /** Limit of a tenant whose deploy names none, MiB: the size of the spare. */
  defaultLimitMb: number;
  reserve?: DiskReserve;
  log: (line: string) => void;
}

export function databaseDisks(options: DatabaseDisksOptions): DatabaseDisks {
  const { engine, log } = options;
  const owner = options.user ?? { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const dir = path.join(disksDir(options.root), engine);
  const tenantsDir = path.join(options.serverDir, 'tenants');
  const mountPoint = (database: string) => path.join(tenantsDir, database);
  const dataDir = (database: string) => path.join(mountPoint(database), 'data');
  const limitFile = (database: string) => path.join(dir, `${database}.json`);
  const guarded = engine === 'mysql';
  /** Image size for a tenant limit: MySQL keeps slack and ballast above the limit. */
  const imageMb = (limitMb: number) => imageMbFor(limitMb + (guarded ? SLACK_MB + BALLAST_MB : 0));

  async function fallocate(file: string, mb: number): Promise<void> {
    await run('/usr/bin/fallocate', ['-l', `${mb}M`, file]);
  }

  /** On a disk mounted at `point`: data/ (the server's user, 700) and the ballast (MySQL). */
  async function layout(point: string): Promise<void> {
    const data = path.join(point, 'data');
    if (!existsSync(data)) {
      await mkdir(data, { mode: 0o700 });
      await chown(data, owner.uid, owner.gid);
    }
    if (guarded && !existsSync(path.join(point, BALLAST)))
      await fallocate(path.join(point, BALLAST), BALLAST_MB);
  }

  const pool: DiskPool = diskPool({
    dir,
    names: /^t_[a-z0-9_]{1,60}$/,
    sizeMb: imageMb(options.defaultLimitMb),
    label: `berth-${engine}`,
    mkfsOptions: ['-i', '32768'], // a database has few files: fewer inodes, more room
    rootOwner: owner,
    rootMode: 0o700,
    reserve: options.reserve,
    log,
  });

  async function limitMbOf(database: string): Promise<number> {
    const raw = await readFile(limitFile(database), 'utf8').catch(() => undefined);
    if (raw !== undefined) return LimitSchema.parse(JSON.parse(raw)).limitMb;
    // No record (written by hand, or lost): what fits on the disk below its slack and ballast.
    const usage = await diskUsage(mountPoint(database));
    return Math.floor((usage.usedBytes + usage.freeBytes) / MIB) - (guarded ? SLACK_MB + BALLAST_MB : 0);
  }

  async function ballastBytes(database: string): Promise<number> {
    const info = await stat(path.join(mountPoint(database), BALLAST)).catch(() => undefined);
    return info ? info.blocks * 512 : 0;
  }

  async function usage(database: string): Promise<DatabaseDiskUsage> {
    const disk = await diskUsage(mountPoint(database));
    const ballast = guarded ? await ballastBytes(database) : 0;
    const usedBytes = Math.max(0, disk.usedBytes - ballast);
    return {
      usedBytes,
      limitBytes: guarded ? (await limitMbOf(database)) * MIB : usedBytes + disk.freeBytes,
      freeBytes: disk.freeBytes,
      ballastBytes: ballast,
    };
  }

  async function ensureTenantsDir(): Promise<void> {
    // Root's, passable for the server's user, which reaches its disks through it.
    await mkdir(tenantsDir, { recursive: true, mode: 0o711 });
  }

  return {
    mountPoint,
    dataDir,
    start: () => pool.start(),
    stop: () => pool.stop(),

    async ensure(database, limitMb) {
      await ensureTenantsDir();
      if (!pool.has(database)) {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        await writeFile(limitFile(database), `${JSON.stringify({ limitMb })}\n`, { mode: 0o600 });
      }
      await pool.ensure(database, mountPoint(database), imageMb(limitMb));
      await layout(mountPoint(database));
    },

    async mountAll() {
      await ensureTenantsDir();
      const names = await pool.list();
      for (const name of names) await pool.mount(name, mountPoint(name));
      return names;
    },

    async unmountAll() {
      for (const name of await pool.list()) await pool.unmount(mountPoint(name));
    },

    async remove(database) {
      await pool.remove(database, mountPoint(database));
      await rm(limitFile(database), { force: true });
    },

    has: (database) => pool.has(database),
    list: () => pool.list(),

    usage,

    async releaseBallastWhereFull() {
      if (!guarded) return [];
      const released: string[] = [];
      for (const name of await pool.list()) {
        const ballast = path.join(mountPoint(name), BALLAST);
        if (!existsSync(ballast)) continue;
        if ((await diskUsage(mountPoint(name))).freeBytes >= BALLAST_MB * MIB) continue;
        await rm(ballast, { force: true });
        released.push(name);
        log(`mariadb: the disk of ${name} was full: its ballast was deleted so the server can recover`);
      }
      return released;
    },

    async restoreBallast(database) {
      if (!guarded) return;
      const ballast = path.join(mountPoint(database), BALLAST);
      if (existsSync(ballast)) return;
      const now = await usage(database);
      if (now.freeBytes < (BALLAST_MB + SLACK_MB) * MIB) return;
      await fallocate(ballast, BALLAST_MB).catch((error: Error) => {
        log(`mariadb: the ballast of ${database} could not be put back: ${error.message}`);
      });
    },
  };
}

/**
 * MariaDB finds a tenant's database folder through a symbolic link in its data folder pointing at the
 * `data/` of the tenant's disk (made by root; the folder is the server's). Answers false when the data
 * folder holds a real folder of that name (a tenant made before tenants had disks: left where it is).
 */
export async function linkDatabaseDir(
  serverData: string,
  database: string,
  target: string,
  user: OsUser | undefined,
): Promise<boolean> {
  const link = path.join(serverData, database);
  const found = await lstat(link).catch(() => undefined);
  if (found?.isSymbolicLink()) {
    if ((await readlink(link)) === target) return true;
    await rm(link);
  } else if (found) {
    return false;
  }
  await symlink(target, link);
  if (user) await lchown(link, user.uid, user.gid);
  return true;
}
