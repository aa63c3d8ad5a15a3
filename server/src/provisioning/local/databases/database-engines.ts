import type { DatabaseSpec, InstanceEngine } from '../../engine.ts';
import type { Capability } from '../../instance-types.ts';
import { checkPassword, generatePassword, tenantNames } from '../../tenant-names.ts';
import { DEFAULT_LIMITS } from '../host/control-groups.ts';
import type { EngineServer } from './engine-server.ts';
import { tenantLimits } from './tenant-limits.ts';

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
  return {
    type,
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
    storage: { usage: async (id) => (await deps.server().storage?.(tenantNames(id))) ?? null },
  };
}
