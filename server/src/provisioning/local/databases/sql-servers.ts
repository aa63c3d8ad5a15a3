import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  type Engines,
  ProvisioningUnavailableError,
  type ServerHealth,
  type StorageLimitEvent,
} from '../../driver.ts';
import { type Capability, unavailable } from '../../instance-types.ts';
import type { CertificateSource } from '../../tls/berth-ca.ts';
import type { ControlGroups } from '../host/control-groups.ts';
import type { DiskReserve } from '../host/disk-reserve.ts';
import { isRoot, makeTraversable, ownedDir } from '../host/host.ts';
import { aptInstallLine, type LocalEngine, missingHostPackages } from '../host/host-packages.ts';
import { disksDir } from '../host/tenant-disks.ts';
import { type DatabaseWebAdmin, databaseEngine } from './database-engines.ts';
import type { EngineServer } from './engine-server.ts';
import { type InstanceServers, instanceServers } from './instance-servers.ts';
import { externalMariaDb, localMariaDb } from './mariadb-server.ts';
import { externalPostgres, localPostgres } from './postgres-server.ts';

type SqlType = 'mysql' | 'postgresql';
const SQL_ENGINES: Record<SqlType, { label: string; local: LocalEngine }> = {
  mysql: { label: 'MySQL', local: 'mariadb' },
  postgresql: { label: 'PostgreSQL', local: 'postgresql' },
};

const DEFAULT_DATABASE_MB = 1024;

/** What the SQL servers are made from (LocalDriverOptions' database settings). */
export interface SqlServerOptions {
  dataRoot: string;
  mysqlAdminUrl?: string;
  postgresAdminUrl?: string;
  publicHost?: string;
  mysqlDiskMb?: number;
  postgresDiskMb?: number;
  /** Where instances' own servers listen for customers; default all interfaces unless publicHost is loopback. */
  listenAddress?: string;
  databaseServers?: 'own' | 'shared';
  /** How often instances' own servers look for a renewed certificate, ms (default hourly). */
  instanceTlsCheckMs?: number;
}

/** The size in a tenant's disk record (database-disk-records.ts), or undefined without one. */
function recordedLimitMb(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const { limitMb } = JSON.parse(readFileSync(file, 'utf8')) as { limitMb?: unknown };
    return typeof limitMb === 'number' && limitMb > 0 ? limitMb : undefined;
  } catch {
    return undefined;
  }
}

/** Whether customers reach `host` on this machine only (a loopback name or address). */
const isLoopbackHost = (host: string) =>
  host === 'localhost' || host === '::1' || host.startsWith('127.') || host.endsWith('.localhost');

/** The MySQL and PostgreSQL halves of the local driver: their servers and the engines over them. */
export interface LocalSqlServers {
  engines: Pick<Engines, SqlType>;
  /** The started server of a type, if any (WordPress sites live on MariaDB's). */
  server(type: SqlType): EngineServer | undefined;
  /** Whether a database instance has a server of its own (else it is a tenant of a shared one). */
  ownsServer(id: string): boolean;
  /** Starts the servers of the types the host can run, side by side; a failure is logged and kept. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Each type's health (`running`: those with a server, which count for the driver's ok), then each
   * instance's own server as `database <id>` (`instances`: for the admin; one tenant's server down does
   * not make the driver's ok false).
   */
  health(): Promise<{
    all: [string, ServerHealth][];
    running: [string, ServerHealth][];
    instances: [string, ServerHealth][];
  }>;
}

/**
 * MySQL and PostgreSQL instances are tenants of a MariaDB and a PostgreSQL 15 server the driver runs
 * itself, supervised, under `dataRoot` (mariadb-server.ts, postgres-server.ts), or of existing servers
 * given by admin URLs (database-engines.ts).
 */
export function localSqlServers(
  options: SqlServerOptions,
  deps: {
    reserve: DiskReserve;
    /** Whether the driver is started (before, a missing server is "setting up"). */
    started(): boolean;
    tellStorage(event: StorageLimitEvent): void;
    /** Instances' own servers run in their control groups, with their certificates. */
    groups: ControlGroups;
    certificates: CertificateSource;
    /** MySQL instances' phpMyAdmin (local/phpmyadmin/), where the driver runs a front door. */
    webAdmin?: DatabaseWebAdmin;
    log: (line: string) => void;
  },
): LocalSqlServers {
  const { reserve, log } = deps;
  const adminUrls: Record<SqlType, string | undefined> = {
    mysql: options.mysqlAdminUrl,
    postgresql: options.postgresAdminUrl,
  };
  let servers: Partial<Record<SqlType, EngineServer>> = {};
  const publicHost = options.publicHost ?? '127.0.0.1';
  // A server of its own per instance needs root (its user, group, disk); not on an operator's server.
  const own: InstanceServers | undefined =
    isRoot() && options.databaseServers !== 'shared'
      ? instanceServers({
          dataRoot: options.dataRoot,
          publicHost,
          listenAddress: options.listenAddress ?? (isLoopbackHost(publicHost) ? '127.0.0.1' : '0.0.0.0'),
          certificates: deps.certificates,
          groups: deps.groups,
          reserve,
          limitMb: {
            mysql: options.mysqlDiskMb ?? DEFAULT_DATABASE_MB,
            postgresql: options.postgresDiskMb ?? DEFAULT_DATABASE_MB,
          },
          tellStorage: deps.tellStorage,
          certificateCheckMs: options.instanceTlsCheckMs,
          log,
        })
      : undefined;
  const startErrors: Partial<Record<SqlType, string>> = {};

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
    server.onStorageLimit?.(deps.tellStorage);
    return server;
  }

  async function sqlCapability(type: SqlType): Promise<Capability> {
    const missing = missingReason(type);
    if (missing) return unavailable.notOffered(type, missing);
    const server = servers[type];
    if (!deps.started() || !server)
      return unavailable.settingUp(type, 'The provisioning driver is not started');
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
      own: adminUrls[type] ? undefined : own,
      webAdmin: deps.webAdmin,
      // The shared server's record of a tenant's disk (database-disks.ts): its data is there.
      sharedLimitMb: adminUrls[type]
        ? undefined
        : (names) => recordedLimitMb(path.join(disksDir(options.dataRoot), type, `${names.database}.json`)),
      movesDir: path.join(options.dataRoot, 'db-moves'),
      log,
    });

  return {
    engines: { mysql: sqlEngine('mysql'), postgresql: sqlEngine('postgresql') },
    server: (type) => servers[type],
    ownsServer: (id) => own?.has(id) ?? false,

    async start() {
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
      await own?.start();
    },

    async stop() {
      await own?.stop();
      await Promise.all(Object.values(servers).map((server) => server.stop()));
      servers = {};
    },

    async health() {
      const all = await Promise.all(
        (Object.keys(SQL_ENGINES) as SqlType[]).map(async (type): Promise<[string, ServerHealth]> => {
          const server = servers[type];
          if (server) return [type, await server.health()];
          return [
            type,
            { kind: 'none', state: 'stopped', ok: false, message: missingReason(type) ?? 'not started' },
          ];
        }),
      );
      const instances = ((await own?.health()) ?? []).map(([id, health]): [string, ServerHealth] => [
        `database ${id}`,
        health,
      ]);
      return { all, running: all.filter(([type]) => servers[type as SqlType]), instances };
    },
  };
}
