import type { BackupCapability, DatabaseCredentials, DatabaseSpec } from '../engine.ts';
import { sqlBackups } from '../sql-backups.ts';
import { tenantNames } from '../tenant-names.ts';
import type { Flavor } from './database-flavors.ts';
import { execIn, runningContainer } from './node-exec.ts';
import { instanceNames, LABEL } from './services.ts';
import type { SwarmContext } from './swarm-context.ts';

/**
 * Backups of a MySQL or PostgreSQL instance on a swarm (database-engine.ts), as on every driver
 * (sql-backups.ts): the platform logs in as the tenant through the instance's published port, the address
 * its customer uses. Only the restore's drop and recreate of the empty database is the server's admin's,
 * inside its container (database-flavors.ts: no name or setting of the tenant's on the way).
 */
export function sqlDatabaseBackups(ctx: SwarmContext, flavor: Flavor): BackupCapability<DatabaseSpec> {
  const withLock = <T>(id: string, task: () => Promise<T>) => ctx.lock(`instance:${id}`, task);
  const backups = sqlBackups(
    flavor.type,
    {
      async login(spec): Promise<DatabaseCredentials> {
        const { region, service } = await ctx.require(spec.id);
        const labels = service.Spec.Labels ?? {};
        const node = await region.nodeById(labels[LABEL.node] ?? '');
        if (!node) throw new Error(`The node of ${spec.id} is gone`);
        if (spec.password === undefined) throw new Error(`The password of ${spec.id} is unknown`);
        const tenant = tenantNames(spec.id);
        return {
          host: region.publicAddress(node),
          port: Number(labels[LABEL.port]),
          database: tenant.database,
          user: tenant.user,
          password: spec.password,
        };
      },
      async recreate(spec) {
        const { region } = await ctx.require(spec.id);
        const tenant = tenantNames(spec.id);
        const target = await runningContainer(region, instanceNames(spec.id).service);
        const recreate = flavor.recreate(tenant.database, tenant.user);
        await execIn(target, recreate.cmd, {
          user: recreate.user,
          env: recreate.env,
          watch: { what: 'Preparing the database', stallMs: 60_000 },
        });
      },
    },
    ctx.options.backupStallMs,
  );
  return {
    dump: (spec, archive, progress) => withLock(spec.id, () => backups.dump(spec, archive, progress)),
    restore: (spec, archive, facts, progress) =>
      withLock(spec.id, () => backups.restore(spec, archive, facts, progress)),
  };
}
