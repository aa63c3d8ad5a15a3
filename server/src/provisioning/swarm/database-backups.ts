import type { BackupCapability } from '../engine.ts';
import { tenantNames } from '../tenant-names.ts';
import type { Flavor } from './database-flavors.ts';
import { execIn, runningContainer } from './node-exec.ts';
import { instanceNames } from './services.ts';
import type { SwarmContext } from './swarm-context.ts';

/**
 * Backups of a MySQL or PostgreSQL instance on a swarm (database-engine.ts): the tenant's database dumped
 * inside its server's container; a restore recreates it, loads the dump and checks the table count.
 */
export function sqlDatabaseBackups(ctx: SwarmContext, flavor: Flavor): BackupCapability {
  const withLock = <T>(id: string, task: () => Promise<T>) => ctx.lock(`instance:${id}`, task);

  return {
    create: (id, input) =>
      withLock(id, async () => {
        const { region } = await ctx.require(id);
        const tenant = tenantNames(id);
        const target = await runningContainer(region, instanceNames(id).service);
        const count = flavor.countTables(tenant.database);
        return ctx.backups.create(
          id,
          input,
          [
            {
              name: 'db.sql.gz',
              write: async (sink) => {
                const dump = flavor.dump(tenant.database);
                await execIn(target, dump.cmd, { user: dump.user, stdout: sink });
              },
            },
          ],
          async () => ({ tables: Number((await execIn(target, count.cmd, { user: count.user })).trim()) }),
        );
      }),
    list: (id) => ctx.backups.list(id),
    restore: (id, backupId) =>
      withLock(id, async () => {
        const { region } = await ctx.require(id);
        const tenant = tenantNames(id);
        const backup = await ctx.backups.open(id, backupId);
        const target = await runningContainer(region, instanceNames(id).service);
        const recreate = flavor.recreate(tenant.database, tenant.user);
        await execIn(target, recreate.cmd, { user: recreate.user });
        const load = flavor.load(tenant.database, tenant.user);
        await execIn(target, load.cmd, { user: load.user, stdin: backup.read('db.sql.gz') });
        const count = flavor.countTables(tenant.database);
        const tables = Number((await execIn(target, count.cmd, { user: count.user })).trim());
        if (tables !== backup.manifest.check.tables) {
          throw new Error(
            `Restore of ${backupId} incomplete: ${tables} tables, the backup had ${backup.manifest.check.tables}`,
          );
        }
      }),
    delete: (id, backupId) => ctx.backups.delete(id, backupId),
  };
}
