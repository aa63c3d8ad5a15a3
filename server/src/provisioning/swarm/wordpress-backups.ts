import type { BackupCapability, SiteSpec } from '../engine.ts';
import { FLAVORS } from './database-flavors.ts';
import { execIn, execIntoPart, partOutput, runningContainer } from './node-exec.ts';
import { instanceNames } from './services.ts';
import type { SwarmContext } from './swarm-context.ts';
import type { WebState } from './web-instance.ts';
import { WP_ROOT } from './wordpress-services.ts';

/**
 * Backups of a WordPress site on a swarm (wordpress-engine.ts) into the platform's archive: the database
 * dumped in its own container, wp-content archived as www-data in the site's; a restore checks the table
 * count the dump recorded.
 */
export function wordpressBackups(
  ctx: SwarmContext,
  requireState: (id: string) => Promise<WebState>,
): BackupCapability<SiteSpec> {
  const withLock = <T>(id: string, task: () => Promise<T>) => ctx.lock(`instance:${id}`, task);

  const dbTarget = async (id: string) =>
    runningContainer((await requireState(id)).region, instanceNames(id).dbService);
  const appTarget = async (id: string) =>
    runningContainer((await requireState(id)).region, instanceNames(id).service);
  const tablesIn = async (db: Awaited<ReturnType<typeof dbTarget>>) => {
    const count = FLAVORS.mysql.countTables('wordpress');
    return Number((await execIn(db, count.cmd, { user: count.user })).trim());
  };

  return {
    dump: (spec, archive, progress) =>
      withLock(spec.id, async () => {
        const db = await dbTarget(spec.id);
        const app = await appTarget(spec.id);
        const tables = await tablesIn(db);
        progress?.('Dumping the database');
        const dump = FLAVORS.mysql.dump('wordpress');
        await execIntoPart(archive, 'db.sql', db, dump.cmd, dump.user);
        progress?.('Copying files');
        // As www-data, inside the site's container: the files are only ever the site's own.
        await execIntoPart(
          archive,
          'files.tar',
          app,
          ['tar', '-C', WP_ROOT, '-cf', '-', 'wp-content'],
          'www-data',
        );
        return { tables };
      }),
    restore: (spec, archive, facts, progress) =>
      withLock(spec.id, async () => {
        const db = await dbTarget(spec.id);
        const app = await appTarget(spec.id);
        progress?.('Loading the database');
        const recreate = FLAVORS.mysql.recreate('wordpress', 'wordpress');
        await execIn(db, recreate.cmd, { user: recreate.user });
        const load = FLAVORS.mysql.load('wordpress', 'wordpress');
        await execIn(db, load.cmd, { user: load.user, stdin: partOutput(archive, 'db.sql') });
        progress?.('Restoring files');
        // As www-data, inside the site's container: the files are only ever the site's own.
        await execIn(
          app,
          [
            'sh',
            '-ec',
            `cd ${WP_ROOT}/wp-content && find . -mindepth 1 -maxdepth 1 -exec rm -rf {} + && tar -xf - -C ${WP_ROOT}`,
          ],
          { user: 'www-data', stdin: partOutput(archive, 'files.tar') },
        );
        const tables = await tablesIn(db);
        if (tables !== facts.tables) {
          throw new Error(`Restore incomplete: ${tables} tables, the backup had ${facts.tables}`);
        }
      }),
  };
}
