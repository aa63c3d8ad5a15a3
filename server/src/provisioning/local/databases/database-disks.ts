import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  chown,
  lchown,
  lstat,
  mkdir,
  readdir,
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
import type { DiskReserve } from '../host/disk-reserve.ts';
import type { OsUser } from '../host/host.ts';
import { type DiskPool, diskPool, disksDir, diskUsage } from '../host/tenant-disks.ts';

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

const run = promisify(execFile);
const MIB = 1024 * 1024;

/**
 * MariaDB's buffer pool (mariadb-server.ts). Pages changed there before the guard stopped a tenant are
 * written later, and each may need a new block on the disk then (a page of a PAGE_COMPRESSED table that
 * InnoDB punched out of its file when it was freed), so the slack must hold all of them.
 */
export const MARIADB_BUFFER_POOL_MB = 64;
/**
 * Above a MySQL tenant's limit: room for what it writes before the guard has stopped it, and for the
 * buffer pool's pages to reach the disk. The guard usually answers within milliseconds (a few MiB
 * past the limit at 100–200 MB/s), but a host short of CPU delays it: with a load average of 20 on 2
 * cores it was once outrun by more than 96 MiB. At least the buffer pool.
 */
export const SLACK_MB = Math.max(256, MARIADB_BUFFER_POOL_MB + 32);
/**
 * A tenant that filled its disk to the end (the server aborted) keeps its writes refused this long after
 * the restart, however much it frees: it cannot take the server down again and again.
 */
const HOLD_AFTER_CRASH_MS = 60 * 60_000;
/** Held back on a MySQL tenant's disk for crash recovery (deleted before a restart of a full disk). */
const BALLAST_MB = 32;
const BALLAST = 'ballast';

/**
 * ext4's own structures take 3–6 % of an image (journal, inode tables) and it keeps up to 16 MiB from
 * unprivileged writers: an image of this size leaves at least `needMb` writable.
 */
export const imageMbFor = (needMb: number) => Math.ceil(needMb / 0.94) + 16;

type Engine = 'mysql' | 'postgresql';

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

const DiskRecordSchema = z.object({
  limitMb: z.number().int().positive(),
  disk: z.string().regex(/^[a-f0-9]{12}$/),
  /** Set while the engine has not adopted the spare this disk was (its objects named `spare_<disk>`). */
  spare: z.string().optional(),
  /** Until when (ms since the epoch) the tenant's writes stay refused after it filled its disk. */
  heldUntil: z.number().optional(),
});
type DiskRecord = z.infer<typeof DiskRecordSchema>;

/** What the engine does with a warm spare: prepare its objects there, rename them for a tenant, drop them. */
export interface SpareSteps {
  /** Makes the engine's objects named `spare` on the spare disk, whose data folder is `dataDir`. */
  prepare(spare: string, dataDir: string): Promise<void>;
  /** Renames them for `database` (idempotent: a retried deploy runs it again). */
  adopt(spare: string, database: string): Promise<void>;
  /** Drops them (a spare left over from a run that stopped). */
  discard(spare: string): Promise<void>;
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
  log: (line: string) => void;
}

const SPARE_RECORD = 'spare.json';
const newDiskId = () => randomBytes(6).toString('hex');
const spareName = (disk: string) => `spare_${disk}`;

export function databaseDisks(options: DatabaseDisksOptions): DatabaseDisks {
  const { engine, log } = options;
  const owner = options.user ?? { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const dir = path.join(disksDir(options.root), engine);
  const tenantsDir = path.join(options.serverDir, 'tenants');
  const records = new Map<string, DiskRecord>();
  const recordFile = (database: string) => path.join(dir, `${database}.json`);
  const diskPoint = (disk: string) => path.join(tenantsDir, disk);
  const guarded = engine === 'mysql';
  /** Image size for a tenant limit: MySQL keeps slack and ballast above the limit. */
  const imageMb = (limitMb: number) => imageMbFor(limitMb + (guarded ? SLACK_MB + BALLAST_MB : 0));
  let steps: SpareSteps | undefined;
  /** The warm spare: ready (its record written), or being made. */
  let spare: DiskRecord | undefined;
  let refilling: Promise<void> | undefined;
  let stopped = true;

  function recordOf(database: string): DiskRecord {
    const record = records.get(database);
    if (!record) throw new Error(`${database} has no disk`);
    return record;
  }
  const mountPoint = (database: string) => diskPoint(recordOf(database).disk);
  const dataDir = (database: string) => path.join(mountPoint(database), 'data');

  async function writeRecord(file: string, record: DiskRecord): Promise<void> {
    await writeFile(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  }
  async function readRecord(file: string): Promise<DiskRecord | undefined> {
    const raw = await readFile(file, 'utf8').catch(() => undefined);
    return raw === undefined ? undefined : DiskRecordSchema.parse(JSON.parse(raw));
  }

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
    names: /^[a-f0-9]{12}$/,
    sizeMb: imageMb(options.defaultLimitMb),
    label: `berth-${engine}`,
    mkfsOptions: ['-i', '32768'], // a database has few files: fewer inodes, more room
    rootOwner: owner,
    rootMode: 0o700,
    reserve: options.reserve,
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

  /** Makes the next warm spare in the background (one at a time; a refusal of the reserve is logged). */
  function refill(): void {
    if (refilling || stopped || spare) return;
    refilling = (async () => {
      const record = await newDisk(options.defaultLimitMb);
      const name = spareName(record.disk);
      await steps?.prepare(name, path.join(diskPoint(record.disk), 'data'));
      const ready = { ...record, spare: name };
      await writeRecord(path.join(dir, SPARE_RECORD), ready);
      if (stopped) return;
      spare = ready;
    })()
      .catch((error: Error) => log(`${engine}: spare disk not made: ${error.message}`))
      .finally(() => {
        refilling = undefined;
      });
  }

  async function ballastBytes(point: string): Promise<number> {
    const info = await stat(path.join(point, BALLAST)).catch(() => undefined);
    return info ? info.blocks * 512 : 0;
  }

  async function usage(database: string): Promise<DatabaseDiskUsage> {
    const point = mountPoint(database);
    const disk = await diskUsage(point);
    const ballast = guarded ? await ballastBytes(point) : 0;
    const usedBytes = Math.max(0, disk.usedBytes - ballast);
    return {
      usedBytes,
      limitBytes: guarded ? recordOf(database).limitMb * MIB : usedBytes + disk.freeBytes,
      freeBytes: disk.freeBytes,
      ballastBytes: ballast,
    };
  }

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
      steps = engineSteps;
      stopped = false;
      const recorded = new Set([...records.values()].map((record) => record.disk));
      const kept = await readRecord(path.join(dir, SPARE_RECORD));
      spare = kept && !recorded.has(kept.disk) && kept.limitMb === options.defaultLimitMb ? kept : undefined;
      if (!spare) await rm(path.join(dir, SPARE_RECORD), { force: true });
      for (const disk of await pool.list()) {
        if (recorded.has(disk) || disk === spare?.disk) continue;
        await steps?.discard(spareName(disk));
        await pool.remove(disk, diskPoint(disk));
      }
      refill();
    },

    async stop() {
      stopped = true;
      await refilling;
    },

    async ensure(database, limitMb) {
      let record = records.get(database) ?? (await readRecord(recordFile(database)));
      if (!record) {
        // A spare being made is further along than a disk this deploy would start now.
        if (!spare && refilling && limitMb === options.defaultLimitMb) await refilling;
        const taken = spare?.limitMb === limitMb ? spare : undefined;
        if (taken) {
          spare = undefined;
          record = taken;
        } else {
          record = await newDisk(limitMb);
        }
        await mkdir(dir, { recursive: true, mode: 0o700 });
        await writeRecord(recordFile(database), record);
        if (taken) await rm(path.join(dir, SPARE_RECORD), { force: true });
        refill();
      }
      records.set(database, record);
      await pool.mount(record.disk, diskPoint(record.disk));
      await layout(diskPoint(record.disk));
      if (record.spare) {
        await steps?.adopt(record.spare, database);
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

    async releaseBallastWhereFull() {
      if (!guarded) return [];
      const released: string[] = [];
      for (const [database, record] of records) {
        const ballast = path.join(diskPoint(record.disk), BALLAST);
        if (!existsSync(ballast)) continue;
        if ((await diskUsage(diskPoint(record.disk))).freeBytes >= BALLAST_MB * MIB) continue;
        await rm(ballast, { force: true });
        released.push(database);
        const held = { ...record, heldUntil: Date.now() + HOLD_AFTER_CRASH_MS };
        await writeRecord(recordFile(database), held);
        records.set(database, held);
        log(
          `mariadb: the disk of ${database} was full: its ballast was deleted so the server can recover; its writes stay refused for an hour`,
        );
      }
      return released;
    },

    isHeld: (database) => (records.get(database)?.heldUntil ?? 0) > Date.now(),

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
