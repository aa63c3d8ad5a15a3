import { type FSWatcher, watch } from 'node:fs';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import type { StorageLimitEvent } from '../../driver.ts';
import { instanceIdOf, tenantNamesOfDatabase } from '../../tenant-names.ts';
import type { DatabaseDisks } from './database-disks.ts';
import { tenantWrites } from './mariadb-writes.ts';

/**
 * The size limit of MySQL tenants (MySQL instances and WordPress sites' databases) on the local MariaDB.
 *
 * Each tenant's database lies on its own disk (database-disks.ts), whose end the kernel enforces; but
 * MariaDB aborts when a rollback finds a table's disk full, so the tenant must be stopped before the end:
 * at its limit, this guard takes its write privileges away (it keeps SELECT, DELETE and DROP, so it can
 * read, delete rows, and TRUNCATE or DROP tables) and closes its connections: their statements roll back
 * in the slack above the limit, and a connection keeps the database privileges it had when it opened
 * (MariaDB reads them at login and USE), so only new ones hold the reduced set. When the tenant's data is
 * below 98 % of its limit again, its privileges come back and its connections are closed once more, each
 * when idle (for the same reason), unless it filled its disk to the end within the hour (database-disks.ts: the server
 * aborted; the hold keeps one tenant from doing it again and again). Each change is told to `onChange`
 * (the customer gets a notification).
 *
 * How it hears of writes: an inotify watch on each tenant's database folder (every table file lies
 * there) checks that tenant's disk (one statfs) at most every CHECK_SPACING_MS while files change, so a
 * writer is stopped within milliseconds of the limit; a sweep of every disk each SWEEP_MS catches what
 * no event announced. The state survives restarts in the grants themselves: at start the sweep reads
 * which tenants are blocked and puts each one right.
 *
 * What can still pass the limit: what the tenant writes between reaching it and the guard's REVOKE and
 * KILL: 0–4 MiB measured at this machine's 100–200 MB/s, within the slack (256 MiB) unless the host is so
 * short of CPU that the guard waits a second or more (then see database-disks.ts: the server aborts and
 * recovers). Deleting rows frees room inside a table for new rows but not on the disk (InnoDB keeps the
 * file's size), so it does not lift the block; TRUNCATE and DROP TABLE do.
 */

const CHECK_SPACING_MS = 25;
const SWEEP_MS = 10_000;
/** A blocked tenant gets its writes back below this share of its limit (no flapping at the edge). */
const UNBLOCK_SHARE = 0.98;

export interface MariaDbQuota {
  /** Reads the grants, watches every tenant's disk, blocks or unblocks each as its usage says. */
  start(): Promise<void>;
  stop(): void;
  /** Starts watching a tenant (after its deploy) and checks it (in the background). */
  watch(database: string): void;
  unwatch(database: string): void;
  /** Whether the tenant's writes are refused now. */
  isBlocked(database: string): boolean;
}

export function mariadbQuota(deps: {
  admin: () => Pool;
  disks: DatabaseDisks;
  log: (line: string) => void;
  onChange: (event: StorageLimitEvent) => void;
}): MariaDbQuota {
  const { admin, disks, log } = deps;
  const watchers = new Map<string, FSWatcher>();
  const blocked = new Set<string>();
  /** Per tenant: the check running, and whether another is due after it. */
  const checks = new Map<string, { again: boolean; done: Promise<void> }>();
  let sweepTimer: NodeJS.Timeout | undefined;
  let running = false;
  const { block, unblock } = tenantWrites({ admin, log, isRunning: () => running });

  async function checkNow(database: string): Promise<void> {
    if (!disks.has(database)) return;
    const names = tenantNamesOfDatabase(database);
    const usage = await disks.usage(database);
    const event = (full: boolean): StorageLimitEvent => ({
      instanceId: instanceIdOf(database),
      full,
      usedBytes: usage.usedBytes,
      limitBytes: usage.soldBytes,
      // Stopped by the hold before its size: the customer is told so, not that it filled its database.
      ...(full && usage.held && usage.limitBytes < usage.soldBytes && { heldBytes: usage.limitBytes }),
    });
    if (!blocked.has(database) && (usage.usedBytes >= usage.limitBytes || disks.isHeld(database))) {
      // Blocked from the decision on: a deploy meanwhile leaves the write privileges out.
      blocked.add(database);
      await block(names).catch((error: Error) => {
        blocked.delete(database);
        throw error;
      });
      log(
        `mariadb: ${database} reached its limit (${usage.usedBytes} of ${usage.limitBytes} bytes): writes refused`,
      );
      deps.onChange(event(true));
    } else if (
      blocked.has(database) &&
      usage.usedBytes < usage.limitBytes * UNBLOCK_SHARE &&
      !disks.isHeld(database)
    ) {
      await disks.restoreBallast(database);
      await unblock(names);
      blocked.delete(database);
      log(`mariadb: ${database} is below its limit again: writes allowed`);
      deps.onChange(event(false));
    }
  }

  /** Runs a check now, or once more after the one in flight; spaced CHECK_SPACING_MS apart. */
  function check(database: string): Promise<void> {
    const pending = checks.get(database);
    if (pending) {
      pending.again = true;
      return pending.done;
    }
    const state = { again: false, done: Promise.resolve() };
    checks.set(database, state);
    state.done = (async () => {
      try {
        do {
          state.again = false;
          await checkNow(database).catch((error: Error) =>
            log(`mariadb: the limit of ${database} could not be checked: ${error.message}`),
          );
          if (state.again) await new Promise((resolve) => setTimeout(resolve, CHECK_SPACING_MS));
        } while (state.again && running);
      } finally {
        checks.delete(database);
      }
    })();
    return state.done;
  }

  function watchDisk(database: string): void {
    if (watchers.has(database)) return;
    try {
      const watcher = watch(disks.dataDir(database), { persistent: false }, () => void check(database));
      // The folder went (the database was dropped): the sweep or a new deploy watches again.
      watcher.on('error', () => {
        watcher.close();
        watchers.delete(database);
      });
      watchers.set(database, watcher);
    } catch (error) {
      log(`mariadb: ${database} cannot be watched: ${(error as Error).message}`);
    }
  }

  async function sweep(): Promise<void> {
    for (const database of disks.list()) {
      if (!running) return;
      watchDisk(database);
      await check(database);
    }
  }

  return {
    async start() {
      running = true;
      const [rows] = await admin().query<RowDataPacket[]>(
        "SELECT Db AS db FROM mysql.db WHERE Host = '%' AND Db LIKE 't\\_%' AND Insert_priv = 'N' AND Select_priv = 'Y'",
      );
      for (const { db } of rows) blocked.add(String(db));
      await sweep();
      sweepTimer = setInterval(() => {
        sweep().catch((error: Error) => log(`mariadb: limit sweep failed: ${error.message}`));
      }, SWEEP_MS);
      sweepTimer.unref();
    },
    stop() {
      running = false;
      clearInterval(sweepTimer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
    watch(database) {
      watchDisk(database);
      void check(database);
    },
    unwatch(database) {
      watchers.get(database)?.close();
      watchers.delete(database);
      blocked.delete(database);
    },
    isBlocked: (database) => blocked.has(database),
  };
}
