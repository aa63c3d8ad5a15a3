import path from 'node:path';
import { ValidationError } from '../../../lib/errors.ts';
import {
  dumpMysql,
  dumpPostgres,
  loadMysql,
  loadPostgres,
  mysqlTableCount,
  postgresTableCount,
} from '../../database-dumps.ts';
import {
  type DatabaseCredentials,
  type DatabaseSpec,
  featuresOf,
  type InstanceEngine,
  NO_DATABASE_ADMIN,
} from '../../engine.ts';
import type { Capability } from '../../instance-types.ts';
import { SQL_BACKUP_PART, sqlBackups } from '../../sql-backups.ts';
import { checkPassword, generatePassword, type TenantNames, tenantNames } from '../../tenant-names.ts';
import { DEFAULT_LIMITS } from '../host/control-groups.ts';
import { copyDatabase } from './database-moves.ts';
import type { EngineServer, TenantOps } from './engine-server.ts';
import type { InstanceServers } from './instance-servers.ts';
import { tenantLimits } from './tenant-limits.ts';

/**
 * A web page administering one MySQL instance with a server of its own (phpMyAdmin,
 * local/phpmyadmin/), kept in step with the instance: made at its deploy, stopped while it is
 * suspended, removed with it.
 */
export interface DatabaseWebAdmin {
  /** Why it cannot run on this host (for the log), if so: instances then have none. */
  unavailable(): string | undefined;
  /** Makes (or brings back) the instance's page reaching its server at `port`; answers its address. */
  deploy(id: string, server: { port: number; caPem: string | null }): Promise<string>;
  suspend(id: string): Promise<void>;
  resume(id: string): Promise<void>;
  delete(id: string): Promise<void>;
}

/**
 * The MySQL and PostgreSQL engines of the local driver. Where there is `own` (instance-servers.ts),
 * every instance has a server of its own: a new one from its first deploy, one made before (a tenant
 * of the shared server the driver runs for that engine) from its next deploy, which moves its data
 * there (moveToOwn). Where there is none (an existing server given by an admin URL, or a driver not run
 * as root, or `databaseServers: 'shared'`) every instance is a tenant of that shared server. The SQL
 * is in mariadb-tenants.ts and postgres-tenants.ts either way.
 */
export function databaseEngine(
  type: 'mysql' | 'postgresql',
  deps: {
    /** The started server, or why there is none (a ProvisioningUnavailableError). */
    server(): EngineServer;
    capability(): Promise<Capability>;
    /** Host name put in credentials instead of the server's own. */
    publicHost: string | undefined;
    /** Servers of their own for the instances (absent: every instance is a tenant of `server`). */
    own?: InstanceServers;
    /** MySQL: the web admin of instances with a server of their own (phpMyAdmin), where the driver has one. */
    webAdmin?: DatabaseWebAdmin;
    /**
     * The size of the tenant's disk on the shared server the driver runs, from its record
     * (database-disks.ts); undefined when it has none there.
     */
    sharedLimitMb?: (names: TenantNames) => number | undefined;
    /** Where a move from the shared server keeps its dump meanwhile (root's). */
    movesDir?: string;
    log?: (line: string) => void;
  },
): InstanceEngine<DatabaseSpec> {
  const { own } = deps;
  const webAdmin = type === 'mysql' ? deps.webAdmin : undefined;
  /** The instance's web admin (its address), or null where there is none; a failure is logged, not fatal. */
  async function webAdminOf(id: string, server: { port: number; caPem: string | null }) {
    if (!webAdmin) return null;
    const missing = webAdmin.unavailable();
    if (missing) {
      deps.log?.(`phpMyAdmin of ${id} not made: ${missing}`);
      return null;
    }
    try {
      return await webAdmin.deploy(id, server);
    } catch (error) {
      deps.log?.(`phpMyAdmin of ${id} did not start: ${(error as Error).message}`);
      return null;
    }
  }
  /** Runs `step` on the web admin of an instance with a server of its own (MySQL only). */
  const onWebAdmin = async (id: string, step: (admin: DatabaseWebAdmin) => Promise<void>) => {
    if (webAdmin && ownsServer(id) && !webAdmin.unavailable()) await step(webAdmin);
  };
  const ownsServer = (id: string) => own?.has(id) ?? false;
  /** The tenant operations for the instance: on its own server, else on the shared one. */
  const tenantsOf = (id: string): TenantOps =>
    own && ownsServer(id) ? own.tenants(id) : deps.server().tenants;
  /**
   * Whether the instance is a tenant of the shared server (made before servers per instance). When that
   * server is not running, its disk record answers: such an instance waits for it (its data is there)
   * rather than get an empty server of its own.
   */
  async function onSharedServer(id: string): Promise<boolean> {
    const names = tenantNames(id);
    try {
      return (await deps.server().tenants.exists?.(names)) ?? false;
    } catch (error) {
      if (deps.sharedLimitMb?.(names) === undefined) return false; // no shared server, nothing of it there
      throw new Error(
        `Its data is on the shared ${type} server, which is not running (${(error as Error).message}); it moves to a server of its own once that server answers`,
      );
    }
  }
  const dumps =
    type === 'mysql'
      ? { dump: dumpMysql, load: loadMysql, tables: mysqlTableCount }
      : { dump: dumpPostgres, load: loadPostgres, tables: postgresTableCount };
  /**
   * Moves a tenant of the shared server onto a server of its own, keeping its id, user, database name
   * and password (its port changes: the credentials say so). Its new server is made (its database as
   * large as it was on the shared one) with a password only this move knows, so nothing reaches it before its data;
   * the shared tenant is unlocked and given another such password (its sessions end, nothing writes
   * meanwhile); the database is dumped there and loaded here, each side as the tenant; then the new
   * server takes the customer's password and the shared tenant is deleted. A move cut short leaves the
   * shared tenant whole and the new server marked as moving: the next deploy starts it over.
   */
  async function moveToOwn(spec: DatabaseSpec, password: string, servers: InstanceServers, movesDir: string) {
    const names = tenantNames(spec.id);
    const shared = deps.server();
    const limitMb = deps.sharedLimitMb?.(names);
    const limits = tenantLimits(spec.resources ?? DEFAULT_LIMITS);
    const loadPassword = generatePassword();
    await servers.deploy(type, spec.id, loadPassword, spec.resources, { limitMb, moving: true });
    const dumpPassword = generatePassword();
    await shared.tenants.resume(names);
    await shared.tenants.setPassword(names, dumpPassword);
    const ownTenants = servers.tenants(spec.id);
    await ownTenants.delete(names);
    await ownTenants.create(names, loadPassword, limitMb, limits);
    const login = { database: names.database, user: names.user };
    const { tables } = await copyDatabase(
      dumps,
      { ...shared.endpoint(), ...login, password: dumpPassword },
      { ...(await servers.login(spec.id)), ...login, password: loadPassword },
      { dir: path.join(movesDir, spec.id), part: SQL_BACKUP_PART[type] },
    );
    const credentials = await servers.deploy(type, spec.id, password, spec.resources);
    await shared.tenants.delete(names);
    deps.log?.(
      `${type} instance ${spec.id} moved from the shared server to a server of its own (port ${credentials.port}, ${tables} tables)`,
    );
    return credentials;
  }

  /** The tenant's own login on the server itself (dumps run on this host). */
  async function login(spec: DatabaseSpec): Promise<DatabaseCredentials> {
    if (spec.password === undefined) throw new ValidationError('A backup needs the database password');
    const names = tenantNames(spec.id);
    const { host, port } = ownsServer(spec.id) && own ? await own.login(spec.id) : deps.server().endpoint();
    return { host, port, database: names.database, user: names.user, password: spec.password };
  }
  return {
    type,
    // phpMyAdmin (MySQL) where the host has it and instances have servers of their own.
    get features() {
      const admin = type === 'mysql' && own && webAdmin && !webAdmin.unavailable();
      return featuresOf(type, admin ? {} : { databaseAdmin: NO_DATABASE_ADMIN });
    },
    capability: deps.capability,
    async deploy(spec) {
      const names = tenantNames(spec.id);
      const password = spec.password === undefined ? generatePassword() : checkPassword(spec.password);
      if (own) {
        // A tenant of the shared server (made before servers per instance), or one whose move was cut
        // short, moves onto a server of its own; every other instance has (or gets) one.
        const moves =
          (await own.moving(spec.id)) || (!ownsServer(spec.id) && (await onSharedServer(spec.id)));
        const database =
          moves && deps.movesDir
            ? await moveToOwn(spec, password, own, deps.movesDir)
            : await own.deploy(type, spec.id, password, spec.resources);
        const phpmyadmin = await webAdminOf(spec.id, { port: database.port, caPem: database.tls.caPem });
        return { database: { ...database, phpmyadmin } };
      }
      const server = deps.server();
      await server.tenants.create(names, password, undefined, tenantLimits(spec.resources ?? DEFAULT_LIMITS));
      const { host, port } = server.endpoint();
      return {
        database: {
          host: deps.publicHost ?? host,
          port,
          database: names.database,
          user: names.user,
          password,
        },
      };
    },
    async delete(id) {
      if (!own || !ownsServer(id)) return tenantsOf(id).delete(tenantNames(id));
      await webAdmin?.delete(id);
      await own.delete(id);
    },
    async suspend(id) {
      await tenantsOf(id).suspend(tenantNames(id));
      await onWebAdmin(id, (admin) => admin.suspend(id));
    },
    async resume(id) {
      await tenantsOf(id).resume(tenantNames(id));
      await onWebAdmin(id, (admin) => admin.resume(id));
    },
    password: {
      change: (id, password) => tenantsOf(id).setPassword(tenantNames(id), checkPassword(password)),
    },
    // Dumps, loads and counts as the tenant, as on every driver; a restore drops and makes the database
    // again (empty, the same login and size) where it lives.
    backups: sqlBackups(type, {
      login,
      async recreate(spec) {
        const names = tenantNames(spec.id);
        if (spec.password === undefined) throw new ValidationError('A restore needs the database password');
        await tenantsOf(spec.id).delete(names);
        await tenantsOf(spec.id).create(names, spec.password);
      },
    }),
    storage: {
      usage: async (id) =>
        (own && ownsServer(id) ? await own.storage(id) : await deps.server().storage?.(tenantNames(id))) ??
        null,
    },
  };
}
