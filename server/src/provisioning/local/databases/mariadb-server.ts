import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import mysql, { type Pool } from 'mysql2/promise';
import { z } from 'zod';
import { freePort } from '../../../lib/free-port.ts';
import type { StorageLimitEvent } from '../../driver.ts';
import { isRoot, ownedDir, readState, serviceUser, writeState } from '../host/host.ts';
import { healthOf, type SupervisedProcess } from '../host/supervisor.ts';
import { databaseDisks, linkDatabaseDir } from './database-disks.ts';
import type { EngineServer, LocalDatabaseServerOptions } from './engine-server.ts';
import {
  initialiseMariaDb,
  mariadbTmpDisk,
  supervisedMariaDb,
  systemTablespaceMaxMb,
} from './mariadb-process.ts';
import { mariadbQuota } from './mariadb-quota.ts';
import { mariadbTenants } from './mariadb-tenants.ts';

/** Where the local MariaDB lives under the data root. */
export function mariadbPaths(root: string) {
  const dir = path.join(root, 'mariadb');
  return {
    /** Owned by the mysql user, mode 711 (the socket is bound into site sandboxes): data (700), run/. */
    dir,
    data: path.join(dir, 'data'),
    /** MariaDB's tmpdir: a disk of its own, made afresh at every start (sorts, internal temporary tables). */
    tmp: path.join(dir, 'tmp'),
    socket: path.join(dir, 'run', 'mysqld.sock'),
    serverPidFile: path.join(dir, 'run', 'mariadbd.pid'),
    /** Remembers the port chosen at first start. */
    stateFile: path.join(root, 'mariadb.json'),
    pidFile: path.join(root, 'run', 'mariadb.pid'),
    logFile: path.join(root, 'logs', 'mariadb.log'),
  };
}

const StateSchema = z.object({ port: z.number().int() });

/**
 * A private MariaDB (Debian's mariadbd) in `<root>/mariadb`, listening on 127.0.0.1:<port> and on a
 * private socket. The admin account is root over that socket (unix_socket authentication: the API
 * runs as root), so no admin password exists anywhere.
 *
 * Where tenants' writes land, and what bounds them:
 * - each tenant database on its own disk (database-disks.ts), its writes refused at its limit by
 *   mariadb-quota.ts; `--symbolic-links=0` makes MariaDB ignore `DATA DIRECTORY` / `INDEX DIRECTORY`,
 *   with which a tenant could otherwise put a table file anywhere the server may write;
 * - `--enforce-storage-engine=InnoDB`: MyISAM and Aria tables wait for space forever at a full disk (a
 *   stuck session holding its table), MEMORY tables take RAM; tenants create InnoDB tables only;
 * - `tmpdir` (sorts, MariaDB's own temporary tables, ALTER TABLE's sort files) on a disk of its own,
 *   made afresh at each start: a statement that fills it fails ("Disk got full writing …"), nothing else;
 * - the system tablespace (the undo logs of every tenant) grows to SYSTEM_TABLESPACE_MAX_MB at most
 *   (mariadb-process.ts, which holds the command line);
 * - `--innodb-compression-algorithm=none`: pages are written whole (a compressed page leaves a hole in
 *   its file, and filling it later needs a block the full disk may not have when the page is written);
 * - InnoDB's temporary tablespace is not bounded (a bound aborts the server when a temporary table with
 *   long values reaches it): tenants cannot create temporary tables (TENANT_PRIVILEGES), so only MariaDB
 *   itself could use it.
 */
export function localMariaDb(root: string, options: LocalDatabaseServerOptions): EngineServer {
  const { log } = options;
  const paths = mariadbPaths(root);
  const user = isRoot() ? serviceUser('mysql') : undefined;
  const adminUser = isRoot() ? 'root' : userInfo().username;
  const owner = user ?? { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  /** Disks are loop mounts, which need root; a single-user dev setup runs without database sizes. */
  const sized = isRoot();
  const disks = databaseDisks({
    root,
    engine: 'mysql',
    serverDir: paths.dir,
    user,
    defaultLimitMb: options.tenantLimitMb,
    reserve: options.reserve,
    log,
  });
  const tmpDisk = mariadbTmpDisk(root, owner, options.tenantLimitMb, log);
  const listeners: ((event: StorageLimitEvent) => void)[] = [];
  let port = 0;
  let pool: Pool | undefined;
  const admin = (): Pool => {
    pool ??= mysql.createPool({
      socketPath: paths.socket,
      user: adminUser,
      connectionLimit: 4,
      connectTimeout: 3000,
    });
    return pool;
  };

  const quota = mariadbQuota({
    admin,
    disks,
    log,
    onChange: (event) => {
      for (const listener of listeners) listener(event);
    },
  });
  const tenants = mariadbTenants(admin, (names) => quota.isBlocked(names.database));

  /** Every tenant's disk mounted and linked from the data folder (after a reboot they are not). */
  async function mountTenantDisks(): Promise<void> {
    if (!sized) {
      log('mariadb: database sizes are not enforced: their disks need root');
      return;
    }
    await disks.mountAll();
    for (const database of disks.list()) {
      await linkDatabaseDir(paths.data, database, disks.dataDir(database), user);
    }
  }

  /** Before mariadbd starts: a fresh tmpdir, and room for the crash recovery of a full tenant disk. */
  async function beforeLaunch(): Promise<void> {
    if (!sized) return ownedDir(paths.tmp, user, 0o700);
    await tmpDisk.remove('tmp', paths.tmp);
    await tmpDisk.ensure('tmp', paths.tmp);
    await disks.releaseBallastWhereFull();
  }

  let supervised: SupervisedProcess | undefined;

  return {
    async start() {
      // Passable (not listable) for the site users, whose sandboxes bind the socket in; data stays 700.
      await ownedDir(paths.dir, user, 0o711);
      await ownedDir(path.dirname(paths.socket), user, 0o711);
      await ownedDir(paths.data, user, 0o700);
      const state = (await readState(paths.stateFile, StateSchema)) ?? { port: await freePort() };
      await writeState(paths.stateFile, state);
      port = state.port;
      await initialiseMariaDb(paths, user, adminUser, log);
      const tablespaceMaxMb = await systemTablespaceMaxMb(paths);
      await mountTenantDisks();
      supervised = supervisedMariaDb(
        paths,
        {
          port,
          tablespaceMaxMb,
          user,
          beforeLaunch,
          ready: async () => {
            await admin().query('SELECT 1');
          },
        },
        log,
      );
      await supervised.start();
      await quota.start();
      if (sized) await disks.start();
    },
    async stop() {
      quota.stop();
      await disks.stop();
      await pool?.end();
      pool = undefined;
      await supervised?.stop();
      // Stopped (or never ours): the disks can go; the next start mounts them again.
      if (supervised?.status().state === 'stopped') {
        await disks.unmountAll();
        await tmpDisk.unmount(paths.tmp);
      }
    },
    tenants: {
      ...tenants,
      async create(names, password, limitMb = options.tenantLimitMb, limits) {
        const { database } = names;
        // A tenant made before tenants had disks keeps its folder in the data folder, without a limit.
        const onDisk = sized && (disks.has(database) || !existsSync(path.join(paths.data, database)));
        if (onDisk) {
          await disks.ensure(database, limitMb);
          await linkDatabaseDir(paths.data, database, disks.dataDir(database), user);
        } else if (sized) {
          log(`mariadb: ${database} has no disk of its own (made before disks): no size limit`);
        }
        await tenants.create(names, password, limitMb, limits);
        if (onDisk) quota.watch(database);
      },
      async delete(names) {
        quota.unwatch(names.database);
        // DROP DATABASE removes the folder on the disk and the link to it; then the disk goes.
        await tenants.delete(names);
        await disks.remove(names.database);
      },
    },
    async storage(names) {
      if (!disks.has(names.database)) return undefined;
      const usage = await disks.usage(names.database);
      return {
        usedBytes: usage.usedBytes,
        limitBytes: usage.limitBytes,
        full: quota.isBlocked(names.database),
      };
    },
    onStorageLimit(listener) {
      listeners.push(listener);
    },
    endpoint: () => ({ host: '127.0.0.1', port }),
    socket: paths.socket,
    health: () => healthOf(supervised, () => admin().query('SELECT 1'), port),
  };
}

/** An existing MariaDB/MySQL server; `url` names an account that may create databases and users. */
export function externalMariaDb(url: string): EngineServer {
  const parsed = new URL(url);
  const port = Number(parsed.port || 3306);
  let pool: Pool | undefined;
  const admin = (): Pool => {
    pool ??= mysql.createPool({ uri: url, connectionLimit: 4, connectTimeout: 3000 });
    return pool;
  };
  return {
    async start() {
      await admin().query('SELECT 1');
    },
    async stop() {
      await pool?.end();
      pool = undefined;
    },
    tenants: mariadbTenants(admin),
    endpoint: () => ({ host: parsed.hostname, port }),
    health: () => healthOf(undefined, () => admin().query('SELECT 1'), port),
  };
}
