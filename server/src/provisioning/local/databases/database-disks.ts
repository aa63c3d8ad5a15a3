import { existsSync } from 'node:fs';
import { chown, lchown, lstat, mkdir, readdir, readlink, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { guardedFree, holdOf } from '../host/disk-hold.ts';
import type { DiskReserve } from '../host/disk-reserve.ts';
import type { OsUser } from '../host/host.ts';
import { type DiskPool, diskPool, disksDir, diskUsage } from '../host/tenant-disks.ts';
import {
  BALLAST,
  BALLAST_MB,
  ballastBytes,
  diskBallast,
  fallocate,
  MIB,
  SLACK_MB,
} from './database-disk-ballast.ts';
import {
  type DiskRecord,
  newDiskId,
  readRecord,
  SPARE_RECORD,
  writeRecord,
} from './database-disk-records.ts';
import { type SpareSteps, warmSpare } from './database-spare.ts';

export { MARIADB_BUFFER_POOL_MB, SLACK_MB } from './database-disk-ballast.ts';
export type { SpareSteps } from './database-spare.ts';

/**
 * The disks of database tenants (tenant-disks.ts): each tenant database of the local MariaDB or
 * PostgreSQL on an ext4 image of its own, with the server's user owning the disk's root folder (700).
 * What lies on it:
 *   - `data/`: MariaDB's folder of the database (the server's data folder holds a symbolic link
 *     `<database> -> …/tenants/<disk>/data`, so every table file, file-per-table, lands on the disk),
 *     or PostgreSQL's tablespace of the database (its default tablespace: tables, indexes, TOAST, large
 *     objects and temporary files of sorts and temporary tables all land there);
 *   - `ballast` (MariaDB only, root, 32 MiB): space held back for InnoDB's crash recovery, see below.
 *
 * Disks have ids of their own (12 hex characters): image `disks/<engine>/<disk>.img`, mounted at
 * `<server dir>/tenants/<disk>`. A tenant's record `disks/<engine>/<database>.json` names its disk and
 * its limit (so a changed setting applies to new tenants only). The ids let a disk be made before its
 * tenant is known: a warm spare, mounted, laid out and prepared by the engine (PostgreSQL: a tablespace and
 * a database `spare_<disk>` made from template1, then a checkpoint), so that a deploy only renames what
 * is there: CREATE DATABASE and its checkpoint take most of a second; a mount tens of milliseconds.
 * A disk no record names (a spare, or a deploy cut short) is discarded at the next start.
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

/**
 * ext4's own structures take 3–6 % of an image (journal, inode tables) and it keeps up to 16 MiB from
 * unprivileged writers: an image of this size leaves at least `needMb` writable.
 */
export const imageMbFor = (needMb: number) => Math.ceil(needMb / 0.94) + 16;

/** The image of a tenant limit of `limitMb` on `engine`: MySQL keeps slack and ballast above the limit. */
export const databaseImageMb = (engine: 'mysql' | 'postgresql', limitMb: number) =>
  imageMbFor(limitMb + (engine === 'mysql' ? SLACK_MB + BALLAST_MB : 0));

type Engine = 'mysql' | 'postgresql';

export interface DatabaseDiskUsage {
  /** What the tenant's data takes on its disk (the ballast left out). */
  usedBytes: number;
  /** Where its writes stop: the guard's limit (MySQL), or the end of its disk (PostgreSQL). */
  limitBytes: number;
  /** The size it was sold (its record's limit): more than `limitBytes` while the hold holds it back. */
  soldBytes: number;
  /** Whether the hold (disk-hold.ts) holds room back on its disk now. */
  held: boolean;
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
  /** Reads the records and mounts every disk (after a reboot none are): before the server starts. */
  mountAll(): Promise<void>;
  /**
   * Once the server runs: discards disks no record names, then keeps a warm spare ready (`steps`: the
   * engine's part; MariaDB needs none).
   */
  start(steps?: SpareSteps): Promise<void>;
  stop(): Promise<void>;
  /**
   * The tenant's disk: its own when it has one; else the warm spare when it is ready and made for
   * `limitMb` (the engine's objects there renamed by `steps.adopt`); else a new disk, which the reserve
   * may refuse. Mounted, with its layout.
   */
  ensure(database: string, limitMb: number): Promise<void>;
  /** Unmounts every disk (the server is stopped). */
  unmountAll(): Promise<void>;
  /** Unmounts and deletes the tenant's disk and its record. */
  remove(database: string): Promise<void>;
  has(database: string): boolean;
  /** The tenants that have a disk. */
  list(): string[];
  usage(database: string): Promise<DatabaseDiskUsage>;
  /**
   * Deletes the ballast of every disk with less than the ballast free (before a MariaDB start) and holds
   * the writes of its tenant for HOLD_AFTER_CRASH_MS. Answers those tenants.
   */
  releaseBallastWhereFull(): Promise<string[]>;
  /** Whether the tenant filled its disk to the end not long ago (its writes stay refused meanwhile). */
  isHeld(database: string): boolean;
  /** Puts the ballast back when the disk has room for it above the tenant's limit. */
  restoreBallast(database: string): Promise<void>;
}

export interface DatabaseDisksOptions {
  root: string;
  engine: Engine;
  /** The server's folder (`<root>/mariadb`, `<root>/postgresql`): disks are mounted in its `tenants/`. */
  serverDir: string;
  /** The server's OS user (owns each disk's root folder and `data/`); undefined: ourselves. */
  user: OsUser | undefined;
  /** Limit of a tenant whose deploy names none, MiB: what the warm spare is made for. */
  defaultLimitMb: number;
  reserve?: DiskReserve;
  /** The folder of the images and records; default `<root>/disks/<engine>` (one per instance's server). */
  dir?: string;
  log: (line: string) => void;
}

export function databaseDisks(options: DatabaseDisksOptions): DatabaseDisks {
  const { engine, log } = options;
  const owner = options.user ?? { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const dir = options.dir ?? path.join(disksDir(options.root), engine);
  const tenantsDir = path.join(options.serverDir, 'tenants');
  const records = new Map<string, DiskRecord>();
  const recordFile = (database: string) => path.join(dir, `${database}.json`);
  const diskPoint = (disk: string) => path.join(tenantsDir, disk);
  const guarded = engine === 'mysql';
  const imageMb = (limitMb: number) => databaseImageMb(engine, limitMb);

  function recordOf(database: string): DiskRecord {
    const record = records.get(database);
    if (!record) throw new Error(`${database} has no disk`);
    return record;
  }
  const mountPoint = (database: string) => diskPoint(recordOf(database).disk);
  const dataDir = (database: string) => path.join(mountPoint(database), 'data');

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
    names: /^[a-f0-9]{12}$/,
    sizeMb: imageMb(options.defaultLimitMb),
    label: `berth-${engine}`,
    mkfsOptions: ['-i', '32768'], // a database has few files: fewer inodes, more room
    rootOwner: owner,
    rootMode: 0o700,
    reserve: options.reserve,
    ...(guarded ? { guard: { slackBytes: SLACK_MB * MIB, ballast: BALLAST } } : {}),
    log,
  });

  /** A new disk for `limitMb`, mounted and laid out; the reserve may refuse it. */
  async function newDisk(limitMb: number): Promise<DiskRecord> {
    const record = { limitMb, disk: newDiskId() };
    await mkdir(tenantsDir, { recursive: true, mode: 0o711 }); // root's, passable for the server's user
    await pool.ensure(record.disk, diskPoint(record.disk), imageMb(limitMb));
    await layout(diskPoint(record.disk));
    return record;
  }

  const spare = warmSpare({
    engine,
    dir,
    pool,
    diskPoint,
    defaultLimitMb: options.defaultLimitMb,
    newDisk,
    log,
  });

  async function usage(database: string): Promise<DatabaseDiskUsage> {
    const point = mountPoint(database);
    const disk = await diskUsage(point);
    const ballast = guarded ? await ballastBytes(point) : 0;
    const usedBytes = Math.max(0, disk.usedBytes - ballast);
    return {
      usedBytes,
      // MySQL: the record's limit, or sooner where the hold says so (disk-hold.ts); it is never later
      // than the slack before the end of the disk.
      limitBytes: guarded
        ? Math.min(
            recordOf(database).limitMb * MIB,
            usedBytes + guardedFree(disk.freeBytes, SLACK_MB * MIB, holdOf(point).sizeBytes),
          )
        : usedBytes + disk.freeBytes,
      soldBytes: recordOf(database).limitMb * MIB,
      held: holdOf(point).sizeBytes > 0,
      freeBytes: disk.freeBytes,
      ballastBytes: ballast,
    };
  }

  const { releaseBallastWhereFull, restoreBallast } = diskBallast({
    guarded,
    records,
    diskPoint,
    recordFile,
    mountPoint,
    usage,
    log,
  });

  return {
    mountPoint,
    dataDir,

    async mountAll() {
      records.clear();
      if (!existsSync(dir)) return;
      for (const file of await readdir(dir)) {
        const database = file.replace(/\.json$/, '');
        if (database === file || file === SPARE_RECORD) continue;
        const record = await readRecord(path.join(dir, file));
        if (record) records.set(database, record);
      }
      await mkdir(tenantsDir, { recursive: true, mode: 0o711 });
      for (const disk of await pool.list()) await pool.mount(disk, diskPoint(disk));
    },

    async start(engineSteps) {
      await spare.start(engineSteps, new Set([...records.values()].map((record) => record.disk)));
    },

    stop: () => spare.stop(),

    async ensure(database, limitMb) {
      let record = records.get(database) ?? (await readRecord(recordFile(database)));
      if (!record) {
        const taken = await spare.take(limitMb);
        record = taken ?? (await newDisk(limitMb));
        await mkdir(dir, { recursive: true, mode: 0o700 });
        await writeRecord(recordFile(database), record);
        if (taken) await spare.dropRecord();
        spare.refill();
      }
      records.set(database, record);
      await pool.mount(record.disk, diskPoint(record.disk));
      await layout(diskPoint(record.disk));
      if (record.spare) {
        await spare.adopt(record.spare, database);
        record = { limitMb: record.limitMb, disk: record.disk };
        await writeRecord(recordFile(database), record);
        records.set(database, record);
      }
    },

    async unmountAll() {
      for (const disk of await pool.list()) await pool.unmount(diskPoint(disk));
    },

    async remove(database) {
      const record = records.get(database) ?? (await readRecord(recordFile(database)));
      if (record) await pool.remove(record.disk, diskPoint(record.disk));
      await rm(recordFile(database), { force: true });
      records.delete(database);
    },

    has: (database) => records.has(database),
    list: () => [...records.keys()],
    usage,
    releaseBallastWhereFull,
    isHeld: (database) => (records.get(database)?.heldUntil ?? 0) > Date.now(),
    restoreBallast,
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
