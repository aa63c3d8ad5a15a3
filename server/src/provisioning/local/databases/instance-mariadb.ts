import { chown, lstat, mkdir, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import mysql, { type Pool } from 'mysql2/promise';
import type { StorageLimitEvent } from '../../driver.ts';
import { launchInGroup } from '../host/control-groups.ts';
import { healthOf, type SupervisedProcess } from '../host/supervisor.ts';
import { databaseDisks, linkDatabaseDir } from './database-disks.ts';
import {
  type InstanceServer,
  type InstanceServerPlace,
  placePaths,
  prepareFolders,
  shareOf,
  stopStaleServer,
} from './instance-server.ts';
import { mariadbArgs, supervisedMariaDb } from './mariadb-process.ts';
import { mariadbQuota } from './mariadb-quota.ts';
import { mariadbTenants } from './mariadb-tenants.ts';
import { tenantLimits } from './tenant-limits.ts';

/** Undo logs of the one tenant live in the system tablespace, on the host's disk: bounded. */
const INSTANCE_TABLESPACE_MAX_MB = 512;
/** The redo log (the template is made with it: instance-templates.ts). */
export const INSTANCE_REDO_LOG_MB = 16;

/** `address`, plus 127.0.0.1 unless it already covers it (all interfaces, or loopback). */
const withLoopback = (address: string) =>
  ['0.0.0.0', '::', '127.0.0.1'].includes(address) ? address : `${address},127.0.0.1`;

/**
 * The MariaDB of one MySQL instance: `mariadbd` as the instance's own user in its control group, its
 * data folder in `<dir>/data` (a copy of the template), its database's folder on its own disk (a link,
 * as on the shared server: database-disks.ts, the same size guard: mariadb-quota.ts), its temporary
 * files (`tmpdir`) on that disk too, listening on the customer's address with TLS required
 * (`require_secure_transport`: a plaintext login over TCP is refused) and on a socket in `run/` (700)
 * where root is the admin (unix_socket: no admin password exists).
 *
 * Sized for what the customer bought and small when idle: the buffer pool a quarter of the memory
 * (allocated as pages are touched), performance_schema off, few connections, small caches.
 */
export function instanceMariaDb(place: InstanceServerPlace): InstanceServer {
  const { log, user, names } = place;
  const paths = placePaths(place);
  const files = {
    data: paths.data,
    // A link to the disk's tmp/ (made afresh at every start): sorts count against the instance's size.
    tmp: path.join(place.dir, 'tmp'),
    socket: path.join(paths.run, 'mysqld.sock'),
    serverPidFile: path.join(paths.run, 'mariadbd.pid'),
    pidFile: place.pidFile,
    logFile: place.logFile,
  };
  const disks = databaseDisks({
    root: place.dir,
    engine: 'mysql',
    serverDir: place.dir,
    user,
    defaultLimitMb: place.limitMb,
    reserve: place.reserve,
    dir: place.disksDir,
    log,
  });
  const listeners: ((event: StorageLimitEvent) => void)[] = [];
  let pool: Pool | undefined;
  const admin = (): Pool => {
    pool ??= mysql.createPool({
      socketPath: files.socket,
      user: 'root',
      connectionLimit: 2,
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
  const tenants = mariadbTenants(admin, (tenant) => quota.isBlocked(tenant.database));
  const connections = tenantLimits(place.resources).connections;
  const variant = {
    name: `mariadb ${place.id}`,
    // Its phpMyAdmin reaches it on the host's loopback (phpmyadmin-sandbox.ts): a server listening on
    // one public address listens there too.
    bindAddress: withLoopback(place.listenAddress),
    args: [
      `--ssl-cert=${paths.cert}`,
      `--ssl-key=${paths.key}`,
      '--require-secure-transport=ON',
      '--performance-schema=OFF',
      `--innodb-buffer-pool-size=${shareOf(place.resources, 0.25, 32)}M`,
      `--innodb-log-file-size=${INSTANCE_REDO_LOG_MB}M`,
      '--innodb-log-buffer-size=4M',
      `--max-connections=${connections + 2}`,
      '--thread-cache-size=4',
      '--table-open-cache=200',
      '--table-definition-cache=400',
      '--key-buffer-size=1M',
      '--aria-pagecache-buffer-size=8M',
      '--tmp-table-size=16M',
      '--max-heap-table-size=16M',
      '--local-infile=0',
    ],
    launch: (command: string, args: string[]) => launchInGroup(user, place.joins, command, args),
  };

  /** Before each launch: a fresh tmp/ on the disk (linked from `<dir>/tmp`), room for a crash recovery. */
  async function beforeLaunch(): Promise<void> {
    const tmp = path.join(disks.mountPoint(names.database), 'tmp');
    await rm(tmp, { recursive: true, force: true });
    await mkdir(tmp, { mode: 0o700 });
    await chown(tmp, user.uid, user.gid);
    if (!(await lstat(files.tmp).catch(() => undefined))?.isSymbolicLink()) {
      await rm(files.tmp, { recursive: true, force: true });
      await symlink(tmp, files.tmp);
    }
    await disks.releaseBallastWhereFull();
  }

  let supervised: SupervisedProcess | undefined;
  const serverOptions = { port: place.port, tablespaceMaxMb: INSTANCE_TABLESPACE_MAX_MB, variant };
  const make = () =>
    supervisedMariaDb(
      files,
      {
        ...serverOptions,
        user,
        beforeLaunch,
        ready: async () => {
          await admin().query('SELECT 1');
        },
      },
      log,
    );

  return {
    async start() {
      if (supervised && supervised.status().state !== 'stopped') return;
      await prepareFolders(place, 'mysql');
      await disks.mountAll();
      // The database's disk is made before the server first starts: its tmpdir lies on it.
      await disks.ensure(names.database, place.limitMb);
      await linkDatabaseDir(paths.data, names.database, disks.dataDir(names.database), user);
      supervised = make();
      const ours = ['/usr/sbin/mariadbd', ...mariadbArgs(files, serverOptions)].join('\0');
      await stopStaleServer(files.pidFile, `--datadir=${files.data}\0`, ours, 'SIGTERM');
      await supervised.start();
      await quota.start();
    },
    async stop() {
      quota.stop();
      await pool?.end();
      pool = undefined;
      await supervised?.stop();
      if (supervised?.status().state === 'stopped') await disks.unmountAll();
    },
    running: () => supervised?.status().state === 'running',
    removeDisks: () => disks.remove(names.database),
    tenants: {
      ...tenants,
      async create(tenant, password, limitMb = place.limitMb, limits) {
        await disks.ensure(tenant.database, limitMb);
        await linkDatabaseDir(paths.data, tenant.database, disks.dataDir(tenant.database), user);
        await tenants.create(tenant, password, limitMb, limits);
        quota.watch(tenant.database);
      },
      // The disk stays (the server's tmpdir is on it): a restore makes the database again on it; the
      // instance's deletion removes the disk once the server is stopped (removeDisks).
      async delete(tenant) {
        quota.unwatch(tenant.database);
        await tenants.delete(tenant);
      },
    },
    socket: files.socket,
    async reloadTls() {
      await admin().query('FLUSH SSL');
    },
    async storage(tenant) {
      if (!disks.has(tenant.database)) return undefined;
      const usage = await disks.usage(tenant.database);
      return {
        usedBytes: usage.usedBytes,
        limitBytes: usage.limitBytes,
        full: quota.isBlocked(tenant.database),
      };
    },
    onStorageLimit(listener) {
      listeners.push(listener);
    },
    health: () => healthOf(supervised, () => admin().query('SELECT 1'), place.port),
  };
}
