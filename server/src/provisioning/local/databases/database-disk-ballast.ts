import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { diskUsage } from '../host/tenant-disks.ts';
import { type DiskRecord, writeRecord } from './database-disk-records.ts';

// The room a MySQL tenant's disk keeps above its limit (database-disks.ts): the slack for writes the
// guard (mariadb-quota.ts) has not stopped yet, and the ballast deleted when a tenant filled its disk to
// the end, so that MariaDB's crash recovery finds room.

const run = promisify(execFile);
export const MIB = 1024 * 1024;

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
export const BALLAST_MB = 32;
export const BALLAST = 'ballast';

export async function fallocate(file: string, mb: number): Promise<void> {
  await run('/usr/bin/fallocate', ['-l', `${mb}M`, file]);
}

export async function ballastBytes(point: string): Promise<number> {
  const info = await stat(path.join(point, BALLAST)).catch(() => undefined);
  return info ? info.blocks * 512 : 0;
}

/** What the ballast's upkeep needs of the disks. */
interface BallastContext {
  guarded: boolean;
  records: Map<string, DiskRecord>;
  diskPoint(disk: string): string;
  recordFile(database: string): string;
  mountPoint(database: string): string;
  usage(database: string): Promise<{ freeBytes: number }>;
  log: (line: string) => void;
}

/** Deleting the ballast of full disks before a MariaDB start, and putting it back once there is room. */
export function diskBallast({
  guarded,
  records,
  diskPoint,
  recordFile,
  mountPoint,
  usage,
  log,
}: BallastContext) {
  async function releaseBallastWhereFull(): Promise<string[]> {
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
  }

  async function restoreBallast(database: string): Promise<void> {
    if (!guarded) return;
    const ballast = path.join(mountPoint(database), BALLAST);
    if (existsSync(ballast)) return;
    const now = await usage(database);
    if (now.freeBytes < (BALLAST_MB + SLACK_MB) * MIB) return;
    await fallocate(ballast, BALLAST_MB).catch((error: Error) => {
      log(`mariadb: the ballast of ${database} could not be put back: ${error.message}`);
    });
  }

  return { releaseBallastWhereFull, restoreBallast };
}
