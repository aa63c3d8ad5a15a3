import { chown, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { launchInGroup } from '../host/control-groups.ts';
import { healthOf, type SupervisedProcess } from '../host/supervisor.ts';
import { databaseDisks } from './database-disks.ts';
import {
  type InstanceServer,
  type InstanceServerPlace,
  placePaths,
  prepareFolders,
  shareOf,
  stopStaleServer,
} from './instance-server.ts';
import { ADMIN_ROLE, BIN, postgresArgs, supervisedPostgres, watchNotifyQueue } from './postgres-process.ts';
import { postgresTenants } from './postgres-tenants.ts';
import { tenantLimits } from './tenant-limits.ts';

/** The map in pg_ident.conf that lets the OS user root in as the admin role, over the socket only. */
export const ADMIN_MAP = 'berth root provisioner';

/**
 * Who may log in, and how (pg_hba.conf of an instance's server): the admin (peer: the OS user root, over
 * the socket in `run/`, which only root and the server reach), the tenant over the socket with its
 * password (dumps and restores, run by the platform as root), and the tenant over TCP with TLS only
 * (`hostssl`): a plaintext connection finds no entry and is refused. Nobody else, nowhere else.
 */
function hbaConf(database: string, user: string): string {
  return [
    `local all ${ADMIN_ROLE} peer map=berth`,
    `local ${database} ${user} scram-sha-256`,
    `hostssl ${database} ${user} 0.0.0.0/0 scram-sha-256`,
    `hostssl ${database} ${user} ::/0 scram-sha-256`,
    '',
  ].join('\n');
}

/**
 * The PostgreSQL 15 of one PostgreSQL instance: `postgres` as the instance's own user in its control
 * group, its cluster in `<dir>/data` (a copy of the template: the admin role, template1's guard and the
 * REVOKEs of the shared server already made), its database in a tablespace on its own disk (as on the
 * shared server: a full disk fails the statement), listening on the customer's address with TLS only
 * and on a socket in `run/` (700) where the OS user root is the admin (peer): no admin password exists.
 *
 * Sized for what the customer bought: shared_buffers an eighth of the memory, connections by its vCPUs,
 * few background workers; the write-ahead log (on the host's disk) kept small.
 */
export function instancePostgres(place: InstanceServerPlace): InstanceServer {
  const { log, user, names } = place;
  const paths = placePaths(place);
  const files = {
    data: paths.data,
    socketDir: paths.run,
    pidFile: place.pidFile,
    logFile: place.logFile,
  };
  const disks = databaseDisks({
    root: place.dir,
    engine: 'postgresql',
    serverDir: place.dir,
    user,
    defaultLimitMb: place.limitMb,
    reserve: place.reserve,
    dir: place.disksDir,
    log,
  });
  let pool: pg.Pool | undefined;
  const admin = (): pg.Pool => {
    pool ??= new pg.Pool({
      host: files.socketDir,
      port: place.port,
      user: ADMIN_ROLE,
      database: 'postgres',
      max: 2,
      connectionTimeoutMillis: 3000,
    });
    pool.on('error', (error) => log(`postgresql ${place.id} admin connection: ${error.message}`));
    return pool;
  };
  const tenants = postgresTenants(admin, (tenant) => disks.dataDir(tenant.database));
  const connections = tenantLimits(place.resources).connections;
  const sharedBuffers = shareOf(place.resources, 0.125, 16);
  const variant = {
    name: `postgresql ${place.id}`,
    bindAddress: place.listenAddress,
    args: [
      ...[
        'ssl=on',
        `ssl_cert_file=${paths.cert}`,
        `ssl_key_file=${paths.key}`,
        'ssl_min_protocol_version=TLSv1.2',
        'password_encryption=scram-sha-256',
        'unix_socket_permissions=0700',
        `shared_buffers=${sharedBuffers}MB`,
        `effective_cache_size=${Math.max(64, place.resources.memoryMb / 2)}MB`,
        `max_connections=${connections + 3}`,
        'superuser_reserved_connections=2',
        'max_worker_processes=2',
        'max_parallel_workers=1',
        'max_parallel_workers_per_gather=1',
        'autovacuum_max_workers=1',
        'max_wal_size=256MB',
        'min_wal_size=32MB',
        'huge_pages=off',
        'logging_collector=off',
        'log_min_messages=warning',
        'shared_preload_libraries=',
      ].flatMap((setting) => ['-c', setting]),
    ],
    launch: (command: string, args: string[]) => launchInGroup(user, place.joins, command, args),
  };
  const serverOptions = { port: place.port, variant };

  let supervised: SupervisedProcess | undefined;
  let notifyWatch: NodeJS.Timeout | undefined;

  return {
    async start() {
      if (supervised && supervised.status().state !== 'stopped') return;
      await prepareFolders(place, 'PG_VERSION');
      const hba = path.join(paths.data, 'pg_hba.conf');
      await writeFile(hba, hbaConf(names.database, names.user), { mode: 0o600 });
      await chown(hba, user.uid, user.gid);
      await disks.mountAll();
      await disks.ensure(names.database, place.limitMb);
      supervised = supervisedPostgres(
        files,
        {
          ...serverOptions,
          user,
          ready: async () => {
            await admin().query('SELECT 1');
          },
        },
        log,
      );
      const ours = [`${BIN}/postgres`, ...postgresArgs(files, serverOptions)].join('\0');
      await stopStaleServer(files.pidFile, `-D\0${files.data}\0`, ours, 'SIGINT');
      await supervised.start();
      notifyWatch ??= watchNotifyQueue(admin, log);
    },
    async stop() {
      clearInterval(notifyWatch);
      notifyWatch = undefined;
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
        await tenants.create(tenant, password, limitMb, limits);
      },
    },
    socket: files.socketDir,
    async reloadTls() {
      await admin().query('SELECT pg_reload_conf()');
    },
    async storage(tenant) {
      if (!disks.has(tenant.database)) return undefined;
      const usage = await disks.usage(tenant.database);
      return { usedBytes: usage.usedBytes, limitBytes: usage.limitBytes, full: usage.freeBytes === 0 };
    },
    onStorageLimit() {},
    health: () => healthOf(supervised, () => admin().query('SELECT 1'), place.port),
  };
}
