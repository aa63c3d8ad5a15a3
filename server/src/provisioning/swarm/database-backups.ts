import type { BackupCapability, DatabaseSpec } from '../engine.ts';
import { tenantNames } from '../tenant-names.ts';
import type { Flavor } from './database-flavors.ts';
import { execIn, execIntoPart, partOutput, runningContainer } from './node-exec.ts';
import { instanceNames } from './services.ts';
import type { SwarmContext } from './swarm-context.ts';

/**
 * Backups of a MySQL or PostgreSQL instance on a swarm (database-engine.ts): the tenant's database dumped
 * inside its server's container into the platform's archive; a restore recreates it, loads the dump and
 * checks the table count.
 */
export function sqlDatabaseBackups(ctx: SwarmContext, flavor: Flavor): BackupCapability<DatabaseSpec> {
  const withLock = <T>(id: string, task: () => Promise<T>) => ctx.lock(`instance:${id}`, task);
  const tablesIn = async (target: Awaited<ReturnType<typeof runningContainer>>, database: string) => {
    const count = flavor.countTables(database);
    return Number((await execIn(target, count.cmd, { user: count.user })).trim());
  };

  return {
    dump: (spec, archive, progress) =>
      withLock(spec.id, async () => {
        const { region } = await ctx.require(spec.id);
        const tenant = tenantNames(spec.id);
        const target = await runningContainer(region, instanceNames(spec.id).service);
        const tables = await tablesIn(target, tenant.database);
        progress?.('Dumping the database');
        const dump = flavor.dump(tenant.database);
        await execIntoPart(archive, 'db.sql', target, dump.cmd, dump.user);
        return { tables };
      }),
    restore: (spec, archive, facts, progress) =>
      withLock(spec.id, async () => {
        const { region } = await ctx.require(spec.id);
        const tenant = tenantNames(spec.id);
        const target = await runningContainer(region, instanceNames(spec.id).service);
        progress?.('Loading the database');
        const recreate = flavor.recreate(tenant.database, tenant.user);
        await execIn(target, recreate.cmd, { user: recreate.user });
        const load = flavor.load(tenant.database, tenant.user);
        await execIn(target, load.cmd, { user: load.user, stdin: partOutput(archive, 'db.sql') });
        const tables = await tablesIn(target, tenant.database);
        if (tables !== facts.tables) {
          throw new Error(`Restore incomplete: ${tables} tables, the backup had ${facts.tables}`);
        }
      }),
  };
}
