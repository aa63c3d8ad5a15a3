import path from 'node:path';
import { DEFAULT_REGION } from '@berth/openapi/rules';
import { DEFAULT_RUNTIMES_DIR } from '../apps/n8n/n8n-runtime.ts';
import { DEFAULT_DISK_OVERCOMMIT, storageReport } from '../disk-policy.ts';
import {
  capabilitiesOf,
  type DriverHealth,
  type Engines,
  oneRegion,
  type ProvisioningDriver,
  type ServerHealth,
  type StorageLimitEvent,
  unavailableEngine,
} from '../driver.ts';
import { unavailable } from '../instance-types.ts';
import {
  berthCertificates,
  type CertificateSource,
  certificateNames,
  operatorCertificate,
} from '../tls/berth-ca.ts';
import { databaseImageMb } from './databases/database-disks.ts';
import type { EngineServer } from './databases/engine-server.ts';
import { localSqlServers } from './databases/sql-servers.ts';
import { accessLogReader } from './front-door/access-log.ts';
import { caddyPaths } from './front-door/caddy.ts';
import { type FrontDoor, frontDoor } from './front-door/front-door.ts';
import { type ControlGroups, hostControlGroups } from './host/control-groups.ts';
import { type DiskReserve, diskReserve } from './host/disk-reserve.ts';
import { isRoot } from './host/host.ts';
import { disksDir } from './host/tenant-disks.ts';
import { type LocalN8n, localN8n } from './n8n/n8n-instances.ts';
import { localPhpMyAdmin } from './phpmyadmin/phpmyadmin-instances.ts';
import { localUsage } from './usage/local-usage.ts';
import {
  DEFAULT_SITE_DATABASE_MB,
  DEFAULT_SITE_DISK_MB,
  type LocalSites,
  localSites,
  type SiteRuntimeOptions,
} from './wordpress/wordpress-sites.ts';

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
   * Where database instances' own servers listen (INSTANCE_LISTEN_ADDRESS); default 0.0.0.0 unless
   * `publicHost` is a loopback name or address (then 127.0.0.1).
   */
  listenAddress?: string;
  /**
   * `own` (default, as root): each new MySQL and PostgreSQL instance gets a server of its own
   * (databases/instance-servers.ts); `shared`: every one is a tenant of the shared server, as instances
   * made before were (tests of the shared servers, which WordPress sites' databases still use).
   */
  databaseServers?: 'own' | 'shared';
  /**
   * The certificate and key those servers present (INSTANCE_TLS_CERT_FILE / _KEY_FILE, e.g. ACME's);
   * default one Berth's own CA issues for `publicHost` (its CA under `<dataRoot>/tls`).
   */
  instanceTls?: { certFile: string; keyFile: string };
  /** How often those servers look for a renewed certificate, ms; default hourly. Tests give less. */
  instanceTlsCheckMs?: number;
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
   * How much more than it has the host may promise its tenants' disks (disk-policy.ts): promised ÷ real
   * space for tenants; default DEFAULT_DISK_OVERCOMMIT (the hold keeps the reserve whole at any ratio).
   */
  diskOvercommit?: number;
  /**
   * For measurement only (`npm run bench:density`, DENSITY_HOLD=off): false leaves tenants' disks
   * unheld, so more may be promised than the host can deal out for growth. No operator setting reaches
   * it: main.ts never passes it, and the hold keeps the reserve the platform's.
   */
  diskHold?: boolean;
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
  /** The one region this host serves (LOCAL_REGION, an id of REGIONS); default us-east-1. */
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

const DEFAULT_DISK_RESERVE_MB = 2048;
const MIB = 1024 * 1024;

export const MONGODB_UNAVAILABLE =
  'MongoDB needs MONGODB_ADMIN_URL (no MongoDB server is available on this host)';
export const NO_FRONT_DOOR = 'The front door is turned off (the local driver was given no sites options)';
const MONGODB_DRIVER_MISSING = 'MongoDB tenants need the mongodb npm package, which is not installed yet';

/** The front door (Caddy) of WordPress sites, n8n instances and phpMyAdmin; none without sites options. */
function frontDoorOf(options: LocalDriverOptions, log: (line: string) => void): FrontDoor | undefined {
  if (!options.sites) return undefined;
  return frontDoor(
    options.dataRoot,
    {
      baseDomain: options.sites.baseDomain ?? 'localhost',
      listenHost: options.sites.listenHost ?? '127.0.0.1',
      httpPort: options.sites.httpPort,
      httpsPort: options.sites.httpsPort,
      tls: options.sites.tls ?? { issuer: 'internal' },
    },
    log,
  );
}

/** The engines behind the front door, WordPress sites and n8n instances; none without it. */
function frontDoorApps(
  options: LocalDriverOptions,
  door: FrontDoor | undefined,
  deps: { mariadb: () => EngineServer | undefined; reserve: DiskReserve; groups: ControlGroups },
  log: (line: string) => void,
): { sites?: LocalSites; n8n?: LocalN8n } {
  if (!door) return {};
  const { reserve, groups } = deps;
  const sites = localSites(
    options.dataRoot,
    options.sites ?? {},
    { mariadb: deps.mariadb, reserve, publicHost: options.publicHost, front: door, groups },
    log,
  );
  const n8n = localN8n(
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
  );
  return { sites, n8n };
}

/**
 * The local driver: every instance type runs on this host, each by its engine.
 * - MySQL and PostgreSQL instances are tenants of a MariaDB and a PostgreSQL 15 server the driver runs
 *   itself, supervised, under `dataRoot` (databases/sql-servers.ts, mariadb-server.ts, postgres-server.ts,
 *   supervisor.ts), or of existing servers given by admin URLs (database-engines.ts);
 * - the front door (Caddy, front-door.ts) is the driver's: it hands it to the WordPress engine
 *   (wordpress-sites.ts) and the n8n engine (n8n-instances.ts), which each add their routes to it;
 * - MongoDB is unavailable (no server on this host).
 * It serves one region, named by the operator (LOCAL_REGION).
 */
export function createLocalDriver(options: LocalDriverOptions): ProvisioningDriver {
  const log = options.log ?? (() => {});
  // Every tenant disk (sites, databases, n8n instances) is made only when the host can hold it filled.
  const reserve: DiskReserve = diskReserve(
    disksDir(options.dataRoot),
    {
      reserveMb: options.diskReserveMb ?? DEFAULT_DISK_RESERVE_MB,
      overcommit: options.diskOvercommit ?? DEFAULT_DISK_OVERCOMMIT,
    },
    log,
  );
  // Each site's and n8n instance's memory and CPU, enforced by the kernel (v2 or v1, as the host mounts).
  const groups: ControlGroups = hostControlGroups(options.cgroupParent ?? 'berth');
  const storageListeners: ((event: StorageLimitEvent) => void)[] = [];
  const tellStorage = (event: StorageLimitEvent) => {
    for (const listener of storageListeners) listener(event);
  };
  let started = false;
  // Database instances' own servers speak TLS: Berth's CA, or the operator's certificate (ACME).
  const certificates: CertificateSource = options.instanceTls
    ? operatorCertificate(options.instanceTls)
    : berthCertificates(
        path.join(options.dataRoot, 'tls'),
        certificateNames(options.publicHost ?? '127.0.0.1'),
      );
  const door = frontDoorOf(options, log);
  // MySQL instances with a server of their own get a phpMyAdmin behind the front door (as root only).
  const pma = door && isRoot() ? localPhpMyAdmin(options.dataRoot, { door, groups, log }) : undefined;
  const sql = localSqlServers(options, {
    reserve,
    started: () => started,
    tellStorage,
    groups,
    certificates,
    webAdmin: pma?.webAdmin,
    log,
  });
  const { sites, n8n } = frontDoorApps(
    options,
    door,
    { mariadb: () => sql.server('mysql'), reserve, groups },
    log,
  );

  const engines: Engines = {
    ...sql.engines,
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

  /** The front door, once the sites it serves are back (their disks mounted, their PHP running). */
  async function startFrontDoor(): Promise<void> {
    if (!door) return;
    try {
      await door.preparePorts();
      await sites?.start();
      await pma?.start();
      await door.start();
    } catch (error) {
      // The raw error (paths, program output) is for the log; capabilities say the door is down.
      log(`the front door (Caddy) did not start: ${(error as Error).message}`);
    }
  }

  // What one more site promises: its disk and its database's (on MariaDB, with the guard's slack).
  const aSite = {
    promisedBytes:
      ((options.sites?.diskMb ?? DEFAULT_SITE_DISK_MB) +
        databaseImageMb('mysql', options.sites?.databaseMb ?? DEFAULT_SITE_DATABASE_MB)) *
      MIB,
    disks: 2,
  };
  // What instances use (driver.usage): control groups, disks, and the front door's access log.
  const accessLog = door ? accessLogReader(caddyPaths(options.dataRoot).accessLog) : undefined;
  const usage = localUsage({
    groups,
    engines,
    accessLog,
    dataRoot: options.dataRoot,
    storage: async () =>
      storageReport(await reserve.figures(), reserve.policy, aSite, reserve.holdAllowance()),
    ownsDatabaseServer: (id) => sql.ownsServer(id),
  });

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
      await sql.start();
      // Sites need MariaDB up first; n8n instances come back behind the front door.
      await startFrontDoor();
      await n8n?.start();
      // Above DISK_OVERCOMMIT 1, tenants' disks together are held out of the reserve (disk-reserve.ts).
      if (options.diskHold !== false) reserve.start();
      started = true;
    },

    async stop() {
      started = false;
      reserve.stop();
      // n8n and sites first (SFTP, Caddy, php-fpm), the database servers last.
      await n8n?.stop();
      await sites?.stop();
      await pma?.stop();
      await door?.stop();
      await accessLog?.close();
      await sql.stop();
    },

    async health(): Promise<DriverHealth> {
      const { all, running, instances } = await sql.health();
      const caddy = await door?.health();
      const appServers: [string, ServerHealth][] = [
        ...(caddy ? [['caddy', caddy] as [string, ServerHealth]] : []),
        ...(sites ? Object.entries(await sites.health()) : []),
        ...(n8n ? Object.entries(await n8n.health()) : []),
      ];
      // Database instances' own servers and their phpMyAdmin: each one tenant's, shown to the admin.
      const tenantServers = [...instances, ...(pma ? Object.entries(await pma.health()) : [])];
      return {
        ok: started && [...running, ...appServers].every(([, health]) => health.ok),
        servers: Object.fromEntries([...all, ...appServers, ...tenantServers]),
      };
    },
  };
}
