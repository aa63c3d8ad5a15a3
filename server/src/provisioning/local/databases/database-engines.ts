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
import { checkPassword, generatePassword, tenantNames } from '../../tenant-names.ts';
import { DEFAULT_LIMITS } from '../host/control-groups.ts';
import type { EngineServer } from './engine-server.ts';
import { tenantLimits } from './tenant-limits.ts';

/** The one part of a database instance's backup. */
const DUMP_PART = { mysql: 'dump.sql.gz', postgresql: 'dump.pgdump' } as const;

/**
 * The MySQL and PostgreSQL engines of the local driver: each instance is a tenant (its own database and
 * user) of the server the driver runs for that engine (or an existing one given by an admin URL); the
 * SQL is in mariadb-tenants.ts and postgres-tenants.ts.
 */
export function databaseEngine(
  type: 'mysql' | 'postgresql',
  deps: {
    /** The started server, or why there is none (a ProvisioningUnavailableError). */
    server(): EngineServer;
    capability(): Promise<Capability>;
    /** Host name put in credentials instead of the server's own. */
    publicHost: string | undefined;
  },
): InstanceEngine<DatabaseSpec> {
  const tenants = () => deps.server().tenants;
  const dumps =
    type === 'mysql'
      ? { dump: dumpMysql, load: loadMysql, tables: mysqlTableCount }
      : { dump: dumpPostgres, load: loadPostgres, tables: postgresTableCount };
  /** The tenant's own login on the server itself (dumps run on this host). */
  function login(spec: DatabaseSpec): DatabaseCredentials {
    if (spec.password === undefined) throw new ValidationError('A backup needs the database password');
    const names = tenantNames(spec.id);
    const { host, port } = deps.server().endpoint();
    return { host, port, database: names.database, user: names.user, password: spec.password };
  }
  return {
    type,
    features: featuresOf(type, { databaseAdmin: NO_DATABASE_ADMIN }),
    capability: deps.capability,
    async deploy(spec) {
      const names = tenantNames(spec.id);
      const password = spec.password === undefined ? generatePassword() : checkPassword(spec.password);
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
    delete: (id) => tenants().delete(tenantNames(id)),
    suspend: (id) => tenants().suspend(tenantNames(id)),
    resume: (id) => tenants().resume(tenantNames(id)),
    password: { change: (id, password) => tenants().setPassword(tenantNames(id), checkPassword(password)) },
    backups: {
      async dump(spec, archive, progress) {
        const database = login(spec);
        const tables = await dumps.tables(database);
        progress?.('Dumping the database');
        await dumps.dump(database, archive, DUMP_PART[type]);
        return { tables };
      },
      /** Drops and recreates the database (empty, same login and size), then loads the dump into it. */
      async restore(spec, archive, facts, progress) {
        const database = login(spec);
        const names = tenantNames(spec.id);
        progress?.('Loading the database');
        await tenants().delete(names);
        await tenants().create(names, database.password);
        await dumps.load(database, archive, DUMP_PART[type]);
        const tables = await dumps.tables(database);
        if (tables !== facts.tables)
          throw new Error(`Restore incomplete: ${tables} tables, the backup had ${facts.tables}`);
      },
    },
    storage: { usage: async (id) => (await deps.server().storage?.(tenantNames(id))) ?? null },
  };
}
