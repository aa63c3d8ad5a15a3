import type { ServerHealth, StorageLimitEvent } from '../../driver.ts';
import type { StorageUse } from '../../engine.ts';
import type { TenantNames } from '../../tenant-names.ts';
import type { DiskReserve } from '../host/disk-reserve.ts';
import type { TenantLimits } from './tenant-limits.ts';

/** What the local MariaDB and PostgreSQL servers are made with (mariadb-server.ts, postgres-server.ts). */
export interface LocalDatabaseServerOptions {
  /** Size of a tenant's database when its deploy names none, MiB (MYSQL_DISK_MB, POSTGRES_DISK_MB). */
  tenantLimitMb: number;
  /** Refuses tenant disks the host cannot hold (disk-reserve.ts). */
  reserve?: DiskReserve;
  log: (line: string) => void;
}

/** The tenant operations of one engine (SQL in mariadb-tenants.ts / postgres-tenants.ts). */
export interface TenantOps {
  /**
   * Creates the tenant, or completes it and sets `password` when it exists. `limitMb`: the size of a new
   * tenant's database where the server enforces one (the servers the driver runs: database-disks.ts);
   * default the server's own default. An existing tenant keeps its size. `limits`: what the engine bounds
   * per tenant (tenant-limits.ts), set again on every call; default those of the default resources.
   */
  create(names: TenantNames, password: string, limitMb?: number, limits?: TenantLimits): Promise<void>;
  delete(names: TenantNames): Promise<void>;
  suspend(names: TenantNames): Promise<void>;
  resume(names: TenantNames): Promise<void>;
  setPassword(names: TenantNames, password: string): Promise<void>;
  /** Whether the tenant's login exists on this server. */
  exists?(names: TenantNames): Promise<boolean>;
}

/**
 * One database server the local driver provisions tenants on: either a server it runs itself or an
 * existing one given by an admin URL (mariadb-server.ts, postgres-server.ts). `tenants` and
 * `endpoint()` are usable once `start()` has resolved.
 */
export interface EngineServer {
  start(): Promise<void>;
  stop(): Promise<void>;
  tenants: TenantOps;
  /** Where tenants connect. */
  endpoint(): { host: string; port: number };
  /**
   * The server's unix socket on this host, when it is one the driver runs (site sandboxes have no
   * network: the socket is how their PHP reaches the database); undefined for an external server.
   */
  socket?: string;
  health(): Promise<ServerHealth>;
  /**
   * How much of its size a tenant's database uses; absent where the server enforces no size (an
   * external server), undefined for a tenant without a disk (made before tenants had one).
   */
  storage?(names: TenantNames): Promise<StorageUse | undefined>;
  /** Hears tenants reach their size limit and leave it (where a guard refuses their writes: MariaDB). */
  onStorageLimit?(listener: (event: StorageLimitEvent) => void): void;
}
