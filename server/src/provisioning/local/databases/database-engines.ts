import { ValidationError } from '../../../lib/errors.ts';
import type { DatabaseCredentials, DatabaseSpec, InstanceEngine } from '../../engine.ts';
import type { Capability } from '../../instance-types.ts';
import { checkPassword, generatePassword, tenantNames } from '../../tenant-names.ts';
import { DEFAULT_LIMITS } from '../host/control-groups.ts';
import {
  dumpMysql,
  dumpPostgres,
  loadMysql,
  loadPostgres,
  mysqlTableCount,
  postgresTableCount,
} from './database-dumps.ts';
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

/** The one part of a database instance's backup. */
const DUMP_PART = { mysql: 'dump.sql.gz', postgresql: 'dump.pgdump' } as const;

/**
 * The MySQL and PostgreSQL engines of the local driver. Each instance made since servers per instance
 * (instance-servers.ts, `own`) has a server of its own; an instance made before keeps being a tenant
 * (its own database and user) of the shared server the driver runs for that engine, and every instance
 * is one where there is no `own` (an existing server given by an admin URL, or a driver not run as
 * root). The SQL is in mariadb-tenants.ts and postgres-tenants.ts either way.
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
  /** Whether a new deploy goes to a server of its own: not for a tenant already on the shared server. */
  async function deploysOwn(id: string): Promise<boolean> {
    if (!own) return false;
    if (ownsServer(id)) return true;
    try {
      return !(await deps.server().tenants.exists?.(tenantNames(id)));
    } catch {
      return true; // no shared server: nothing of it there
    }
  }
  const dumps =
    type === 'mysql'
      ? { dump: dumpMysql, load: loadMysql, tables: mysqlTableCount }
      : { dump: dumpPostgres, load: loadPostgres, tables: postgresTableCount };
  /** The tenant's own login on the server itself (dumps run on this host). */
  async function login(spec: DatabaseSpec): Promise<DatabaseCredentials> {
    if (spec.password === undefined) throw new ValidationError('A backup needs the database password');
    const names = tenantNames(spec.id);
    const { host, port } = ownsServer(spec.id) && own ? await own.login(spec.id) : deps.server().endpoint();
    return { host, port, database: names.database, user: names.user, password: spec.password };
  }
  return {
    type,
    capability: deps.capability,
    async deploy(spec) {
      const names = tenantNames(spec.id);
      const password = spec.password === undefined ? generatePassword() : checkPassword(spec.password);
      if (own && (await deploysOwn(spec.id))) {
        const database = await own.deploy(type, spec.id, password, spec.resources);
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
    backups: {
      async dump(spec, archive, progress) {
        const database = await login(spec);
        const tables = await dumps.tables(database);
        progress?.('Dumping the database');
        await dumps.dump(database, archive, DUMP_PART[type]);
        return { tables };
      },
      /** Drops and recreates the database (empty, same login and size), then loads the dump into it. */
      async restore(spec, archive, facts, progress) {
        const database = await login(spec);
        const names = tenantNames(spec.id);
        progress?.('Loading the database');
        await tenantsOf(spec.id).delete(names);
        await tenantsOf(spec.id).create(names, database.password);
        await dumps.load(database, archive, DUMP_PART[type]);
        const tables = await dumps.tables(database);
        if (tables !== facts.tables)
          throw new Error(`Restore incomplete: ${tables} tables, the backup had ${facts.tables}`);
      },
    },
    storage: {
      usage: async (id) =>
        (own && ownsServer(id) ? await own.storage(id) : await deps.server().storage?.(tenantNames(id))) ??
        null,
    },
  };
}
