import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql, { type Pool } from 'mysql2/promise';
import { z } from 'zod';
import { freePort } from '../../../lib/free-port.ts';
import type { StorageLimitEvent } from '../../driver.ts';
import { isRoot, ownedDir, readState, serviceUser, writeState } from '../host/host.ts';
import { healthOf, superviseProcess } from '../host/supervisor.ts';
import { diskPool, disksDir } from '../host/tenant-disks.ts';
import { databaseDisks, linkDatabaseDir, MARIADB_BUFFER_POOL_MB } from './database-disks.ts';
import type { EngineServer, LocalDatabaseServerOptions } from './engine-server.ts';
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

/** The system tablespace holds every tenant's undo log: bounded, a huge transaction fails, not the host. */
const SYSTEM_TABLESPACE_MAX_MB = 2048;

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
 * - the system tablespace (the undo logs of every tenant) grows to SYSTEM_TABLESPACE_MAX_MB at most;
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
  // Sorts of a tenant may take twice the largest database; the platform's own, so outside the reserve's
  // admission (it is counted as promised all the same).
  const tmpDisk = diskPool({
    dir: path.join(disksDir(root), 'mariadb-tmp'),
    names: /^tmp$/,
    sizeMb: Math.max(256, 2 * options.tenantLimitMb),
    label: 'berth-mysqltmp',
    rootOwner: owner,
    rootMode: 0o700,
    log,
  });
  const listeners: ((event: StorageLimitEvent) => void)[] = [];
  let port = 0;
  let systemTablespaceMaxMb = SYSTEM_TABLESPACE_MAX_MB;
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

  async function initialise(): Promise<void> {
    if (existsSync(path.join(paths.data, 'mysql'))) return;
    log(`mariadb: initialising ${paths.data}`);
    await promisify(execFile)('/usr/bin/mariadb-install-db', [
      '--no-defaults',
      ...(user ? [`--user=${user.name}`] : [`--auth-root-socket-user=${adminUser}`]),
      `--datadir=${paths.data}`,
      '--auth-root-authentication-method=socket',
      '--skip-test-db',
    ]);
  }

  const args = () => [
    '--no-defaults',
    `--datadir=${paths.data}`,
    `--socket=${paths.socket}`,
    `--pid-file=${paths.serverPidFile}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    '--skip-name-resolve',
    `--innodb-buffer-pool-size=${MARIADB_BUFFER_POOL_MB}M`,
    '--symbolic-links=0',
    '--enforce-storage-engine=InnoDB',
    `--tmpdir=${paths.tmp}`,
    `--innodb-data-file-path=ibdata1:12M:autoextend:max:${systemTablespaceMaxMb}M`,
    // PAGE_COMPRESSED tables are written whole: no page leaves a hole to fill later.
    '--innodb-compression-algorithm=none',
  ];

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

  /** An ibdata1 already larger than the bound (it grew before there was one) raises the bound. */
  async function boundSystemTablespace(): Promise<void> {
    const size = await stat(path.join(paths.data, 'ibdata1')).then(
      (info) => info.size,
      () => 0,
    );
    systemTablespaceMaxMb = Math.max(SYSTEM_TABLESPACE_MAX_MB, Math.ceil(size / 1024 / 1024) + 256);
  }

  let supervised: ReturnType<typeof superviseProcess> | undefined;

  return {
    async start() {
      // Passable (not listable) for the site users, whose sandboxes bind the socket in; data stays 700.
      await ownedDir(paths.dir, user, 0o711);
      await ownedDir(path.dirname(paths.socket), user, 0o711);
      await ownedDir(paths.data, user, 0o700);
      const state = (await readState(paths.stateFile, StateSchema)) ?? { port: await freePort() };
      await writeState(paths.stateFile, state);
      port = state.port;
      await initialise();
      await boundSystemTablespace();
      await mountTenantDisks();
      supervised = superviseProcess(
        {
          name: 'mariadb',
          command: '/usr/sbin/mariadbd',
          args: args(),
          user,
          pidFile: paths.pidFile,
          logFile: paths.logFile,
          stopSignal: 'SIGTERM',
          stopTimeoutMs: 30_000,
          beforeLaunch,
          ready: async () => {
            await admin().query('SELECT 1');
          },
          readyTimeoutMs: 30_000,
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
