import path from 'node:path';
import { DEFAULT_REGION } from '@berth/openapi/rules';
import {
  capabilitiesOf,
  type DriverHealth,
  type Engines,
  oneRegion,
  type ProvisioningDriver,
  ProvisioningUnavailableError,
  type ServerHealth,
  type StorageLimitEvent,
  unavailableEngine,
} from '../driver.ts';
import { type Capability, unavailable } from '../instance-types.ts';
import { databaseEngine } from './databases/database-engines.ts';
import type { EngineServer } from './databases/engine-server.ts';
import { externalMariaDb, localMariaDb } from './databases/mariadb-server.ts';
import { externalPostgres, localPostgres } from './databases/postgres-server.ts';
import { accessLogReader } from './front-door/access-log.ts';
import { caddyPaths } from './front-door/caddy.ts';
import { type FrontDoor, frontDoor } from './front-door/front-door.ts';
import { type ControlGroups, hostControlGroups } from './host/control-groups.ts';
import { type DiskReserve, diskReserve } from './host/disk-reserve.ts';
import { makeTraversable, ownedDir } from './host/host.ts';
import { aptInstallLine, type LocalEngine, missingHostPackages } from './host/host-packages.ts';
import { disksDir } from './host/tenant-disks.ts';
import { localN8n } from './n8n/n8n-instances.ts';
import { DEFAULT_RUNTIMES_DIR } from './n8n/n8n-runtime.ts';
import { localUsage } from './usage/local-usage.ts';
import { localSites, type SiteRuntimeOptions } from './wordpress/wordpress-sites.ts';

export interface LocalDriverOptions {
  /** Absolute directory the driver keeps its servers' data, sockets, pid files and logs in. */
  dataRoot: string;
  /** An existing MariaDB/MySQL server (mysql://admin:pw@host:3306) instead of a private one. */
  mysqlAdminUrl?: string;
  /** An existing PostgreSQL server (postgres://admin:pw@host:5432/postgres) instead of a private one. */
  postgresAdminUrl?: string;
  /** A MongoDB server to create MongoDB tenants on; without one MongoDB is unavailable. */
  mongodbAdminUrl?: string;
  /** Host name put in credentials; default the host the server listens on (127.0.0.1 locally). */
  publicHost?: string;
  /**
   * Size of each MySQL / PostgreSQL instance's database on the servers the driver runs (its own disk),
   * MiB; default 1024 each. A changed size applies to new instances.
   */
  mysqlDiskMb?: number;
  postgresDiskMb?: number;
  /**
   * Free space kept for the platform on the file system of `dataRoot` (disk-reserve.ts): no tenant
   * disk is made that could, filled, eat into it. MiB; default 2048.
   */
  diskReserveMb?: number;
  /**
   * Runs the front door (Caddy) and with it WordPress sites (php-fpm, SFTP; see wordpress-sites.ts) and
   * n8n instances; main.ts always passes it. While off, neither is offered and nothing of them starts.
   */
  sites?: SiteRuntimeOptions;
  /**
   * Where the n8n runtime is installed (n8n-runtime.ts); default /var/cache/berth/runtimes. n8n instances
   * need the site runtime (its front door) too.
   */
  runtimesDir?: string;
  /** The one region this host serves (an id of REGIONS); default the first of the list, us-east-1. */
  region?: string;
  /** n8n instances: each one's disk size (MiB) and the private ranges they may reach. */
  n8n?: { diskMb?: number; egressAllow?: readonly string[] };
  /**
   * The folder of the instances' control groups in each hierarchy (host/control-groups.ts); default
   * `berth` (/sys/fs/cgroup/berth on v2). Tests give one of their own.
   */
  cgroupParent?: string;
  log?: (line: string) => void;
}

const DEFAULT_DATABASE_MB = 1024;
const DEFAULT_DISK_RESERVE_MB = 2048;

export const MONGODB_UNAVAILABLE =
  'MongoDB needs MONGODB_ADMIN_URL (no MongoDB server is available on this host)';
export const NO_FRONT_DOOR = 'The front door is turned off (the local driver was given no sites options)';
const MONGODB_DRIVER_MISSING = 'MongoDB tenants need the mongodb npm package, which is not installed yet';

type SqlType = 'mysql' | 'postgresql';
const SQL_ENGINES: Record<SqlType, { label: string; local: LocalEngine }> = {
  mysql: { label: 'MySQL', local: 'mariadb' },
  postgresql: { label: 'PostgreSQL', local: 'postgresql' },
};

/**
 * The local driver: every instance type runs on this host, each by its engine.
 * - MySQL and PostgreSQL instances are tenants of a MariaDB and a PostgreSQL 15 server the driver runs
 *   itself, supervised, under `dataRoot` (mariadb-server.ts, postgres-server.ts, supervisor.ts), or of
 *   existing servers given by admin URLs (database-engines.ts);
 * - the front door (Caddy, front-door.ts) is the driver's: it hands it to the WordPress engine
 *   (wordpress-sites.ts) and the n8n engine (n8n-instances.ts), which each add their routes to it;
 * - MongoDB is unavailable (no server on this host).
 * It serves one region, named by the operator.
 */
export function createLocalDriver(options: LocalDriverOptions): ProvisioningDriver {
  const log = options.log ?? (() => {});
  // Every tenant disk (sites, databases, n8n instances) is made only when the host can hold it filled.
  const reserve: DiskReserve = diskReserve(
    disksDir(options.dataRoot),
    options.diskReserveMb ?? DEFAULT_DISK_RESERVE_MB,
    log,
  );
  // Each site's and n8n instance's memory and CPU, enforced by the kernel (v2 or v1, as the host mounts).
  const groups: ControlGroups = hostControlGroups(options.cgroupParent ?? 'berth');
  const storageListeners: ((event: StorageLimitEvent) => void)[] = [];
  const tellStorage = (event: StorageLimitEvent) => {
    for (const listener of storageListeners) listener(event);
  };
  const adminUrls: Record<SqlType, string | undefined> = {
    mysql: options.mysqlAdminUrl,
    postgresql: options.postgresAdminUrl,
  };
  let servers: Partial<Record<SqlType, EngineServer>> = {};
  const startErrors: Partial<Record<SqlType, string>> = {};
  let started = false;

  const door: FrontDoor | undefined = options.sites
    ? frontDoor(
        options.dataRoot,
        {
          baseDomain: options.sites.baseDomain ?? 'localhost',
          listenHost: options.sites.listenHost ?? '127.0.0.1',
          httpPort: options.sites.httpPort,
          httpsPort: options.sites.httpsPort,
          tls: options.sites.tls ?? { issuer: 'internal' },
        },
        log,
      )
    : undefined;
  const sites = door
    ? localSites(
        options.dataRoot,
        options.sites ?? {},
        { mariadb: () => servers.mysql, reserve, publicHost: options.publicHost, front: door, groups },
        log,
      )
    : undefined;
  const n8n = door
    ? localN8n(
        options.dataRoot,
        {
          runtimesDir: options.runtimesDir ?? DEFAULT_RUNTIMES_DIR,
          baseDomain: options.sites?.baseDomain ?? 'localhost',
          diskMb: options.n8n?.diskMb,
          egressAllow: options.n8n?.egressAllow,
          reserve,
          groups,
        },
        door,
        log,
      )
    : undefined;

  /** Why the engine cannot run on this host at all (missing Debian package), if so. */
  function missingReason(type: SqlType): string | undefined {
    if (adminUrls[type]) return undefined;
    const missing = missingHostPackages([SQL_ENGINES[type].local]);
    if (missing.length === 0) return undefined;
    return `${SQL_ENGINES[type].label} needs the host package ${missing.join(' ')}: ${aptInstallLine(missing)}`;
  }

  function createServer(type: SqlType): EngineServer {
    const url = adminUrls[type];
    const limits = (tenantLimitMb: number) => ({ tenantLimitMb, reserve, log });
    const server =
      type === 'mysql'
        ? url
          ? externalMariaDb(url)
          : localMariaDb(options.dataRoot, limits(options.mysqlDiskMb ?? DEFAULT_DATABASE_MB))
        : url
          ? externalPostgres(url, log)
          : localPostgres(options.dataRoot, limits(options.postgresDiskMb ?? DEFAULT_DATABASE_MB));
    server.onStorageLimit?.(tellStorage);
    return server;
  }

  async function sqlCapability(type: SqlType): Promise<Capability> {
    const missing = missingReason(type);
    if (missing) return unavailable.notOffered(type, missing);
    const server = servers[type];
    if (!started || !server) return unavailable.settingUp(type, 'The provisioning driver is not started');
    const health = await server.health();
    if (health.ok) return { available: true };
    const why = health.message ?? startErrors[type];
    return unavailable.down(
      type,
      `The ${SQL_ENGINES[type].label} server is not running${why ? `: ${why}` : ''}`,
    );
  }

  /** The started server of a SQL type, or an unavailable error saying why there is none. */
  function serverFor(type: SqlType): EngineServer {
    const server = servers[type];
    if (!server) {
      const missing = missingReason(type);
      throw new ProvisioningUnavailableError(
        type,
        missing
          ? unavailable.notOffered(type, missing)
          : unavailable.settingUp(type, 'The driver is not started'),
      );
    }
    return server;
  }

  const sqlEngine = (type: SqlType) =>
    databaseEngine(type, {
      server: () => serverFor(type),
      capability: () => sqlCapability(type),
      publicHost: options.publicHost,
    });
  const engines: Engines = {
    mysql: sqlEngine('mysql'),
    postgresql: sqlEngine('postgresql'),
    mongodb: unavailableEngine('mongodb', () =>
      unavailable.notOffered(
        'mongodb',
        options.mongodbAdminUrl ? MONGODB_DRIVER_MISSING : MONGODB_UNAVAILABLE,
      ),
    ),
    wordpress:
      sites?.engine ??
      unavailableEngine('wordpress', () => unavailable.notOffered('wordpress', NO_FRONT_DOOR)),
    n8n: n8n?.engine ?? unavailableEngine('n8n', () => unavailable.notOffered('n8n', NO_FRONT_DOOR)),
  };

  /** The database servers each engine uses (those of types the host can run), started side by side. */
  async function startServers(): Promise<void> {
    const types = (Object.keys(SQL_ENGINES) as SqlType[]).filter((type) => {
      const missing = missingReason(type);
      if (missing) log(missing);
      return !missing;
    });
    if (types.some((type) => !adminUrls[type])) {
      await makeTraversable(options.dataRoot);
      await ownedDir(path.join(options.dataRoot, 'run'), undefined, 0o755);
      await ownedDir(path.join(options.dataRoot, 'logs'), undefined, 0o750);
    }
    servers = Object.fromEntries(types.map((type) => [type, createServer(type)]));
    await Promise.all(
      types.map(async (type) => {
        try {
          await servers[type]?.start();
          delete startErrors[type];
        } catch (error) {
          startErrors[type] = (error as Error).message;
          log(`${SQL_ENGINES[type].label} server did not start: ${startErrors[type]}`);
        }
      }),
    );
  }

  /** The front door, once the sites it serves are back (their disks mounted, their PHP running). */
  async function startFrontDoor(): Promise<void> {
    if (!door) return;
    try {
      await door.preparePorts();
      await sites?.start();
      await door.start();
    } catch (error) {
      // The raw error (paths, program output) is for the log; capabilities say the door is down.
      log(`the front door (Caddy) did not start: ${(error as Error).message}`);
    }
  }

  // What instances use (driver.usage): control groups, disks, and the front door's access log.
  const accessLog = door ? accessLogReader(caddyPaths(options.dataRoot).accessLog) : undefined;
  const usage = localUsage({ groups, engines, accessLog, dataRoot: options.dataRoot });

  return {
    usage,
    engine: (type) => engines[type],
    capabilities: () => capabilitiesOf(engines),
    regions: async () => oneRegion(options.region ?? DEFAULT_REGION),

    onStorageLimit(listener) {
      storageListeners.push(listener);
      return () => {
        const at = storageListeners.indexOf(listener);
        if (at >= 0) storageListeners.splice(at, 1);
      };
    },

    /** Starts what it can; an engine that fails is logged and reported by capabilities() and health(). */
    async start() {
      if (started) return;
      log(`control groups: ${groups.summary}`);
      await startServers();
      // Sites need MariaDB up first; n8n instances come back behind the front door.
      await startFrontDoor();
      await n8n?.start();
      started = true;
    },

    async stop() {
      started = false;
      // n8n and sites first (SFTP, Caddy, php-fpm), the database servers last.
      await n8n?.stop();
      await sites?.stop();
      await door?.stop();
      await accessLog?.close();
      await Promise.all(Object.values(servers).map((server) => server.stop()));
      servers = {};
    },

    async health(): Promise<DriverHealth> {
      const entries = await Promise.all(
        (Object.keys(SQL_ENGINES) as SqlType[]).map(async (type): Promise<[string, ServerHealth]> => {
          const server = servers[type];
          if (server) return [type, await server.health()];
          return [
            type,
            { kind: 'none', state: 'stopped', ok: false, message: missingReason(type) ?? 'not started' },
          ];
        }),
      );
      const running = entries.filter(([type]) => servers[type as SqlType]);
      const caddy = await door?.health();
      const appServers: [string, ServerHealth][] = [
        ...(caddy ? [['caddy', caddy] as [string, ServerHealth]] : []),
        ...(sites ? Object.entries(await sites.health()) : []),
        ...(n8n ? Object.entries(await n8n.health()) : []),
      ];
      return {
        ok: started && [...running, ...appServers].every(([, health]) => health.ok),
        servers: Object.fromEntries([...entries, ...appServers]),
      };
    },
  };
}
